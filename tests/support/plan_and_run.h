// For tests that build their own lang graphs: plan with given options, apply, compile ahead of
// time for a target, and call the library on host buffers (copied back to the host afterwards).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "apps/app_spec.h"
#include "autosched/apply_plan.h"
#include "autosched/planner.h"
#include "lang/tensor.h"
#include "runtime/aot_compiler.h"
#include "runtime/halide_error.h"
#include "runtime/pipeline_library.h"
#include "runtime/targets.h"
#include "tests/support/test_processes.h"

namespace solder::testing {

inline autosched::Plan plan_for(const std::vector<Halide::Func> &outs, autosched::PlannerOptions opt, bool gpu) {
    opt.gpu = gpu;
    return autosched::plan_pipeline(autosched::FuncGraph::build(outs), opt, "test");
}

// Estimates for a w x h image pipeline (the stencil tests'): its input and its output.
inline void estimate_image(Halide::ImageParam &in, Halide::Func out, int64_t w, int64_t h) {
    in.dim(0).set_estimate(0, int(w));
    in.dim(1).set_estimate(0, int(h));
    lang::set_estimates(out, {h, w});
}

// Returns "" on success, else what failed. Inputs must hold their values on the host.
inline std::string apply_compile_and_call(const autosched::Plan &plan, const std::vector<Halide::Func> &outs,
                                          const std::vector<Halide::Argument> &args, const std::string &target,
                                          std::vector<HostBuffer> &in, std::vector<HostBuffer> &out,
                                          std::string *schedule_source = nullptr) {
    Halide::Target tgt = make_target(target);
    std::string dir = fresh_temp_dir("solder-plan-and-run");
    std::string err;
    try {
        std::string src = with_halide_errors("apply", [&] { return autosched::apply_plan(plan, outs, tgt); });
        if (schedule_source) *schedule_source = src;
        LibraryRequest req{Halide::Pipeline(outs), args, tgt, dir, "test", {{"app", "test"}}};
        std::string so = with_halide_errors("compile", [&] { return compile_pipeline_library(req); });
        auto lib = PipelineLibrary::open(so, &err);
        if (!lib) return err;
        std::vector<halide_buffer_t *> ri, ro;
        for (auto &b : in) b.set_host_dirty(), ri.push_back(b.raw_buffer());
        for (auto &b : out) ro.push_back(b.raw_buffer());
        if (lib->call(ri, ro, &err) != 0) return err;
        for (auto &b : out) b.copy_to_host();
        for (auto &b : in) b.device_free();
        for (auto &b : out) b.device_free();
    } catch (const std::exception &e) {
        err = e.what();
    }
    std::filesystem::remove_all(dir);
    return err;
}

}  // namespace solder::testing
