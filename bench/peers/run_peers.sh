#!/usr/bin/env bash
# The side-by-side run: the same gate lists (quantum_bench --emit-peer-circuits and --emit-qasm-circuits) on
# Spyglass (complex128 and complex64, fused <= 4 as `qsim` runs by default), qsim (complex64, fusion 2, 3 and 4),
# qulacs (complex128, its optimize_light and optimize(2)) and QuEST (complex128, no fusion), in interleaved rounds:
# every round runs every circuit on every simulator once, so a change in the machine's load hits all of them alike.
#
#   bench/peers/run_peers.sh BUILD [ROUNDS]      (BUILD: the Spyglass build folder, peers built into BUILD/peers)
#
# CIRCUITS limits the circuits (names of BUILD/peers/circuits/*.txt without .txt), VARIANTS the simulator
# settings. REPORT_ONLY=1 runs no rounds and reports the times of the last run (BUILD/peers/run/times.tsv) again,
# with bandwidth and FMA peak measured anew (a run stopped after some rounds still gets its tables). Prints (and
# writes to BUILD/peers/report.md) the machine, load averages, the STREAM-style bandwidth, the FMA peak at this thread count, every time, then the medians with
# fidelity against Spyglass complex128 (over the amplitudes gate_list.h dumps) and our three bounds: memory =
# passes x 2 x state bytes / in-place bandwidth, cache = what the gates read and write in cache blocks / in-place
# bandwidth over a cache block a thread, FMA = flops of the gates we run / FMA peak; the largest applies.
# Last, one line per circuit: ours against qsim (complex64) and the best complex128 peer, and against the bound,
# twice: whole runs (time_s: the state's allocation and initialisation, fusion, gates) and simulation alone
# (sim_s: fusion and gates, the state already allocated and initialised), the same split for every simulator.
set -uo pipefail
build=$(cd "${1:?usage: run_peers.sh BUILD [ROUNDS]}" && pwd)
# Every simulator runs with its OpenMP threads bound, one a hardware thread, as QuEST's docs advise for performance
# (docs/launch.md, "Improving performance": OMP_PROC_BIND=spread, OMP_PLACES=threads), unless the caller sets
# either (OMP_PROC_BIND=false runs them unbound). Unbound on a 2-vCPU VM, one of our two threads often joined a
# parallel region milliseconds late, and our 20-qubit times spread where qsim's did not (BENCHMARKS.md, run 38).
if [ -z "${OMP_PROC_BIND:-}" ] && [ -z "${OMP_PLACES:-}" ]; then
    export OMP_PROC_BIND=spread OMP_PLACES=threads
fi
rounds=${2:-3}
bench=$build/bench/quantum/quantum_bench
drivers=$build/peers/build
work=$build/peers/run
mkdir -p "$work" "$build/peers/circuits"
# Everything printed also goes to BUILD/peers/report.md.
exec > >(tee "$build/peers/report.md") 2>&1
"$bench" --emit-peer-circuits "$build/peers/circuits" > /dev/null || exit 1
# And the QASMBench circuits of 20 qubits or more (tests/data/qasmbench: circuits we did not write), rewritten into
# rz, ry and cx (quantum_bench --emit-qasm-circuits). bwt_n21 resets qubits mid-circuit: it has no one state to
# compare, and is left out.
qasmbench_circuits="cat_state_n22 ghz_state_n23 ising_n26 knn_n25 qram_n20 swap_test_n25 wstate_n27"
qasmbench=$(cd "$(dirname "$0")/../../tests/data/qasmbench/medium" && pwd)
"$bench" --emit-qasm-circuits "$build/peers/circuits" $(for c in $qasmbench_circuits; do echo "$qasmbench/$c/$c.qasm"; done) > /dev/null ||
    exit 1
circuits=${CIRCUITS:-"qft_20 qft_22 qft_24 qft_26 qft_28 random_20 random_22 random_24 random_26 h20_26 ghz_26 vqe_24 $qasmbench_circuits"}

variants="ours-f64 ours-f32"
[ -x "$drivers/qsim_driver" ] && variants="$variants qsim-f32-fuse2 qsim-f32-fuse3 qsim-f32-fuse4"
[ -x "$drivers/qulacs_driver" ] && variants="$variants qulacs-f64-light qulacs-f64-opt2"
[ -x "$drivers/quest_driver" ] && variants="$variants quest-f64"
# VARIANTS limits the simulator settings (names as in the tables, e.g. "ours-f64 ours-f32 qsim-f32-fuse3"). Only
# there: ours-f64-builtin and ours-f32-builtin, ours with the built-in kernel costs whatever calibration
# (`spyglass-cli qcalibrate`) this machine has, to weigh the calibration in the same rounds.
[ -n "${VARIANTS:-}" ] && variants=$(for v in $VARIANTS; do case " $variants ours-f64-builtin ours-f32-builtin " in *" $v "*) echo "$v" ;; esac; done | tr '\n' ' ')
for p in qsim qulacs quest; do [ -x "$drivers/${p}_driver" ] || echo "note: no $drivers/${p}_driver (bench/peers/build_peers.sh did not build it)"; done

command_of() {   # variant file -> command line
    case $1 in
        ours-f64) echo "$bench --peer-run $2 --fuse 4" ;;
        ours-f32) echo "$bench --peer-run $2 --fuse 4 --single" ;;
        ours-f64-builtin) echo "env SPYGLASS_KERNEL_COSTS=builtin $bench --peer-run $2 --fuse 4" ;;
        ours-f32-builtin) echo "env SPYGLASS_KERNEL_COSTS=builtin $bench --peer-run $2 --fuse 4 --single" ;;
        qsim-f32-fuse2) echo "$drivers/qsim_driver $2 --fuse 2" ;;
        qsim-f32-fuse3) echo "$drivers/qsim_driver $2 --fuse 3" ;;
        qsim-f32-fuse4) echo "$drivers/qsim_driver $2 --fuse 4" ;;
        qulacs-f64-light) echo "$drivers/qulacs_driver $2 --fuse -1" ;;
        qulacs-f64-opt2) echo "$drivers/qulacs_driver $2 --fuse 2" ;;
        quest-f64) echo "$drivers/quest_driver $2" ;;
    esac
}

echo "# peers side by side: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null)"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB;" \
     "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset} OMP_PROC_BIND=${OMP_PROC_BIND:-unset}" \
     "OMP_PLACES=${OMP_PLACES:-unset}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# Arrays of 2^24 complex128 (256 MiB each, 8x the L3 here): big enough for DRAM bandwidth, and quicker to first
# touch than state-sized ones on a virtual machine whose fresh pages are slow. Bandwidth and FMA peak are measured
# before and after the rounds and the higher of each is the bound's (other processes only ever lower them).
measure_peaks() {
    local bw fma
    bw=$("$bench" --bandwidth 24 | grep -v checksum)
    echo "bandwidth $1 (STREAM-style, 3 arrays of 256 MiB, best of 3): $(echo "$bw" | tr '\n' ' ')"
    # 12 chains of vector FMAs per thread, the vector width of the kernels in use (quantum_bench --fma-peak).
    fma=$("$bench" --fma-peak)
    echo "FMA peak $1 at ${OMP_NUM_THREADS:-all} threads: $(echo "$fma" | tr '\n' ' ')"
    rmw=$(echo "$bw" | awk -v old="${rmw:-0}" '/^rmw_gbs/ {print ($2 > old ? $2 : old)}')
    cache=$(echo "$bw" | awk -v old="${cache:-0}" '/^cache_rmw_gbs/ {print ($2 > old ? $2 : old)}')
    fma64=$(echo "$fma" | awk -v old="${fma64:-0}" '/fma_gflops_f64/ {print ($2 > old ? $2 : old)}')
    fma32=$(echo "$fma" | awk -v old="${fma32:-0}" '/fma_gflops_f32/ {print ($2 > old ? $2 : old)}')
}
measure_peaks "at start"
results=$work/times.tsv
[ -n "${REPORT_ONLY:-}" ] && rounds=0 && echo "REPORT_ONLY: the times of $results ($(cut -f1 "$results" | sort -u | wc -l) rounds)"
[ "$rounds" -gt 0 ] && : > "$results"
for r in $(seq 1 "$rounds"); do
    for c in $circuits; do
        f=$build/peers/circuits/$c.txt
        for v in $variants; do
            dump=
            [ "$r" = 1 ] && dump="--dump $work/$c.$v.bin"
            out=$($(command_of "$v" "$f") $dump 2> "$work/err.txt")
            t=$(echo "$out" | awk '/^time_s/ {print $2}')
            passes=$(echo "$out" | awk '/^passes/ {print $2}')
            flops=$(echo "$out" | awk '/^flops/ {print $2}')
            sim=$(echo "$out" | awk '/^sim_s/ {print $2}')
            cached=$(echo "$out" | awk '/^cache_bytes/ {print $2}')
            [ -n "$t" ] || { t=failed; sim=failed; echo "$v on $c failed: $(head -c 300 "$work/err.txt")"; }
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$c" "$v" "$t" "${passes:--}" "$(cut -d' ' -f1 /proc/loadavg)" "${flops:--}" "${sim:-failed}" "${cached:--}" >> "$results"
        done
    done
    echo "round $r done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
measure_peaks "at end"
echo
echo "## all times (round, circuit, simulator, whole run s, our passes, 1-min load average, our flops, simulation s, our bytes in cache)"
cat "$results"
echo
echo "## medians of $(cut -f1 "$results" | sort -u | wc -l) rounds; fidelity against ours-f64; memory bound = passes x 2 x state bytes / ${rmw} GB/s (in-place);" \
     "cache bound = bytes in cache / ${cache} GB/s (in place over a cache block a thread); FMA bound = flops / ${fma64} (complex128) or ${fma32} (complex64) GFLOP/s;" \
     "the bounds are of the gates, so the ratio is taken of the simulation time"
echo "| circuit | simulator | median whole run s | median simulation s | fidelity | passes | memory bound s | cache bound s | FMA bound s | bound | simulation / bound |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
median_of() {   # circuit variant column -> median seconds of that column (4 whole run, 8 simulation), or "failed"
    awk -F'\t' -v c="$1" -v v="$2" -v k="$3" '$2 == c && $3 == v && $k != "failed" && $k != "" {print $k}' "$results" | sort -g |
        awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]; else print "failed"}'
}
summary=$work/summary.tsv
: > "$summary"
for c in $circuits; do
    n=$(awk '/^qubits/ {print $2}' "$build/peers/circuits/$c.txt")
    for v in $variants; do
        med=$(median_of "$c" "$v" 4)
        sim=$(median_of "$c" "$v" 8)
        passes=$(awk -F'\t' -v c="$c" -v v="$v" '$2 == c && $3 == v {p = $5} END {print p}' "$results")
        flops=$(awk -F'\t' -v c="$c" -v v="$v" '$2 == c && $3 == v {p = $7} END {print p}' "$results")
        cached=$(awk -F'\t' -v c="$c" -v v="$v" '$2 == c && $3 == v {p = $9} END {print p}' "$results")
        fid=-
        [ "$v" != ours-f64 ] && [ -f "$work/$c.$v.bin" ] && fid=$("$bench" --fidelity "$work/$c.ours-f64.bin" "$work/$c.$v.bin" | awk '{print $2}')
        mem=- cab=- fmab=- kind=- ratio=-
        if [ "$passes" != - ] && [ -n "$passes" ] && [ -n "$rmw" ]; then
            case $v in *-f32*) bytes=8 peak=$fma32 ;; *) bytes=16 peak=$fma64 ;; esac
            read -r mem cab fmab kind ratio < <(awk -v p="$passes" -v n="$n" -v b="$bytes" -v bw="$rmw" -v cb="${cached:--}" -v cbw="${cache:-0}" \
                                                   -v f="$flops" -v pk="$peak" -v t="$sim" 'BEGIN {
                m = p * 2 * b * 2^n / (bw * 1e9); x = (pk > 0 && f != "-") ? f / (pk * 1e9) : 0
                ca = (cbw > 0 && cb != "-" && cb != "") ? cb / (cbw * 1e9) : 0
                k = "memory"; bd = m
                if (ca > bd) { k = "cache"; bd = ca }
                if (x > bd) { k = "FMA"; bd = x }
                printf "%.4f %.4f %.4f %s %s\n", m, ca, x, k, (t + 0 > 0 ? sprintf("%.2f", t / bd) : "-") }')
        fi
        echo "| $c | $v | $med | $sim | $fid | $passes | $mem | $cab | $fmab | $kind | $ratio |"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$v" "$med" "$kind" "$ratio" "$sim" >> "$summary"
    done
done
# One line per circuit: column 3 of the summary holds whole-run medians, column 6 simulation medians.
versus() {   # column title
    echo "| circuit | ours f32 s | qsim f32 s (best of fusion 2/3/4) | vs qsim | ours f64 s | best f64 peer s (which) | vs it | ours f64 sim / bound (which) | ours f32 sim / bound (which) |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for c in $circuits; do
        awk -F'\t' -v c="$c" -v col="$1" '$1 == c {t[$2] = $col; k[$2] = $4; r[$2] = $5}
            function num(x) { return x ~ /^[0-9.]+$/ }
            function vs(ours, peer) { return (num(ours) && num(peer) && ours > 0) ? sprintf("%.2fx", peer / ours) : "-" }
            END {
                q = "-"; n = split("qsim-f32-fuse2 qsim-f32-fuse3 qsim-f32-fuse4", qs, " ")
                for (i = 1; i <= n; ++i) if (num(t[qs[i]]) && (q == "-" || t[qs[i]] + 0 < q + 0)) q = t[qs[i]]
                d = "-"; dn = "-"; n = split("qulacs-f64-light qulacs-f64-opt2 quest-f64", ds, " ")
                for (i = 1; i <= n; ++i) if (num(t[ds[i]]) && (d == "-" || t[ds[i]] + 0 < d + 0)) { d = t[ds[i]]; dn = ds[i] }
                printf "| %s | %s | %s | %s | %s | %s (%s) | %s | %s (%s) | %s (%s) |\n", c, t["ours-f32"], q, vs(t["ours-f32"], q), t["ours-f64"], d, dn,
                       vs(t["ours-f64"], d), r["ours-f64"], k["ours-f64"], r["ours-f32"], k["ours-f32"] }' "$summary"
    done
}
echo
echo "## ours against the best peer (x > 1: we are faster by x), whole runs (allocation and initialisation of the state, fusion, gates)"
versus 3
echo
echo "## the same, simulation alone (fusion and gates; every simulator's state already allocated and initialised)"
versus 6
