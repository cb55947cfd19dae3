// The pointwise template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &pointwise_template();

// The width of the template's vector accesses for root `O` on a GPU (1: one element per thread)
// when no reduction is fused into its kernel.
int pointwise_vector_width(const FuncNode &O);

}  // namespace solder::autosched
