// libautoschedule_solder.so: Solder's planner as a Halide autoscheduler plugin, registered as
// "Solder". Load it with `-p libautoschedule_solder.so autoscheduler=Solder` in a generator, or
// `add_halide_library(... AUTOSCHEDULER Solder PLUGINS autoschedule_solder)` in CMake.
// Parameters (autoscheduler.KEY=VALUE): parallelism (SMs), shared_memory_limit_kb, horizontal,
// remat, compute_at, exact (0/1: the branch-and-bound search), time_budget_ms (the search's safety
// net; it stops on an evaluation budget first, deterministically), shared_memory_optin_kb (shared
// memory per block above 48 KB: 0 by default, as Halide's own runtime launches kernels without
// opting in; set it where the program opts in, as Solder's libraries do), fewest_bytes (0/1: take
// a fusion that moves fewer bytes even where the cost model expects it to be slower).
#include <stdexcept>

#include "Halide.h"
#include "autosched/apply_plan.h"
#include "autosched/planner.h"
#include "schedules/pipeline_funcs.h"

namespace {

using namespace solder::autosched;

bool flag(const std::string &key, const std::string &v) {
    if (v == "1" || v == "true") return true;
    if (v == "0" || v == "false") return false;
    throw std::runtime_error("Solder autoscheduler: parameter '" + key + "' must be 0 or 1, got '" + v + "'");
}

void solder_autoschedule(const Halide::Pipeline &p, const Halide::Target &target,
                         const Halide::AutoschedulerParams &params, Halide::AutoSchedulerResults *results) {
    PlannerOptions opt;
    opt.gpu = solder::is_gpu_target(target);
    opt.device.shared_memory_optin_bytes = 0;
    for (auto &[k, v] : params.extra) {
        if (k == "parallelism") opt.device.sms = std::stoi(v);
        else if (k == "shared_memory_limit_kb") opt.device.shared_memory_bytes = int64_t(std::stoi(v)) * 1024;
        else if (k == "shared_memory_optin_kb") opt.device.shared_memory_optin_bytes = int64_t(std::stoi(v)) * 1024;
        else if (k == "fewest_bytes") opt.fewest_bytes = flag(k, v);
        else if (k == "horizontal") opt.horizontal = flag(k, v);
        else if (k == "remat") opt.remat = flag(k, v);
        else if (k == "compute_at") opt.compute_at = flag(k, v);
        else if (k == "time_budget_ms") opt.time_budget_ms = std::stoi(v);
        else if (k == "exact") opt.exact_search = flag(k, v);
        else
            throw std::runtime_error("Solder autoscheduler: unknown parameter '" + k +
                                     "' (known: parallelism, shared_memory_limit_kb, horizontal, remat, "
                                     "compute_at, time_budget_ms, exact, shared_memory_optin_kb, fewest_bytes)");
    }
    std::vector<Halide::Func> outputs = p.outputs();
    Plan plan = plan_pipeline(FuncGraph::build(outputs), opt, "pipeline");
    std::string source = apply_plan(plan, outputs, target);
    results->target = target;
    results->autoscheduler_params = params;
    // The C++ schedule, preceded by the plan it realizes as comments.
    std::string src, text = plan.to_text(), line;
    for (char c : text) {
        if (c == '\n') src += "// " + line + "\n", line.clear();
        else line += c;
    }
    results->schedule_source = src + source;
}

struct Register {
    Register() { Halide::Pipeline::add_autoscheduler("Solder", solder_autoschedule); }
} registration;

}  // namespace
