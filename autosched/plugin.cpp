// libautoschedule_solder.so: Solder's planner as a Halide autoscheduler plugin, registered as
// "Solder". Load it with `-p libautoschedule_solder.so autoscheduler=Solder` in a generator, or
// `add_halide_library(... AUTOSCHEDULER Solder PLUGINS autoschedule_solder)` in CMake.
// Parameters (autoscheduler.KEY=VALUE): the planner's knobs, parsed by the CLI's and the
// environment's parser (SolderOptions::set, autosched/model/options.h; `solder knobs` lists them).
// The plugin does not read the environment: a generator's parameters say everything.
#include <stdexcept>

#include "Halide.h"
#include "autosched/autoschedule.h"
#include "autosched/model/options.h"
#include "autosched/model/pipeline_funcs.h"
#include "core/unknown_name_error.h"

namespace {

using namespace solder::autosched;

void solder_autoschedule(const Halide::Pipeline &p, const Halide::Target &target,
                         const Halide::AutoschedulerParams &params, Halide::AutoSchedulerResults *results) {
    solder::SolderOptions options;
    options.planner.device.shared_memory_optin_bytes = 0;  // Halide's runtime does not opt in
    // The error reaches the generator's user through Halide: the prefix says whose it is, and the
    // type is kept (an unknown word, a bad value).
    try {
        for (auto &[k, v] : params.extra) options.set(k, v);
    } catch (const solder::UnknownNameError &e) {
        throw solder::UnknownNameError(std::string("Solder: ") + e.what());
    } catch (const std::invalid_argument &e) {
        throw std::invalid_argument(std::string("Solder: ") + e.what());
    }
    PlannerOptions opt = options.planner;
    solder::autosched::plan_for_target(opt, target);
    std::vector<Halide::Func> outputs = p.outputs();
    // (A copy of the handle: the requirements Solder moves out of kernels reach the Pipeline the
    // caller compiles.)
    Halide::Pipeline checked = p;
    Autoscheduled a = autoschedule(outputs, target, opt, "pipeline", &checked);
    results->target = target;
    results->autoscheduler_params = params;
    // The C++ schedule, preceded by the plan it realizes as comments.
    std::string src, text = a.plan.to_text(), line;
    for (char c : text) {
        if (c == '\n')
            src += "// " + line + "\n", line.clear();
        else
            line += c;
    }
    results->schedule_source = src + a.source;
}

struct Register {
    Register() { Halide::Pipeline::add_autoscheduler("Solder", solder_autoschedule); }
} registration;

}  // namespace
