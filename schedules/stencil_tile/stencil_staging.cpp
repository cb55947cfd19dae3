#include "schedules/stencil_tile/stencil_staging.h"

#include <algorithm>
#include <functional>

#include "schedules/stencil_tile/stencil_schedule.h"
#include "schedules/stencil_tile/stencil_tile.h"

namespace solder::autosched {

namespace {

std::string names(const FuncGraph &g, const std::set<int> &ns) {
    std::string s;
    for (int n : ns) s += (s.empty() ? "" : ", ") + g.nodes[size_t(n)].name;
    return s;
}

// The second step of stencil_tile_staging: cheap staged Funcs of staged Funcs, recomputed in
// registers. Node ids are topological (producers first), so a member is decided after every
// member it reads. Returns the note (empty: none recomputed).
std::string recompute_second_level(const FuncGraph &g, int root, TileStaging &t, std::set<int> &recomputed) {
    std::set<int> from;
    for (int m : t.staged) {
        const FuncNode &n = g.nodes[size_t(m)];
        if (n.updates > 0 || tile_recompute_ops_per_output(g, m, root) > kMaxRecomputeOpsPerOutput) continue;
        std::set<int> producers;
        bool only_staged = true;
        for (int e : n.in_edges) {
            const int p = g.edges[size_t(e)].producer;
            if (g.nodes[size_t(p)].is_input || !t.staged.count(p) || recomputed.count(p)) {
                only_staged = false;
                break;
            }
            producers.insert(p);
        }
        if (!only_staged || producers.empty()) continue;
        recomputed.insert(m);
        from.insert(producers.begin(), producers.end());
    }
    if (recomputed.empty()) return "";
    for (int m : recomputed) t.staged.erase(m);
    return names(g, recomputed) + " recomputed in each thread's registers from " + names(g, from) +
           " (computed per tile) instead of computed per tile themselves: cheap stencils of staged Funcs, whose " +
           "taps the thread's rows share";
}

// Member `m` and the members it reads, directly or through others, that are neither staged nor
// pipeline inputs: what computing `m` at a point computes (those are inlined into it).
std::set<int> inlined_into(const FuncGraph &g, int m, const std::set<int> &staged, const std::vector<int> &members) {
    std::set<int> out{m};
    std::vector<int> todo{m};
    while (!todo.empty()) {
        const int n = todo.back();
        todo.pop_back();
        for (int e : g.nodes[size_t(n)].in_edges) {
            const int p = g.edges[size_t(e)].producer;
            if (g.nodes[size_t(p)].is_input || staged.count(p) || out.count(p) ||
                std::find(members.begin(), members.end(), p) == members.end())
                continue;
            out.insert(p);
            todo.push_back(p);
        }
    }
    return out;
}

// Whether member `m` reads a reduction that is no pipeline input: one computed where it is read (a
// fused inline `sum`), whose steps inlining `m` would repeat at each of its reads.
bool reads_a_reduction(const FuncGraph &g, int m) {
    for (int e : g.nodes[size_t(m)].in_edges) {
        const FuncNode &p = g.nodes[size_t(g.edges[size_t(e)].producer)];
        if (!p.is_input && p.updates > 0) return true;
    }
    return false;
}

// A member some reader in the kernel reads at an uneven index (FuncEdge::uneven), cheap enough to
// compute at each of its reads (ops_per_point x distinct reads, kMaxUnevenRecomputeOps).
bool read_unevenly_and_cheap(const FuncGraph &g, int m) {
    const FuncNode &n = g.nodes[size_t(m)];
    if (n.updates > 0 || reads_a_reduction(g, m)) return false;
    bool uneven = false;
    int64_t reads = 0;
    for (int e : n.out_edges) {
        uneven |= g.edges[size_t(e)].uneven;
        reads += g.edges[size_t(e)].sites;
    }
    return uneven && n.ops_per_point * reads <= kMaxUnevenRecomputeOps;
}

// Taps along tile dim `d` of member `m` for the kernel whose root is `root`: how far the member's
// needed region reaches past the root's.
int64_t tile_taps(const FuncGraph &g, int m, int root, size_t d) {
    const Region &f = g.nodes[size_t(m)].region, &o = g.nodes[size_t(root)].region;
    return d < f.size() && d < o.size() ? std::max<int64_t>(1, f[d].extent() - o[d].extent() + 1) : 1;
}

// Whether member `m` reads no stencil or resampling of anything, directly or through what it
// reads (a boundary condition or a cast of an input): inlining it compounds no taps.
bool reads_no_stencil(const FuncGraph &g, int m) {
    const FuncNode &n = g.nodes[size_t(m)];
    if (n.updates > 0 || reads_a_reduction(g, m)) return false;
    for (int e : n.in_edges) {
        const int p = g.edges[size_t(e)].producer;
        if (g.edges[size_t(e)].taps() || (!g.nodes[size_t(p)].is_input && g.read_at_taps(p))) return false;
    }
    return true;
}

// A member that reads no stencil (reads_no_stencil), read through a stencil along rows only (taps
// along x, none along y), cheap enough to compute at each tap (kMaxRecomputeOpsPerOutput).
bool read_along_rows_only_and_cheap(const FuncGraph &g, int m, int root) {
    const FuncNode &n = g.nodes[size_t(m)];
    if (n.dims.size() < 2 || g.read_through_resampling(m) || !reads_no_stencil(g, m)) return false;
    const int64_t taps_x = tile_taps(g, m, root, 0);
    return tile_taps(g, m, root, 1) == 1 && taps_x > 1 && n.ops_per_point * taps_x <= kMaxRecomputeOpsPerOutput;
}

// Whether member `m` is input-like (a pipeline input, or a cheap pure Func of such read at one
// point each: a boundary condition, a cast) and every path from it to the kernel's root crosses exactly one stencil or
// resampling edge, through members (a 3 x 3 filter of a clamped input, not a separable blur's first
// pass). Staged per tile, its taps cost a shared-memory copy and a barrier that L1 saves anyway.
// Measured on the H200: a gradient's magnitude and angle of a clamped image 60.4 -> 37.4 us
// (Anderson2021 41.9), a Sobel filter 22.1 -> 19.0, a 3 x 3 median 27.6 -> 24.6; not staging the
// input where a second stencil reads the first (harris 55.4 -> 188.0, unsharp 67.4 -> 99.7, a
// separable 5-tap blur 73.6 -> 93.0) was slower.
bool input_read_by_one_stencil(const FuncGraph &g, int m, int root, const std::vector<int> &members) {
    auto member = [&](int n) { return n == root || std::find(members.begin(), members.end(), n) != members.end(); };
    if (!input_like(g, m, root, members)) return false;
    // The stencil edges on each path from n to the root: all must be exactly one.
    std::function<bool(int, int)> one_stencil = [&](int n, int crossed) {
        if (n == root) return crossed == 1;
        for (int e : g.nodes[size_t(n)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (!member(E.consumer)) continue;
            const int next = crossed + (E.taps() ? 1 : 0);
            if (next > 1 || !one_stencil(E.consumer, next)) return false;
        }
        return true;
    };
    return one_stencil(m, 0);
}

}  // namespace

bool input_like(const FuncGraph &g, int m, int root, const std::vector<int> &members) {
    auto member = [&](int n) { return n == root || std::find(members.begin(), members.end(), n) != members.end(); };
    std::function<bool(int, int)> like = [&](int n, int depth) {
        const FuncNode &f = g.nodes[size_t(n)];
        if (f.is_input || !member(n)) return true;  // (a Func another kernel stores: a buffer, as an input)
        if (depth > 3 || f.updates > 0 || f.ops_per_point > kMaxInputLikeOps) return false;
        for (int e : f.in_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (E.taps() || !like(E.producer, depth + 1)) return false;
        }
        return true;
    };
    return like(m, 0);
}

int64_t tile_recompute_ops_per_output(const FuncGraph &g, int m, int root) {
    const int64_t rows = kStencilTileY / kStencilThreadsY;
    return g.nodes[size_t(m)].ops_per_point * tile_taps(g, m, root, 0) * (rows + tile_taps(g, m, root, 1) - 1) / rows;
}

TileStaging stencil_tile_staging(const FuncGraph &g, int root, const std::vector<int> &members) {
    TileStaging t;
    auto member = [&](int n) { return std::find(members.begin(), members.end(), n) != members.end(); };
    std::set<int> uneven, along_rows, one_level;
    for (int m : members) {
        if (!g.read_at_taps(m)) continue;
        if (input_read_by_one_stencil(g, m, root, members)) {
            one_level.insert(m);
            continue;
        }
        if (read_unevenly_and_cheap(g, m)) {
            uneven.insert(m);
        } else if (read_along_rows_only_and_cheap(g, m, root)) {
            along_rows.insert(m);
        } else {
            t.staged.insert(m);
        }
    }
    if (!one_level.empty())
        t.notes.push_back(names(g, one_level) +
                          " inlined, not computed per tile: a pipeline input (or a cheap Func of one: a boundary "
                          "condition) read through one stencil only, whose taps L1 serves");
    if (!along_rows.empty())
        t.notes.push_back(names(g, along_rows) +
                          " inlined, not computed per tile: read through a stencil along rows only, whose taps "
                          "neighbouring threads load from the same cache lines");
    if (!uneven.empty())
        t.notes.push_back(names(g, uneven) +
                          " inlined, not computed per tile: read at rounded float coordinates, so the region a tile "
                          "needs varies from tile to tile, and Halide would size each launch's shared memory by "
                          "evaluating every block's region on the host");
    // Staged members that are cheap and read only members (and pipeline inputs) at their own point.
    std::set<int> swapped, sources;
    for (int m : t.staged) {
        const FuncNode &n = g.nodes[size_t(m)];
        if (n.updates > 0 || n.ops_per_point > kMaxInlinedTileOps) continue;
        std::set<int> from;
        bool pointwise = true;
        for (int e : n.in_edges) {
            const FuncEdge &edge = g.edges[size_t(e)];
            if (g.nodes[size_t(edge.producer)].is_input) continue;
            if (!member(edge.producer) || edge.access != Access::Pointwise ||
                g.nodes[size_t(edge.producer)].updates > 0) {
                pointwise = false;
                break;
            }
            from.insert(edge.producer);
        }
        if (!pointwise || from.empty()) continue;
        swapped.insert(m);
        sources.insert(from.begin(), from.end());
    }
    std::set<int> added;
    for (int s : sources)
        if (!t.staged.count(s) || swapped.count(s)) added.insert(s);
    const bool swap = !swapped.empty() && added.size() < swapped.size();
    if (swap) {
        for (int m : swapped)
            if (!added.count(m)) t.staged.erase(m);
        t.staged.insert(added.begin(), added.end());
    }
    std::set<int> second;
    const std::string recomputed = recompute_second_level(g, root, t, second);
    if (swap) {
        // (Written after the second step, which may recompute the Funcs the swap staged.)
        std::set<int> still;
        for (int a : added)
            if (t.staged.count(a)) still.insert(a);
        std::string note = names(g, swapped) + " inlined into their stencil consumers (cheap pointwise functions of " +
                           names(g, sources) + ")";
        if (!still.empty())
            note += ", and " + names(g, still) + " computed per tile instead: " + std::to_string(added.size()) +
                    " tiles in shared memory, not " + std::to_string(swapped.size());
        t.notes.push_back(note);
    }
    // Guarded tiles: every launch first sizes shared memory by evaluating each block's region on
    // the host. Staged Funcs that read no stencil themselves (inlined, they compound no taps) and
    // cost few operations at all their taps are inlined instead. What a staged Func computes at a
    // tap includes the members it reads that are not staged (inlined into it): none of them may
    // read a stencil either (a boundary condition of a diffusion step inlines the step, whose own
    // stencil each tap would then recompute: four Perona-Malik steps, the second step with the
    // first inlined at its 5 taps). Their arithmetic is not counted: the host's sizing of the
    // guarded tiles costs more. Measured on the H100, a user's film grain (a hash's noise per
    // pixel, clamped, blurred 3 x 3: 72 operations the clamp and its taps, the hash's on top)
    // took 73.6 us with the noise inlined at every tap, 103.6 with it computed per tile; the
    // diffusion steps 372.0 us with the second step's clamp inlined, 374.6 with it per tile.
    if (!t.staged.empty() && stencil_tiles_guarded(g, root)) {
        int64_t ops = 0;
        bool first_level = true;
        for (int m : t.staged) {
            ops += g.nodes[size_t(m)].ops_per_point * tile_taps(g, m, root, 0) * tile_taps(g, m, root, 1);
            for (int k : inlined_into(g, m, t.staged, members)) first_level = first_level && reads_no_stencil(g, k);
        }
        if (first_level && ops <= kMaxRecomputeOpsPerOutput) {
            std::set<int> all = t.staged;
            all.insert(second.begin(), second.end());
            t.notes.push_back(names(g, all) + " inlined, not computed per tile: the tiles are guarded (" +
                              "Halide would size each launch's shared memory by evaluating every block's region " +
                              "on the host), and what the tile would hold reads no stencil and costs " +
                              std::to_string(ops) + " operations per point at all its taps");
            t.staged.clear();
            return t;
        }
    }
    if (!recomputed.empty()) t.notes.push_back(recomputed);
    return t;
}

}  // namespace solder::autosched
