// The generic template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &generic_template();

}  // namespace solder::autosched
