// How many copies of each inlined member's definition a kernel's root expression holds per point.
// Halide inlines a Func by substituting its definition at every call, so a member read at 4 taps by
// a Func that is itself read at 4 taps appears 16 times, and a chain of such steps multiplies: a
// user's Horn-Schunck flow (five iterations of 4-neighbour averages of u and v, each step reading
// both) inlined into one kernel held thousands of copies of the first step, and Halide's lowering
// ran for more than 10 minutes. (CSE merges copies at the same point afterwards: the run time grows
// far less than the expression; the search's own recompute cap is CostModel::kernel_reads'.)
// A member other kernels also read is inlined in each (Halide computes a Func at one place),
// whatever its template would compute per tile.
#pragma once
#include <set>
#include <vector>

#include "autosched/model/func_graph.h"

namespace solder::autosched {

// The operations of every inlined copy of every member per point of the root (each member's
// ops_per_point times its copies), beyond which the search refuses the kernel (choose_kernel,
// PlannerOptions::max_inline_ops) where its plan had one, and stores a member instead. The bundled apps reach 9198 (local_laplacian's last level), the user pipelines
// of the bench 953; the Horn-Schunck flow's two last kernels 42241, which Halide took 7 minutes to
// compile (at 15088, 79 s; cut below this limit, 7681 and 13 s).
constexpr double kMaxInlineOps = 10240;

struct InlineCopies {
    // The member nearest the root at which the operations, counted from the root outwards, pass
    // `limit` (-1: none), and its copies.
    int member = -1;
    double copies = 1;
    double total = 0;              // the operations of every member's copies
    std::vector<double> per_node;  // each member's copies (1 for what is computed once)
};

// The members of the kernel of root `root` (`inside`) that other kernels read too, directly or
// through members that feed them: Halide computes a Func at one place, so every kernel reading it
// inlines it, whatever its template would compute per tile or per block (by node).
std::vector<bool> shared_members(const FuncGraph &g, int root, const std::vector<bool> &inside);

// Members in `apart` (computed over a box of their own: per tile, per block) and reductions count
// as one copy each; every other member of the kernel is inlined at each call.
InlineCopies inline_copies(const FuncGraph &g, int root, const std::vector<bool> &inside, const std::set<int> &apart,
                           double limit = kMaxInlineOps);

}  // namespace solder::autosched
