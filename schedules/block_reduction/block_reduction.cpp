#include "schedules/block_reduction/block_reduction.h"

#include "schedules/block_reduction/block_reduction_schedule.h"

namespace solder::autosched {

namespace {

// A reduction alone in its kernel, with the row template's block reduction: one block per result,
// its reduction split across the block's threads (SOLDER_ENABLE=single_kernel_groups).
class BlockReductionTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::BlockReduction; }

    std::string why_not(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!c.opt.single_kernel_groups) return "single_kernel_groups is off";
        if (!c.opt.gpu) return "not a GPU target";
        if (!c.members.empty()) return "other Funcs are fused into the kernel";
        if (!O.is_reduction() || O.updates != 1 || O.dims.empty() ||
            O.function.update(0).schedule().rvars().size() != 1)
            return "the root is not a reduction of one update over one RVar with pure dims";
        return "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!why_not(c).empty()) return std::nullopt;
        return c.whole_root_choice(TemplateKind::BlockReduction, O.points());
    }

    void fill(const KernelPlanContext &, KernelPlan &k) const override { k.params = BlockReductionParams{}; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        schedule_block_reduction(c.w, c.get(k.root), c.target);
    }

    // One block per result: the pure stage one thread each, the update 256 lanes whose partials
    // sit in shared memory (schedule_block_reduction).
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &) const override {
        const FuncNode &O = c.root_node();
        std::vector<LaunchShape> out;
        for (int stage = 0; stage <= O.updates; stage++) {
            LaunchShape s;
            s.stage = stage_name(O, stage);
            set_grid(s, stage_extents(O, stage), 0, c.grid);
            if (stage > 0) {
                s.threads[0] = 256;
                s.shared_bytes = 256 * O.elem_bytes;
            }
            out.push_back(s);
        }
        return out;
    }
};

}  // namespace

const KernelTemplate &block_reduction_template() {
    static const BlockReductionTemplate t;
    return t;
}

}  // namespace solder::autosched
