// The stencil tile template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &stencil_tile_template();

}  // namespace solder::autosched
