// The total reduction template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &total_reduction_template();

}  // namespace solder::autosched
