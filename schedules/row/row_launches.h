// The row template's launch at the planning estimates (schedules/launch_shapes.h): its grid, the
// block's threads over every stage computed in it, and the shared memory its per-block Funcs take.
#pragma once
#include <vector>

#include "schedules/launch_shapes.h"

namespace solder::autosched {

// Kernel `k` (a row kernel, RowParams) as schedules/row/row_schedule.cpp lays it out on CUDA.
LaunchShape row_launch_shape(const ShapeContext &c, const KernelPlan &k);

}  // namespace solder::autosched
