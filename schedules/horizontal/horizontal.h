// Horizontal launches (a plan step beside the templates): independent 1-D kernels merged into one
// launch per stage (Halide compute_with), and their Halide half.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "schedules/template.h"

namespace solder::autosched {

// Kernel parameters are limited (4 KB for CUDA): each fused root passes two buffers and a few
// bounds, so a horizontal group stays under this many roots.
constexpr size_t kMaxHorizontalRoots = 100;

// Merges independent 1-D kernels into one launch per stage: pointwise roots, or reductions stage
// by stage. A kernel may join a group only if no kernel of the group depends on it, or it on
// them, through any chain, and if its loops are named as the group's.
void merge_horizontal(const FuncGraph &g, const std::vector<bool> &root, const std::vector<std::set<int>> &deps,
                      const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root);
// Sibling launches: independent pointwise kernels over the same points (two dims or more, the same
// loops and block shape) that read a common input, merged into one launch in which each thread
// computes every root's points (compute_with at the thread loop; schedule_pointwise_siblings): the
// shared inputs are read from DRAM once. SwiGLU's backward writes both gradients from the same
// gate, up and dy. At most kMaxSiblings roots per launch (each adds its registers and code).
constexpr size_t kMaxSiblings = 8;
void merge_siblings(const FuncGraph &g, const std::vector<std::set<int>> &deps,
                    const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root);
// Whether `k` (its root of `root_dims` dims) is a sibling launch rather than a 1-D horizontal one.
bool sibling_kernel(const KernelPlan &k, size_t root_dims);
// The merged kernel `k` (k.with not empty) applied: its roots' stages fused launch by launch.
void apply_horizontal(ApplyContext &c, const KernelPlan &k);

}  // namespace solder::autosched
