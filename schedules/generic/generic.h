// The generic template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include "schedules/template.h"

namespace solder::autosched {

const KernelTemplate &generic_template();

// Whether `O` takes the generic template's block-per-cell scatter, whose increments are atomic
// adds in shared memory (GenericParams::cell_lanes).
bool adds_atomically_per_cell(const FuncNode &O, const PlannerOptions &opt);

}  // namespace solder::autosched
