// For tests of pipelines written the way Halide users write them (ImageParams, scalar Params,
// RDoms over inputs' extents, updates, boundary conditions): schedule them with Solder as the
// plugin does, JIT-compile for a target, and run them at sizes other than the estimates.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "Halide.h"
#include "autosched/autoschedule.h"
#include "runtime/targets.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::testing {

// The targets every user-pipeline test runs on: the host, and OpenCL on the CPU (PoCL), the GPU
// path of Solder's templates.
inline std::vector<std::string> user_targets() { return {"host", "opencl"}; }

// Schedules `outputs` with Solder for `target` ("host", "opencl", "cuda"), as the plugin does
// with its default parameters (given `checks`, the Pipeline to compile, as the plugin is given
// one: autoschedule's). Returns the plan's text and the schedule's source, for failure messages.
inline std::string schedule_with_solder(const std::vector<Halide::Func> &outputs, const Halide::Target &t,
                                        autosched::PlannerOptions opt = {}, Halide::Pipeline *checks = nullptr) {
    autosched::plan_for_target(opt, t);
    opt.device.shared_memory_optin_bytes = 0;  // as the plugin: Halide's runtime does not opt in
    auto a = autosched::autoschedule(outputs, t, opt, "test", checks);
    return a.plan.to_text() + a.source;
}
inline std::string schedule_with_solder(const std::vector<Halide::Func> &outputs, const std::string &target,
                                        autosched::PlannerOptions opt = {}) {
    return schedule_with_solder(outputs, make_target(target), opt);
}

// The pipeline of `outputs`, JIT-compiled for `target` (after it was scheduled).
inline Halide::Pipeline compiled(const std::vector<Halide::Func> &outputs, const std::string &target) {
    Halide::Pipeline p(outputs);
    p.compile_jit(make_target(target));
    return p;
}

// One output of `p` (JIT-compiled for `target`) realized at `sizes`, copied back to the host.
template<typename T>
Halide::Buffer<T> realize_on(Halide::Pipeline &p, const std::vector<int> &sizes, const std::string &target) {
    Halide::Buffer<T> o = p.realize(sizes, make_target(target));
    o.copy_to_host();
    return o;
}

// The run sizes every test tries besides its estimate: smaller and odd, larger and not a multiple
// of any tile, and one point.
inline std::vector<std::pair<int, int>> other_sizes() { return {{37, 29}, {517, 263}, {1, 1}}; }

// The reference the random families compare with: every Func of `outputs` at root, its updates
// left as Halide runs them (said so: a specialization the pipeline's author made counts as
// scheduling the Func, and Halide would warn about its updates otherwise).
inline void schedule_every_func_at_root(const std::vector<Halide::Func> &outputs) {
    for (auto &fn : pipeline_functions(outputs)) {
        Halide::Func f(fn);
        f.compute_root();
        for (int u = 0; u < int(fn.updates().size()); u++) f.update(u).unscheduled();
    }
}

// `outputs`, scheduled for CUDA, lowered (no GPU needed): Halide accepts the CUDA schedule. The
// random families do so on OpenCL runs (CUDA's shared-memory and float atomics, its PTX).
inline void lower_for_cuda(const std::vector<Halide::Func> &outputs, const std::string &name) {
    Halide::Pipeline p(outputs);
    p.compile_to_lowered_stmt(::testing::TempDir() + "/" + name + ".stmt", p.infer_arguments(), Halide::Text,
                              make_target("cuda"));
}

// An output buffer's extents and mins (innermost first; no mins: from 0), as the random families
// make their outputs at a run size: allocated to run (`buffer`), or only named to size a lowered
// pipeline's launches (lowered_launches.h).
struct BufferShape {
    std::vector<int64_t> extents, mins;
    Halide::Buffer<> buffer(const Halide::Type &t) const {
        Halide::Buffer<> b(t, std::vector<int>(extents.begin(), extents.end()));
        if (!mins.empty()) b.set_min(std::vector<int>(mins.begin(), mins.end()));
        return b;
    }
};

// The random families' run sizes, each {w, h, x0, y0}: the estimate, smaller and odd, a few long
// rows, one point, and a window of the outputs away from the origin.
inline std::vector<std::array<int, 4>> random_family_sizes(int estimate_w, int estimate_h) {
    return {{estimate_w, estimate_h, 0, 0}, {37, 29, 0, 0}, {300, 7, 0, 0}, {1, 1, 0, 0}, {45, 33, 7, 5}};
}

// Those and two larger than the families plan at (a large image, long rows): where their CUDA
// launches are evaluated (tests/support/lowered_launches.h), not run.
inline std::vector<std::array<int, 4>> random_family_launch_sizes(int estimate_w, int estimate_h) {
    auto sizes = random_family_sizes(estimate_w, estimate_h);
    sizes.push_back({2048, 1536, 0, 0});
    sizes.push_back({8192, 64, 0, 0});
    return sizes;
}

// What `f` threw (a std::exception, or a Halide::Error, which is none in Halide 21), or "".
template<typename F> std::string failure_of(F &&f) {
    try {
        f();
    } catch (const std::exception &e) {
        return e.what();
    } catch (const Halide::Error &e) {
        return e.what();
    }
    return "";
}

// For each seed, `check(seed, plan)` (which sets the plan's text for messages and returns what
// failed, or "", or throws): each failure recorded as the seed in `failed` and a message in
// `messages` (the seed, what failed, the plan).
template<typename Check> void check_seeds(const std::vector<uint64_t> &seeds, std::vector<uint64_t> &failed,
                                          std::vector<std::string> &messages, Check &&check) {
    for (uint64_t seed : seeds) {
        std::string plan, failure;
        const std::string what = failure_of([&] { failure = check(seed, plan); });
        if (!what.empty()) failure = what;
        if (failure.empty()) continue;
        failed.push_back(seed);
        messages.push_back("seed " + std::to_string(seed) + ": " + failure + "\n" + plan);
    }
}

// One value of a buffer of any type the random families output, as a double.
inline double value_as_double(const Halide::Buffer<> &b, const int *pos) {
    const Halide::Type t = b.type();
    if (t == Halide::Bool()) return Halide::Buffer<bool>(b)(pos);
    if (t == Halide::UInt(8)) return Halide::Buffer<uint8_t>(b)(pos);
    if (t == Halide::Int(8)) return Halide::Buffer<int8_t>(b)(pos);
    if (t == Halide::UInt(16)) return Halide::Buffer<uint16_t>(b)(pos);
    if (t == Halide::Int(16)) return Halide::Buffer<int16_t>(b)(pos);
    if (t == Halide::Int(32)) return Halide::Buffer<int32_t>(b)(pos);
    if (t == Halide::UInt(32)) return Halide::Buffer<uint32_t>(b)(pos);
    if (t == Halide::Int(64)) return double(Halide::Buffer<int64_t>(b)(pos));
    if (t == Halide::UInt(64)) return double(Halide::Buffer<uint64_t>(b)(pos));
    if (t == Halide::Float(16)) return double(Halide::Buffer<Halide::float16_t>(b)(pos));
    if (t == Halide::BFloat(16)) return double(Halide::Buffer<Halide::bfloat16_t>(b)(pos));
    if (t == Halide::Float(64)) return Halide::Buffer<double>(b)(pos);
    return Halide::Buffer<float>(b)(pos);
}

// The first of `got`'s values further than `tol` from `want`'s (float outputs: `tol` relative to
// the value's magnitude as well), with how many differ, or "".
inline std::string first_difference(const Halide::Buffer<> &got, const Halide::Buffer<> &want, double tol) {
    std::string bad;
    int count = 0;
    got.for_each_element([&](const int *pos) {
        const double g = value_as_double(got, pos), v = value_as_double(want, pos);
        if (!(std::abs(g - v) <= tol * (1 + (got.type().is_float() ? std::abs(v) : 0)))) {
            if (count++ == 0) {
                bad = "at (";
                for (int d = 0; d < got.dimensions(); d++) bad += (d ? "," : "") + std::to_string(pos[d]);
                char text[96];
                std::snprintf(text, sizeof text, "): got %.10g, want %.10g", g, v);
                bad += text;
            }
        }
    });
    return count == 0 ? "" : std::to_string(count) + " values differ; first " + bad;
}

// `p` realized into `bufs` (one per output and Tuple element) on `t`, copied back to the host.
inline std::vector<Halide::Buffer<>> realize_into(Halide::Pipeline &p, const std::vector<Halide::Buffer<>> &bufs,
                                                  const Halide::Target &t) {
    Halide::Realization r(bufs);
    p.realize(r, t);
    std::vector<Halide::Buffer<>> out;
    for (size_t k = 0; k < r.size(); k++) {
        Halide::Buffer<> b = r[k];
        b.copy_to_host();
        out.push_back(b);
    }
    return out;
}

template<typename T>
Halide::Buffer<T> random_buffer(std::vector<int> shape, uint32_t seed, double lo = 0, double hi = 1) {
    Halide::Buffer<T> b(shape);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    b.for_each_value([&](T &v) { v = T(u(rng)); });
    b.set_host_dirty();  // else a GPU run may take the device copy as current
    return b;
}

// Every value of `got` within `tol` (absolute, plus relative to the reference's magnitude) of
// `want`, read through `ref(coords)`. Reports the first mismatch.
template<typename T, typename Ref>
::testing::AssertionResult matches(const Halide::Buffer<T> &got, Ref ref, double tol) {
    std::string bad;
    int count = 0;
    got.for_each_element([&](const int *pos) {
        std::vector<int> p(pos, pos + got.dimensions());
        double want = double(ref(p)), have = double(got(pos));
        if (!(std::abs(have - want) <= tol * (1 + std::abs(want)))) {
            if (count++ == 0) {
                bad = "at (";
                for (size_t i = 0; i < p.size(); i++) bad += (i ? "," : "") + std::to_string(p[i]);
                bad += "): got " + std::to_string(have) + ", want " + std::to_string(want);
            }
        }
    });
    if (count == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << count << " values differ; first " << bad;
}

}  // namespace solder::testing
