#include "core/quantum/coupling.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>

namespace spyglass::quantum {

bool CouplingMap::connected(int a, int b) const
{
    return std::find(adj[a].begin(), adj[a].end(), b) != adj[a].end();
}

int CouplingMap::edges() const
{
    int e = 0;
    for (const auto& a : adj)
        e += static_cast<int>(a.size());
    return e / 2;
}

namespace {

// Breadth-first order from node 0, truncated to n nodes: a prefix of a BFS order is always connected.
CouplingMap fromGraph(const std::string& kind, int total, const std::set<std::pair<int, int>>& edges, int n)
{
    std::vector<std::vector<int>> g(static_cast<size_t>(total));
    for (auto [a, b] : edges) {
        g[a].push_back(b);
        g[b].push_back(a);
    }
    for (auto& v : g)
        std::sort(v.begin(), v.end());
    std::vector<int> order, seen(static_cast<size_t>(total), 0);
    std::deque<int> q{0};
    seen[0] = 1;
    while (!q.empty() && static_cast<int>(order.size()) < n) {
        const int v = q.front();
        q.pop_front();
        order.push_back(v);
        for (int w : g[v])
            if (!seen[w]) {
                seen[w] = 1;
                q.push_back(w);
            }
    }
    if (static_cast<int>(order.size()) < n)
        throw std::logic_error("coupling graph too small");
    std::map<int, int> index;
    for (int i = 0; i < n; ++i)
        index[order[i]] = i;
    CouplingMap m;
    m.kind = kind;
    m.size = n;
    m.adj.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        for (int w : g[order[i]])
            if (index.count(w))
                m.adj[i].push_back(index[w]);
    for (auto& v : m.adj)
        std::sort(v.begin(), v.end());
    m.dist.assign(static_cast<size_t>(n), std::vector<int>(static_cast<size_t>(n), -1));
    for (int s = 0; s < n; ++s) {
        std::deque<int> bq{s};
        m.dist[s][s] = 0;
        while (!bq.empty()) {
            const int v = bq.front();
            bq.pop_front();
            for (int w : m.adj[v])
                if (m.dist[s][w] < 0) {
                    m.dist[s][w] = m.dist[s][v] + 1;
                    bq.push_back(w);
                }
        }
    }
    return m;
}

}  // namespace

CouplingMap makeCouplingMap(const std::string& kind, int n)
{
    if (n < 1)
        throw std::invalid_argument("coupling map needs at least one qubit");
    std::set<std::pair<int, int>> e;
    if (kind == "linear") {
        for (int i = 0; i + 1 < n; ++i)
            e.insert({i, i + 1});
        return fromGraph(kind, n, e, n);
    }
    if (kind == "grid") {
        const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(n)))));
        const int rows = (n + cols - 1) / cols;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const int v = r * cols + c;
                if (c + 1 < cols)
                    e.insert({v, v + 1});
                if (r + 1 < rows)
                    e.insert({v, v + cols});
            }
        return fromGraph(kind, rows * cols, e, n);
    }
    if (kind == "heavyhex") {
        // Rows of `w` qubits joined in a line; between row r and r+1, bridge qubits at every 4th column,
        // offset by 2 on alternate rows (the IBM heavy-hex pattern).
        const int w = std::max(5, static_cast<int>(std::ceil(std::sqrt(double(n)) * 1.5)) | 1);
        int rows = 1;
        auto count = [&](int r) {
            int total = r * w;
            for (int k = 0; k + 1 < r; ++k)
                total += (w - (k % 2 ? 2 : 0) + 3) / 4;
            return total;
        };
        while (count(rows) < n)
            ++rows;
        int next = rows * w;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c + 1 < w; ++c)
                e.insert({r * w + c, r * w + c + 1});
        for (int r = 0; r + 1 < rows; ++r)
            for (int c = (r % 2 ? 2 : 0); c < w; c += 4) {
                const int b = next++;
                e.insert({r * w + c, b});
                e.insert({(r + 1) * w + c, b});
            }
        return fromGraph(kind, next, e, n);
    }
    throw std::invalid_argument("unknown coupling map '" + kind + "' (use linear, grid or heavyhex)");
}

}  // namespace spyglass::quantum
