#include "schedules/single/single.h"

#include "schedules/pointwise/pointwise_schedule.h"

namespace solder::autosched {

namespace {

// Points a 0-d reduction reduces at the estimates from which a reduction fused into it is stored
// (choose): the total reduction template's least.
constexpr int64_t kMinSlicedPoints = 16384;

// A 0-d root (a scalar sum): one point, computed as the pointwise template's own kernel.
class SingleTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::Single; }

    std::string why_not(const KernelContext &c) const override {
        return c.root_node().dims.empty() ? "" : "the root has dims (this template takes 0-d roots)";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        if (!why_not(c).empty()) return std::nullopt;
        KernelChoice kc = c.whole_root_choice(TemplateKind::Single, 1);
        // A reduction over many points with another reduction fused into it (a mean over an SSIM
        // map whose windowed sums are inlined into it): its one thread would compute every point of
        // the member. Not ok, naming the Func the root reads in the kernel (the map): stored, it
        // takes its own template (the map's stencil tiles), and the total reduction template, which
        // inlines only pure Funcs, can slice the root. Where the many-point reduction is itself a
        // member (`mean() = sum(...) / n`), it is the one named. As one kernel, a user's mean SSIM
        // of two 2K images was estimated at 5.9 ms; storing the nearest windowed sum instead left
        // the search 20000 partitions with the sum fused, and a plan of 416 us.
        const FuncNode &O = c.root_node();
        if (!c.opt.gpu) return kc;
        auto total = [&](const FuncNode &n) { return n.dims.empty() && n.reduction_points >= kMinSlicedPoints; };
        auto name = [&](int m, const std::string &why) {
            kc.ok = false;
            kc.offender = kc.cut_offender = m;
            kc.offense = c.g.nodes[size_t(m)].name + why;
        };
        for (int m : c.members)
            if (total(c.g.nodes[size_t(m)]))
                name(m, " reduces " + std::to_string(c.g.nodes[size_t(m)].reduction_points) +
                            " points inside a 0-d kernel, which computes them all in one thread");
        bool reduces_inside = false;
        for (int m : c.members) reduces_inside = reduces_inside || c.g.nodes[size_t(m)].updates > 0;
        if (kc.ok && total(O) && reduces_inside)
            for (int e : O.in_edges) {
                const int m = c.g.edges[size_t(e)].producer;
                if (m >= 0 && c.inside[size_t(m)] && (kc.ok || m > kc.offender))
                    name(m, " is computed at each of the " + std::to_string(O.reduction_points) + " points " + O.name +
                                " reduces, with a reduction fused into it, and a 0-d kernel computes them "
                                "all in one thread");
            }
        return kc;
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
