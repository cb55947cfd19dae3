#include "schedules/generic/generic.h"

#include <algorithm>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/generic/generic_schedule.h"

namespace solder::autosched {

namespace {

// Threads per block for each stage of a generic root with exactly one pure var it writes as it is
// (schedules/generic/generic_schedule.h): halved from 256 down to a warp while the stage's points
// at the estimate give fewer than four blocks per SM. A scan's RVar walks serially in each thread:
// with 2160 rows in blocks of 256, 9 of the H100's 132 SMs would do all the work.
std::vector<int> generic_stage_threads(const FuncNode &O, const DeviceProfile &d) {
    std::vector<int> threads;
    for (int s = 0; s <= O.updates; s++) {
        const auto pure = stage_pure_vars(O.function, s);
        int t = 0;
        if (pure.size() == 1) {
            const size_t dim = size_t(std::find(O.dims.begin(), O.dims.end(), pure[0].name()) - O.dims.begin());
            const int64_t points = dim < O.region.size() ? O.region[dim].extent() : 1;
            t = 256;
            while (t > 32 && (points + t - 1) / t < 4 * int64_t(d.sms)) t /= 2;
        }
        threads.push_back(t);
    }
    return threads;
}

class GenericTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::Generic; }

    // Tiles over the root's dims, members inlined; for roots that need it (FuncNode::generic).
    std::string why_not(const KernelContext &c) const override {
        return c.root_node().generic.empty() ? "a fused template can take the root (it needs no generic reason)" : "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!why_not(c).empty()) return std::nullopt;
        return c.whole_root_choice(TemplateKind::Generic, std::max<int64_t>(1, O.points() / 256));
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        GenericParams p;
        if (c.opt.gpu) p.stage_threads = generic_stage_threads(O, c.opt.device);
        k.params = p;
        // Scatters in chunks of rows take two launches more (their chunks' bins).
        for (int u = 0; c.opt.gpu && u < O.updates; u++) k.launches += chunked_scatter(O.function, u) ? 2 : 0;
    }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        schedule_generic_kernel(c.w, c.get(k.root), c.target, k.get<GenericParams>()->stage_threads);
    }
};

}  // namespace

const KernelTemplate &generic_template() {
    static const GenericTemplate t;
    return t;
}

}  // namespace solder::autosched
