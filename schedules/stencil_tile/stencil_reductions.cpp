#include "schedules/stencil_tile/stencil_reductions.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "autosched/model/generic_reason.h"
#include "schedules/stencil_tile/stencil_staging.h"

namespace solder::autosched {

namespace {

// A reduction computed at each point of a reader that reads it at one point per point, over this
// many of the reader's points per point of it at most (an edge clamp's halo).
constexpr double kMaxReadsPerPoint = 1.25;

// "" where every read of reduction `m` on its way to a Func read through a window or stencil, or
// to the root, is one to one (a member read through none is inlined into its readers, and the
// reduction computed at each of their points), or at one point per point of a reader that has few
// more points than it reads (a boundary condition's clamp: the edges' points read again); else
// the first read that is not.
bool about_once_per_point(const FuncGraph &g, const FuncEdge &e) {
    if (e.access == Access::Pointwise) return true;
    if (e.access != Access::Remap || e.sites != 1 || e.footprint.empty()) return false;
    return double(g.nodes[size_t(e.consumer)].points()) <= kMaxReadsPerPoint * double(region_points(e.footprint));
}

std::string read_once_per_point(const KernelContext &c, int m) {
    const FuncGraph &g = c.g;
    std::vector<int> todo{m};
    std::set<int> seen;
    while (!todo.empty()) {
        const int n = todo.back();
        todo.pop_back();
        if (n == c.root || g.read_through_window(n) || g.read_through_stencil(n)) continue;
        if (!seen.insert(n).second) continue;
        for (int e : g.nodes[size_t(n)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (!c.inside[size_t(E.consumer)] && E.consumer != c.root) continue;
            if (!about_once_per_point(g, E))
                return std::string("read ") + access_name(E.access) + " by " + g.nodes[size_t(E.consumer)].name;
            todo.push_back(E.consumer);
        }
    }
    return "";
}

// Whether some window or stencil in the kernel reads a member that reads some Func at taps itself,
// directly or through other members.
bool window_of_a_window(const KernelContext &c) {
    std::vector<int> memo(c.g.nodes.size(), -1);
    std::function<bool(int)> reads_taps = [&](int m) {
        if (memo[size_t(m)] >= 0) return memo[size_t(m)] == 1;
        bool found = false;
        for (int e : c.g.nodes[size_t(m)].in_edges) {
            const FuncEdge &E = c.g.edges[size_t(e)];
            found = found || E.taps() || (c.inside[size_t(E.producer)] && reads_taps(E.producer));
        }
        memo[size_t(m)] = found ? 1 : 0;
        return found;
    };
    for (const FuncEdge &e : c.g.edges)
        if (e.taps() && c.inside[size_t(e.producer)] && (c.inside[size_t(e.consumer)] || e.consumer == c.root) &&
            reads_taps(e.producer))
            return true;
    return false;
}

// RVars of `m`'s update with more than one step at the estimates: 2 for a k x k window.
int window_dims(const FuncNode &m) {
    int dims = 0;
    if (!m.rvar_extents.empty())
        for (int64_t e : m.rvar_extents[0]) dims += e > 1;
    return dims;
}

// Whether reduction `m` is computed at each point of a Func the tiles compute (read through a
// window or stencil in the kernel), through the members that read it at their points.
bool computed_for_a_tile_func(const KernelContext &c, int m) {
    std::vector<int> todo{m};
    std::set<int> seen;
    while (!todo.empty()) {
        const int n = todo.back();
        todo.pop_back();
        if (n == c.root || !seen.insert(n).second) continue;
        if (n != m && c.g.read_at_taps(n)) return true;
        for (int e : c.g.nodes[size_t(n)].out_edges)
            if (c.inside[size_t(c.g.edges[size_t(e)].consumer)]) todo.push_back(c.g.edges[size_t(e)].consumer);
    }
    return false;
}

// The values of pipeline inputs (or of Funcs other kernels store) one point of member `m` loads,
// through the members it reads at their points (-1: more than a few, or through a reduction).
int64_t values_loaded(const KernelContext &c, int m, int depth = 0) {
    const FuncNode &M = c.g.nodes[size_t(m)];
    if (M.is_input || (!c.inside[size_t(m)] && m != c.root)) return 1;
    if (depth > 3 || M.updates > 0) return -1;
    int64_t n = 0;
    for (int e : M.in_edges) {
        const FuncEdge &E = c.g.edges[size_t(e)];
        const int64_t each = values_loaded(c, E.producer, depth + 1);
        if (each < 0) return -1;
        n += int64_t(std::max(E.sites, 1)) * each;
    }
    return n;
}

}  // namespace

std::string stencil_reductions_why_not(const KernelContext &c) {
    if (!c.reduction_member) return "";
    if (!c.opt.window_tiles) return "a reduction is fused, and window_tiles is off";
    if (c.root_node().is_reduction()) return "the root is a reduction with a reduction fused into it";
    for (int m : c.members) {
        const FuncNode &M = c.g.nodes[size_t(m)];
        if (!M.is_reduction()) continue;
        if (!reduces_per_point(M.function))
            return "the reduction " + M.name + " is fused, and its updates do not write one result per point";
        if (std::string why = read_once_per_point(c, m); !why.empty())
            return "the reduction " + M.name + " is fused and " + why +
                   ": computed at each point read, its steps would be repeated at every one";
    }
    if (!window_of_a_window(c))
        return "a reduction is fused, and no window or stencil in the kernel reads a Func computed from neighbouring "
               "points (a window over an input alone takes the register tiles)";
    // A k x k window computed at each point of a tile's Func (a chain of box averages, an
    // opening's erosion): every point of the tile and its halo reduces its window alone, where the
    // register tiles reduce 4 rows' windows together and load their overlapping taps once; the
    // round trip a stored intermediate costs is less. Measured on the H100: ten 5 x 5 averages of
    // a 2560 x 1536 uint16 image, 318 us in window tiles against 151 in a kernel each; a 5 x 5
    // opening of a 4K 8-bit image 142 against 92.
    for (int m : c.members) {
        const FuncNode &M = c.g.nodes[size_t(m)];
        if (M.is_reduction() && window_dims(M) >= 2 && computed_for_a_tile_func(c, m))
            return "the reduction " + M.name +
                   " reduces a 2-D window at each point of a Func computed per tile: each point of a tile and its "
                   "halo would reduce its window alone (the register tiles share the taps of 4 rows)";
    }
    // Tiles that would hold only an input's values (its boundary condition, each point one value
    // loaded: the Funcs that read it at taps are cheap and recomputed in each thread) save nothing
    // that L1 does not: an optical flow's 5 x 5 sums of gradients of a clamped image took 79.6 us
    // on the H100 in window tiles, 43.8 in register tiles. (Not a Func of several values, a
    // pixel's luminance from its channels: Harris's corners took 58 us with it per tile, 101 with
    // it stored.)
    const std::set<int> staged = stencil_tile_staging(c.g, c.root, c.own).staged;
    if (!staged.empty() && std::all_of(staged.begin(), staged.end(), [&](int m) {
            return input_like(c.g, m, c.root, c.members) && values_loaded(c, m) == 1;
        }))
        return "a reduction is fused, and the tiles would hold only inputs' boundary conditions (L1 serves their "
               "taps; the register tiles share them between rows)";
    return "";
}

}  // namespace solder::autosched
