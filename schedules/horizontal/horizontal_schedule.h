// The horizontal launches' Halide half (schedules/horizontal/horizontal.h is the plan step).
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Horizontal template: independent 1-D roots in one launch per stage. Each stage (a reduction's
// init and update, or the one pure definition) is split the same way and fused into the first
// root's same stage at the block loop (compute_with); blocks past a root's end skip it. The roots
// must have as many stages, each writing its pure var, named alike in all (the planner checks).
// `adds_partials[i]`: roots[i] is a split-K root that adds its partials (schedules/split_k/split_k_schedule.h).
void schedule_horizontal_1d(ScheduleWriter &w, const std::vector<Halide::Func> &roots, const Halide::Target &target,
                            const std::vector<bool> &adds_partials = {});

}  // namespace solder
