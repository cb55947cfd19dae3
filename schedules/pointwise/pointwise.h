// The pointwise template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &pointwise_template();

}  // namespace solder::autosched
