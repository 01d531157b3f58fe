/* Shows that Graphviz's dot layout (Debian 12: libgvc6 2.42.2) leaks the auxiliary and virtual edges it makes for
 * clusters, however carefully the caller frees: the evidence for the make_aux_edge and new_virtual_edge entries of
 * scripts/lsan-suppressions.txt. Not built by CMake; build and run it by hand:
 *
 *   gcc -g -fsanitize=address scripts/graphviz-leak-repro.c $(pkg-config --cflags --libs libgvc) -o /tmp/gvleak
 *   ASAN_OPTIONS=fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=scripts/lsan-suppressions.txt:print_suppressions=1 /tmp/gvleak
 *
 * Measured 2026-11-30: each layout leaks 15 blocks under make_aux_edge (class1 <- dot_rank) and 8 under
 * new_virtual_edge (class2 <- dot_mincross); 11 layouts leak 165 and 88, so it grows per layout. Without the
 * cluster subgraph nothing leaks from dot. The one other report, gvconfig under gvContext (3662 bytes), is the
 * context's plugin configuration that gvFreeContext does not free; Spyglass keeps its one context for the life of
 * the process (views/graphlayout.cpp), so there it stays reachable and is not suppressed. */
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdio.h>

int main(void)
{
    static const char dot[] = "digraph g { subgraph cluster_0 { a; b; } a -> b; a -> c; b -> d; c -> d; a -> d; }";
    GVC_t* gvc = gvContext();
    for (int i = 0; i < 11; ++i) {
        Agraph_t* g = agmemread(dot);
        if (!g || gvLayout(gvc, g, "dot") != 0) {
            fprintf(stderr, "graphviz-leak-repro: layout failed\n");
            return 1;
        }
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    return gvFreeContext(gvc);
}
