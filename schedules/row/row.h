// The row template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &row_template();

}  // namespace solder::autosched
