// What one block of a row kernel computes (schedules/row): the regions the templates size their
// per-block Funcs by, and the dims that follow the root's rows where a block owns several.
#pragma once
#include <cstdint>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// The region of every node one block of a row kernel computes (empty: not needed), for the
// per-block sizes the templates need (how big a reduction's block-level partials would be).
// `rows` > 1: a block that owns that many rows of the root's dim after the inner ones.
std::vector<Region> row_block_regions(const FuncGraph &g, int root, const KernelChoice &kc, int64_t rows = 1);

// For a row kernel whose blocks own several rows: each Func the plan computes per block of root
// `root` gets FuncPlan::row_dim, its dim that follows the root's rows (its region grows when a
// block owns two rows instead of one): the templates lay their threads along that dim as they do
// the root's rows. Found by bounds, not by names, which need not match between a reduction and
// its consumer.
void assign_row_dims(const FuncGraph &g, int root, const KernelChoice &kc, Plan &plan);

}  // namespace solder::autosched
