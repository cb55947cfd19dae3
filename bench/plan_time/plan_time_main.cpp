// `solder-plan-time`: how long planning takes as pipelines grow, Solder beside Halide's
// auto-schedulers, on pipelines written as Halide users write them:
//  - chainN: N Funcs in a chain of pointwise stages and 2-tap stencils with a row reduction over the
//    input's extent every 50 stages (extents from the input, estimates on it);
//  - pyramidL: an L-level image pyramid, down and back up (2L+1 Funcs and their clamps).
// Each pipeline is built afresh for each scheduler, scheduled for a CUDA target (no code is
// generated), and timed; the process's peak resident memory after each is printed too.
//   solder-plan-time [--sizes 100,300,1000,2000 (',': none)] [--levels 10 (0: none)] [--schedulers solder,li2018,...]
//                    [--show-plan]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "Halide.h"
#include "bench/plan_time/plan_time_pipelines.h"
#include "autosched/autoschedule.h"
#include "autosched/model/options.h"
#include "cli/args.h"
#include "core/comma_words.h"
#include "core/unknown_name_error.h"
#include "runtime/targets.h"
#include "runtime/halide_autoschedulers.h"

using namespace Halide;

namespace {

double peak_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

int plan_time(int argc, char **argv) {
    using namespace solder;
    Args a = Args::parse(argc, argv, 1, {"sizes", "levels", "schedulers"}, {"show-plan"});
    if (a.has("help")) {
        std::puts("usage: solder-plan-time [--sizes 100,300,1000,2000] [--levels 10] [--schedulers "
                  "solder,li2018,mullapudi2016,anderson2021] [--show-plan]");
        std::puts("  --show-plan: print each Solder plan (kernels, placements, reasons) after its time");
        return 0;
    }
    std::vector<std::string> pipelines;
    for (auto &s : comma_words(a.get("sizes", "100,300,1000,2000"))) pipelines.push_back("chain" + s);
    if (a.get("levels", "10") != "0") pipelines.push_back("pyramid" + a.get("levels", "10"));
    const Target target = make_target("cuda");
    // The environment's knobs (SOLDER_DISABLE=exact, say), read once; planned as the plugin plans.
    autosched::PlannerOptions opt = SolderOptions::from_environment().planner;
    opt.device.shared_memory_optin_bytes = 0;
    std::printf("%-12s %6s %-14s %10s %10s  %s\n", "pipeline", "funcs", "scheduler", "seconds", "peak MB", "result");
    for (auto &p : pipelines) {
        for (auto &s : comma_words(a.get("schedulers", "solder,li2018,mullapudi2016,anderson2021"))) {
            PlanTimePipeline b = p.rfind("chain", 0) == 0
                                     ? plan_time_chain(int(parse_integer("--sizes", p.substr(5), 1, 100000)))
                                     : plan_time_pyramid(int(parse_integer("--levels", p.substr(7), 2, 30)));
            auto t0 = std::chrono::steady_clock::now();
            std::string result = "ok", shown;
            try {
                if (s == "solder") {
                    auto r = autosched::autoschedule(b.outputs, target, opt, p);
                    result = std::to_string(r.plan.kernels.size()) + " kernels; search: " + r.plan.search;
                    if (a.has("show-plan")) shown = r.plan.to_text();
                } else {
                    const HalideAutoscheduler *h = nullptr;
                    for (auto &c : halide_autoschedulers())
                        if (c.name == s) h = &c;
                    if (!h) throw std::runtime_error("unknown scheduler " + s);
                    apply_halide_autoscheduler(*h, b.outputs, target);
                }
            } catch (const std::exception &e) {
                result = std::string("failed: ") + std::string(e.what()).substr(0, 80);
            }
            double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("%-12s %6d %-14s %10.3f %10.0f  %s\n", p.c_str(), b.funcs, s.c_str(), secs, peak_mb(),
                        result.c_str());
            if (!shown.empty()) std::printf("%s\n", shown.c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}

}  // namespace

// A bad argument or knob word (SOLDER_DISABLE=...) is one line and exit 2, not an abort.
int main(int argc, char **argv) {
    try {
        return plan_time(argc, argv);
    } catch (const solder::UnknownNameError &e) {
        std::fprintf(stderr, "solder-plan-time: error: %s\n", e.what());
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "solder-plan-time: error: %s\n", e.what());
    }
    return 2;
}
