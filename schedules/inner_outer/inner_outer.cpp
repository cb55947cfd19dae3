#include "schedules/inner_outer/inner_outer.h"

#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/inner_outer/inner_outer_plan.h"
#include "schedules/inner_outer/inner_outer_schedule.h"
#include "schedules/shared_split_k/shared_split_k_apply.h"
#include "schedules/split_k/split_k.h"

namespace solder::autosched {

namespace {

// What the prepare step made: the column sums rfactored, for the apply step to lay out.
struct ColumnSums {
    SharedSplitPartials sk;
    std::vector<SharedSplitMember> members;  // as read before rfactor rewrote the reductions
    std::vector<std::string> names;
};

// A row kernel whose blocks also sum other kernels' column sums over their rows. Never chosen for
// a kernel: its plan step (schedules/inner_outer/inner_outer_plan.h) turns a row kernel into one
// where the whole plan costs less.
class InnerOuterTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::InnerOuter; }
    std::optional<KernelChoice> choose(const KernelContext &) const override { return std::nullopt; }
    std::string why_not(const KernelContext &) const override {
        return "made from a row kernel by its plan step (schedules/inner_outer/inner_outer_plan.h), never chosen "
               "for one kernel";
    }
    void fill(const KernelPlanContext &, KernelPlan &) const override {}
    bool one_loop_nest() const override { return true; }

    // The column sums are rfactored here, before any kernel is placed; the host lays them out.
    void prepare(ApplyContext &c, const KernelPlan &k) const override {
        if (!is_gpu_target(c.target))
            throw std::runtime_error("the inner-outer kernel " + k.name + " needs a GPU target");
        const InnerOuterParams &p = *k.get<InnerOuterParams>();
        ColumnSums cs;
        cs.names = shared_split_members(c, p.column_sums, p.dim, cs.members);
        cs.sk = rfactor_shared_split_k(c.w, cs.members, cs.names, p.dim, p.rows);
        for (size_t i = 0; i < cs.sk.partials.size(); i++)
            check_partials_name(cs.sk.partials[i], p.column_sums[i], partials_name(p.column_sums[i]));
        c.prepared[k.name] = cs;
    }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const InnerOuterParams &p = *k.get<InnerOuterParams>();
        const ColumnSums &cs = std::any_cast<const ColumnSums &>(c.prepared.at(k.name));
        const auto &names = cs.names;
        InnerOuterShape shape;
        shape.rows = p.rows;
        shape.lanes = p.lanes;
        // (Vectors on CUDA only, as for the split-K partials: Halide 21's OpenCL C backend cannot
        // emit the masked vectors a guarded tail can make.)
        shape.vector = c.target.has_feature(Halide::Target::CUDA) ? p.vector_width : 1;
        shape.row_extent = p.row_extent;
        shape.column_name = names[0];
        shape.kept_names.assign(names.size(), "");
        for (size_t q = 2; q < names.size(); q++)
            if (int(q) != p.dim) shape.kept_names[q] = names[q];
        std::vector<Halide::Func> staged;
        for (auto &s : p.staged) staged.push_back(c.get(s.func));
        std::vector<BlockColumnSum> columns;
        for (size_t i = 0; i < cs.sk.partials.size(); i++) columns.push_back({cs.sk.partials[i], cs.members[i].f});
        const auto at = c.at_block(k);
        schedule_inner_outer_kernel(c.w, c.get(k.root), shape, at.funcs, at.row_dims, staged, columns, cs.sk.slice,
                                    cs.sk.step, c.target);
    }

    // `rows` rows of `lanes` threads per block, over the root's rows and its dims beyond them, each
    // its own grid dim (the column sums' blocks are named after them: never fused into x); the
    // staged rows and the reductions' partials in shared memory (as its plan step sized them).
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        const InnerOuterParams &p = *k.get<InnerOuterParams>();
        LaunchShape s;
        s.stage = O.name;
        std::vector<int64_t> e;
        for (size_t d = 1; d < O.region.size(); d++) e.push_back(O.region[d].extent());
        if (!e.empty()) e[0] = blocks_of(e[0], p.rows);
        for (size_t i = 0; i < e.size() && i < 3; i++) s.grid[i] = e[i];
        s.threads[0] = p.lanes, s.threads[1] = p.rows;
        s.shared_bytes = kInnerOuterReductionBytes;
        for (auto &st : p.staged) s.shared_bytes += st.bytes_per_block;
        return {s};
    }
};

}  // namespace

const KernelTemplate &inner_outer_template() {
    static const InnerOuterTemplate t;
    return t;
}

}  // namespace solder::autosched
