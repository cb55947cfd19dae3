// The template registry (schedules/registry.h): templates tried in priority order, each one that
// does not build a kernel saying why, the one that does with no reason.
#include <gtest/gtest.h>

#include "apps/app_pipeline.h"
#include "autosched/planner.h"
#include "schedules/registry.h"

using namespace solder;
using namespace solder::autosched;

namespace {

// The answers of the templates for the kernel of `app`'s plan that writes `root`.
std::vector<std::pair<TemplateKind, std::string>> answers_for(const std::string &app, TemplateKind expected) {
    BuiltPipeline p = build_app_pipeline(*find_app_spec(app), AppSize::Small);
    FuncGraph g = FuncGraph::build(p.outputs);
    PlannerOptions opt;
    Plan plan = plan_pipeline(g, opt, app);
    for (auto &k : plan.kernels) {
        if (k.kind() != expected) continue;
        std::vector<int> members;
        for (auto &f : k.funcs)
            if (f != k.root) members.push_back(g.find(f));
        std::sort(members.begin(), members.end());
        return template_answers(g, opt, g.find(k.root), members);
    }
    ADD_FAILURE() << app << " has no " << template_name(expected) << " kernel:\n" << plan.to_text();
    return {};
}

}  // namespace

TEST(TemplateRegistry, EachTemplateThatDeclinesSaysWhy) {
    auto rows = answers_for("rmsnorm", TemplateKind::Row);
    ASSERT_FALSE(rows.empty());
    // Every template before the row template declines, with a reason; the row template builds it.
    EXPECT_EQ(rows.back().first, TemplateKind::Row);
    EXPECT_EQ(rows.back().second, "");
    EXPECT_EQ(rows.size(), kernel_templates().size() - 1);  // (inner-outer comes after the row template)
    for (size_t i = 0; i + 1 < rows.size(); i++) {
        EXPECT_EQ(rows[i].first, kernel_templates()[i]->kind());
        EXPECT_FALSE(rows[i].second.empty()) << template_name(rows[i].first) << " gave no reason";
    }
    auto reason = [&](TemplateKind k) {
        for (auto &[kind, why] : rows)
            if (kind == k) return why;
        return std::string("(not asked)");
    };
    EXPECT_NE(reason(TemplateKind::Pointwise).find("reduction is fused"), std::string::npos);
    EXPECT_NE(reason(TemplateKind::Single).find("has dims"), std::string::npos);
    EXPECT_NE(reason(TemplateKind::BlockReduction).find("other Funcs are fused"), std::string::npos);

    // A stencil kernel is built by the stencil template, before the pointwise and row ones are asked.
    auto tiles = answers_for("blur", TemplateKind::StencilTile);
    ASSERT_FALSE(tiles.empty());
    EXPECT_EQ(tiles.back().first, TemplateKind::StencilTile);
    EXPECT_EQ(tiles.back().second, "");
}

TEST(TemplateRegistry, EveryKindHasOneTemplate) {
    for (int k = 0; k < kTemplateKinds; k++)
        EXPECT_EQ(kernel_template(TemplateKind(k)).kind(), TemplateKind(k)) << template_name(TemplateKind(k));
}
