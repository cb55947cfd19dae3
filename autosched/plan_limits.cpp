#include "autosched/plan_limits.h"

#include "schedules/launch_shapes.h"

namespace solder::autosched {

namespace {

bool grid_yz_only(const std::vector<LimitViolation> &v) {
    for (auto &x : v)
        if (x.limit != Limit::GridY && x.limit != Limit::GridZ) return false;
    return !v.empty();
}

}  // namespace

std::vector<LaunchShape> launch_shapes_of(const FuncGraph &g, const PlannerOptions &opt, const Plan &plan,
                                          const KernelPlan &k) {
    const int root = g.find(k.root);
    if (root < 0) return {};
    return kernel_launch_shapes(ShapeContext{g, plan, opt, root, plan.grid_map(k)}, k);
}

std::vector<LimitViolation> fit_device_limits(const FuncGraph &g, const PlannerOptions &opt, Plan &plan) {
    std::vector<LimitViolation> left;
    if (!opt.gpu) return left;
    for (auto &k : plan.kernels) {
        k.launch_shapes = launch_shapes_of(g, opt, plan, k);
        auto v = check_device_limits(k, opt.device);
        if (grid_yz_only(v) && plan.grid_map(k) != GridMap::AllInX) {
            // Grid x holds 2^31 - 1 blocks: the same blocks in one dim, each finding its place in
            // the others from its index. (At sizes known only at run time a tile count is fused
            // too, whose extent Halide cannot prove positive, and a loop's bounds may widen: but
            // the launch would fail otherwise.)
            k.grid_in_x = true;
            k.launch_shapes = launch_shapes_of(g, opt, plan, k);
            auto after = check_device_limits(k, opt.device);
            if (after.empty()) {
                plan.explanations.push_back({k.root, "",
                                             "block dims fused into grid x: " + v[0].stage + "'s launch would need " +
                                                 v[0].needs() + ", above the device's " + std::to_string(v[0].max)});
                continue;
            }
            k.grid_in_x = false;  // (inner-outer keeps its grid: it falls back instead)
            k.launch_shapes = launch_shapes_of(g, opt, plan, k);
        }
        left.insert(left.end(), v.begin(), v.end());
    }
    return left;
}

}  // namespace solder::autosched
