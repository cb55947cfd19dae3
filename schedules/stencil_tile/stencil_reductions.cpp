#include "schedules/stencil_tile/stencil_reductions.h"

#include <functional>
#include <set>
#include <vector>

#include "autosched/model/generic_reason.h"

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
    return "";
}

}  // namespace solder::autosched
