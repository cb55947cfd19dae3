// The reduction tile template (schedules/template.h): a 2-D root whose kernel holds one reduction
// over one RVar (an arg-min over disparities) and the stencils it reduces over (a cost volume),
// each tile looping over the RVar with the stencils computed per tile at every step, so that the
// volume is never stored. Its choose, fill and apply steps.
#pragma once
#include <string>
#include <vector>

#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &reduction_tile_template();

// What a kernel of this template computes where, by node: the planner records it as placements.
struct ReductionTileShape {
    int reduction = -1;         // computed per tile; its RVar loop runs around the step's Funcs
    std::vector<int> per_tile;  // the inputs' boundary conditions, staged once per tile
    int per_step = -1;          // the member staged per tile at every step of the RVar loop
    std::vector<int> inlined;   // the rest, recomputed where read
    std::string why_not;        // empty: the kernel has this shape
};
ReductionTileShape reduction_tile_shape(const FuncGraph &g, int root, std::vector<int> members);

}  // namespace solder::autosched
