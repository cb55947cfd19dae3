// `solder plan APP`: what Solder's planner would do with an app, as text or JSON.
#include <cstdio>

#include "apps/app_pipeline.h"
#include "autosched/autoschedule.h"
#include "autosched/planner.h"
#include "runtime/schedule_comparison.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/options_flags.h"
#include "runtime/halide_error.h"
#include "runtime/targets.h"
#include "core/unknown_name_error.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder {

int cmd_plan(int argc, char **argv) {
    Args a =
        Args::parse(argc, argv, 2, {"target", "disable", "enable"}, {"small", "json", "graph", "source", "compare"});
    if (a.positional.size() != 1) throw UsageError("plan takes exactly one APP");
    const AppSpec *app = find_app_spec(a.positional[0]);
    if (!app) throw UnknownNameError("unknown app '" + a.positional[0] + "' (apps: " + app_names_joined() + ")");
    AppSize size = a.has("small") ? AppSize::Small : AppSize::Full;
    Halide::Target t = make_target(a.get("target", "cuda"));
    const SolderOptions options = options_from_cli(a);
    if (a.has("compare")) {  // builds its own copy of the pipeline per schedule
        auto rows = autosched::compare_schedules(*app, size, t, options);
        std::fputs(autosched::comparison_table(app->name, rows).c_str(), stdout);
        return 0;
    }
    BuiltPipeline p = with_halide_errors(app->name, [&] { return build_app_pipeline(*app, size); });
    autosched::PlannerOptions opt = options.planner;
    autosched::plan_for_target(opt, t);
    // The plan a build takes: after the rewrites made before planning (cut folds, scatters, one-pass
    // deviations, sibling reductions), whose Funcs the graph then shows too.
    auto planned = with_halide_errors(app->name, [&] { return autosched::autoschedule(p.outputs, t, opt, app->name); });
    if (a.has("graph")) {
        auto g = with_halide_errors(app->name, [&] { return autosched::FuncGraph::build(p.outputs); });
        std::fputs(g.describe().c_str(), stdout);
    }
    std::fputs(a.has("json") ? planned.plan.to_json().c_str() : planned.plan.to_text().c_str(), stdout);
    if (a.has("source")) std::fputs(("\n" + planned.source).c_str(), stdout);
    return 0;
}

}  // namespace solder
