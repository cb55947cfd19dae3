// The inner outer template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &inner_outer_template();

}  // namespace solder::autosched
