// Shared split-K's steps when a plan is applied (schedules/shared_split_k/shared_split_k.h plans it).
#pragma once
#include <string>
#include <vector>

#include "schedules/split_k/split_k_schedule.h"
#include "schedules/template.h"

namespace solder::autosched {

// The group's reductions with their iteration domains, and the names their shared loops take
// (split along domain position `dim`). Throws where a member has no domain to share.
std::vector<std::string> shared_split_members(ApplyContext &c, const std::vector<std::string> &group, int dim,
                                              std::vector<SharedSplitMember> &members);
// The shared launches of the kernel's group: every member's partials in one loop nest.
void prepare_shared_split_k(ApplyContext &c, const KernelPlan &k);

}  // namespace solder::autosched
