// The stencil tile template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "autosched/model/func_graph.h"
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &stencil_tile_template();

// Whether a GPU stencil tile kernel rooted at `root` has guarded tiles only, no branch of whole
// tiles: the root is smaller than a tile at its estimates, or, at sizes known only at run time, it
// is no pipeline output or reads an input unclamped (schedules/stencil_tile/stencil_schedule.h).
bool stencil_tiles_guarded(const FuncGraph &g, int root);

}  // namespace solder::autosched
