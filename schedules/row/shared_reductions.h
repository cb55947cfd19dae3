// Shared reductions (a plan step beside the row template): a reduction that several kernels read,
// such as a layer norm backward's row means, which its dx kernel needs per row and its weight
// gradient's column sums need at every row. Stored by a kernel of its own, it costs a pass over
// the rows that the dx kernel makes anyway. Here the row kernel whose rows it lies at computes it
// per block, as any reduction it reads, and writes it, beside its root, for the other kernels
// (`SideOutput::shared`).
//
// Halide fuses no Func with one that reads it, even through others (compute_with), and one Func
// has one schedule, so the two kernels cannot read the same Funcs: the Funcs the other kernels
// inline on the way to the reduction (the normalized values, the reciprocal deviation) are copied
// for them (Func::clone_in), and the copies read a wrapper of the reduction (Func::in), which is
// stored and fused with the row kernel's root at its block loop, as a side output is.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

namespace autosched {

// Whether plans may share reductions: GPU plans with compute_at and shared_reductions.
bool shares_reductions(const PlannerOptions &opt);

// Whether the kernel of root `host` (`choice`: each root's kernel) can compute reduction `s` per
// block and write it for other kernels: a row kernel without split-K, one block of which needs `s`
// at its own rows alone, whose root is no pipeline output (an output's rows are the caller's window,
// which the other kernels may read beyond). Empty if so, else why not.
std::string shared_reduction_why_not(const FuncGraph &g, const std::map<int, KernelChoice> &choice, int host, int s);

// Whether `host`'s kernel `kc` reads reduction `s` only through reads whose indices move with their
// reader's (its vars plus constants: pointwise, broadcast or stencil reads), along every path of
// the kernel's Funcs from `host` to `s`. Through a clamp or a mirror of the rows (a boundary
// condition), Halide bounds the rows of `s` a block computes over every row it might map to, and
// threads them: a launch of as many threads as the image has rows, which the row template's
// constant thread count cannot bound for a reduction it shares. Empty if so, else why not.
std::string read_through_moving_indices(const FuncGraph &g, int host, const KernelChoice &kc, int s);

}  // namespace autosched

// After every kernel is scheduled (ScheduleWriter::after_all): `shared`, computed per block of
// `root`'s kernel, are written beside it for the Funcs of other kernels that read them. The Funcs
// those read them through, inlined in `root`'s kernel too, are copied for them; each reduction's
// wrapper is fused with `root` at `at`, one thread of the block writing its row.
void write_shared_reductions(ScheduleWriter &w, Halide::Func root, const std::vector<Halide::Func> &shared,
                             const Halide::VarOrRVar &at);

}  // namespace solder
