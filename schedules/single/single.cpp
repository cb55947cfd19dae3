#include "schedules/single/single.h"

#include "schedules/pointwise/pointwise_schedule.h"

namespace solder::autosched {

namespace {

// A 0-d root (a scalar sum): one point, computed as the pointwise template's own kernel.
class SingleTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::Single; }

    std::string why_not(const KernelContext &c) const override {
        return c.root_node().dims.empty() ? "" : "the root has dims (this template takes 0-d roots)";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        if (!why_not(c).empty()) return std::nullopt;
        return c.whole_root_choice(TemplateKind::Single, 1);
    }

    void fill(const KernelPlanContext &, KernelPlan &k) const override { k.params = SingleParams{}; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        schedule_pointwise_kernel(c.w, c.get(k.root), 1, c.target);
    }

    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &) const override {
        return own_kernel_shapes(c.root_node(), c.grid);
    }
};

}  // namespace

const KernelTemplate &single_template() {
    static const SingleTemplate t;
    return t;
}

}  // namespace solder::autosched
