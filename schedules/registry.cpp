#include "schedules/registry.h"

#include <cstdio>
#include <stdexcept>

#include "autosched/model/cost_model.h"
#include "autosched/model/inline_copies.h"

#include "schedules/block_reduction/block_reduction.h"
#include "schedules/generic/generic.h"
#include "schedules/inner_outer/inner_outer.h"
#include "schedules/pointwise/pointwise.h"
#include "schedules/reduction_tile/reduction_tile.h"
#include "schedules/row/row.h"
#include "schedules/single/single.h"
#include "schedules/stencil_tile/stencil_tile.h"
#include "schedules/total_reduction/total_reduction.h"

namespace solder::autosched {

const std::vector<const KernelTemplate *> &kernel_templates() {
    static const std::vector<const KernelTemplate *> all = {
        &generic_template(),          // a root no fused template fits (autosched/model/generic_reason.h)
        &total_reduction_template(),  // a reduction to few results, each over many points
        &single_template(),           // a 0-d root
        &reduction_tile_template(),   // tiles stepping through a reduction over stencils
        &block_reduction_template(),  // a reduction alone along the innermost dim
        &stencil_tile_template(),     // stencil producers fused into 2-D tiles
        &pointwise_template(),        // no reduction fused into a non-reduction root
        &row_template(),              // reductions fused into their consumer's rows
        &inner_outer_template(),      // made by its plan step from a row kernel, never chosen
    };
    return all;
}

const KernelTemplate &kernel_template(TemplateKind kind) {
    for (auto *t : kernel_templates())
        if (t->kind() == kind) return *t;
    throw std::logic_error(std::string("no kernel template of kind ") + template_name(kind));
}

namespace {

// Why no template takes a kernel with a generic member (KernelContext::generic_member): the
// pointwise template does, where the root reads the member one to one; otherwise its kernel would
// split the member's RDom or hold it per block, which its definition does not allow.
std::string generic_member_why_not(const KernelContext &c) {
    const FuncNode &M = c.g.nodes[size_t(c.generic_member)];
    return M.name + " takes the generic template (" + M.generic + "); fused, it is computed per point, so " +
           c.root_node().name + "'s kernel must read it one to one: " + pointwise_template().why_not(c);
}

// Refuses (not ok) a choice whose root expression would hold more than kMaxInlineOps operations
// of inlined members' copies: the search stores the member where they pass it.
KernelChoice limit_inline_copies(const KernelContext &c, const KernelTemplate &t, KernelChoice kc) {
    if (!kc.ok || c.opt.max_inline_ops <= 0) return kc;
    const InlineCopies n = inline_copies(c.g, c.root, c.inside, t.computed_apart(c), c.opt.max_inline_ops);
    if (n.member < 0) return kc;
    char copies[32];
    std::snprintf(copies, sizeof copies, "%.3g", n.copies);
    kc.ok = false;
    kc.offender = kc.cut_offender = n.member;
    kc.offense = "inlined into " + c.root_node().name + "'s kernel, its definition would be copied " + copies +
                 " times per point (calls multiplied through a chain of stencils), the inlined Funcs' operations " +
                 "passing " + std::to_string(int64_t(c.opt.max_inline_ops)) +
                 " there: Halide's compile time follows them";
    return kc;
}

}  // namespace

KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members) {
    const KernelContext c(g, opt, root, members);
    if (c.generic_member >= 0)
        if (auto kc = pointwise_template().choose(c)) return limit_inline_copies(c, pointwise_template(), *kc);
    const auto &all = kernel_templates();
    for (size_t i = 0; i < all.size(); i++)
        if (auto kc = all[i]->choose(c)) {
            // A choice taken only where it is cheaper than the later templates' (compare_later).
            if (kc->compare_later && c.generic_member < 0) {
                const CostModel cost(opt.device);
                const int64_t bytes = g.nodes[size_t(root)].bytes();
                for (size_t j = i + 1; j < all.size(); j++)
                    if (auto later = all[j]->choose(c)) {
                        if (later->ok && cost.choice_us(*later, bytes) < cost.choice_us(*kc, bytes))
                            return limit_inline_copies(c, *all[j], *later);
                        break;
                    }
                return limit_inline_copies(c, *all[i], *kc);
            }
            // A kernel with a generic member that the pointwise template does not take: costed as
            // another template would build it (a partition another scheduler made is scored so),
            // and not ok, so that the search stores the member.
            if (c.generic_member >= 0) {
                kc->ok = false;
                kc->offender = c.generic_member;
                kc->cut_offender = -1;
                kc->offense = generic_member_why_not(c);
            }
            return limit_inline_copies(c, *all[i], *kc);
        }
    throw std::logic_error("no kernel template builds the kernel of " + g.nodes[size_t(root)].name);
}

std::vector<std::pair<TemplateKind, std::string>> template_answers(const FuncGraph &g, const PlannerOptions &opt,
                                                                   int root, const std::vector<int> &members) {
    const KernelContext c(g, opt, root, members);
    std::vector<std::pair<TemplateKind, std::string>> answers;
    if (c.generic_member >= 0) {
        const std::string no = pointwise_template().why_not(c);
        answers.emplace_back(TemplateKind::Pointwise, no.empty() ? no : generic_member_why_not(c));
        return answers;
    }
    for (auto *t : kernel_templates()) {
        answers.emplace_back(t->kind(), t->why_not(c));
        if (!answers.back().second.empty()) continue;
        // A choice taken only where it is the cheaper (KernelChoice::compare_later).
        if (const KernelChoice chosen = choose_kernel(g, opt, root, members); chosen.kind != t->kind()) {
            answers.back().second =
                std::string("the cost model expects the ") + template_name(chosen.kind) + " template's kernel faster";
            continue;
        }
        break;
    }
    return answers;
}

KernelContext::KernelContext(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members)
    : g(g), opt(opt), cost(opt.device), root(root), members(members), inside(g.nodes.size(), false) {
    for (int m : members) {
        inside[size_t(m)] = true;
        reduction_member |= g.nodes[size_t(m)].is_reduction();
        if (!g.nodes[size_t(m)].generic.empty() && generic_member < 0) generic_member = m;
    }
    shared = shared_members(g, root, inside);
    for (int m : members)
        if (!shared[size_t(m)]) own.push_back(m);
}

KernelChoice KernelContext::whole_root_choice(TemplateKind kind, int64_t blocks, bool every_call) const {
    KernelChoice kc;
    kc.members = members;
    kc.kind = kind;
    kc.blocks = blocks;
    const auto whole = g.regions_for(root, root_node().region, inside);
    cost.kernel_reads(g, root, inside, whole, whole, 1, kc, every_call, every_call);
    return kc;
}

ApplyContext::AtBlock ApplyContext::at_block(const KernelPlan &k) const {
    AtBlock a;
    for (auto &name : k.funcs) {
        const FuncPlan *p = plan.find(name);
        if (p && p->placement == Placement::ComputeAtBlock) {
            a.funcs.push_back(get(name));
            a.points.push_back(p->block_points);
            a.row_dims.push_back(p->row_dim);
            a.thread_dims.push_back(p->thread_dim);
            a.thread_extents.push_back(p->thread_extent);
        }
    }
    return a;
}

}  // namespace solder::autosched
