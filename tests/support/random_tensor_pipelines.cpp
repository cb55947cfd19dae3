#include "tests/support/random_tensor_pipelines.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include "Halide.h"
#include "tests/support/lowered_launches.h"
#include "tests/support/tensor_extern.h"
#include "tests/support/user_pipeline.h"

namespace solder::testing {

using namespace Halide;

namespace {

// Estimates: 48 x 32 maps of 16 channels, a batch of 2; or, for every fifth seed (seed % 5 == 4),
// a network's size, 256 x 256 maps of 64 channels, a batch of 8 (the planner then chooses the
// shapes it takes for large tensors: more rows per block, split reductions, wider tiles), run at
// the smaller sizes only.
struct Estimate {
    int w, h, c, n;
};
constexpr Estimate kSmall{48, 32, 16, 2}, kLarge{256, 256, 64, 8};
bool large_estimate(uint64_t seed) { return seed % 5 == 4; }

struct TensorPipeline {
    Type storage, ct;  // the input's and main output's type; the type stages compute in
    bool nhwc = false;
    bool cl_doubles = false;  // (float64 seeds on OpenCL: the target has the feature, or not)
    std::optional<ImageParam> x, mix, dw, affine, idx;
    Param<float> gain{"gain"};
    Param<int> taps{"taps"};
    std::vector<Func> outputs;
    std::vector<std::string> kinds;
    // Per output: a tensor like the input (its window can move), per-channel statistics (c, n), a
    // scalar, or one value per pixel (w, h, n; its window moves with the tensor's).
    enum class Shape { Tensor, Stats, Scalar, Pixels };
    std::vector<Shape> shapes;
    std::vector<double> tol;  // per output: relative (and absolute) difference allowed
    std::optional<Pipeline> pipeline;
    Pipeline &pipe() {
        if (!pipeline) {
            pipeline.emplace(outputs);
            pipeline->set_jit_externs({{"solder_tensor_extern_affine", JITExtern(solder_tensor_extern_affine)}});
        }
        return *pipeline;
    }
    std::string type_name() const {
        std::ostringstream s;
        s << storage << (nhwc ? " nhwc" : " nchw");
        return s.str();
    }
};

using Shape = TensorPipeline::Shape;

void build(uint64_t seed, TensorPipeline &p) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
    const int type_pick = pick(4);
    p.storage = type_pick == 2 ? Float(64) : type_pick == 3 ? BFloat(16) : Float(32);
    p.ct = p.storage == Float(64) ? Float(64) : Float(32);
    p.nhwc = pick(2);
    p.cl_doubles = pick(2);
    const Type ct = p.ct;
    p.x.emplace(p.storage, 4, "x");
    p.mix.emplace(Float(32), 2, "mix");
    p.dw.emplace(Float(32), 3, "dw");
    p.affine.emplace(Float(32), 2, "affine");
    p.idx.emplace(Int(32), 1, "idx");
    ImageParam &x = *p.x;
    Var w("w"), h("h"), c("c"), n("n");
    const bool nhwc = p.nhwc;
    const int dw_ = nhwc ? 1 : 0, dh_ = nhwc ? 2 : 1, dc_ = nhwc ? 0 : 2;
    Expr W = x.dim(dw_).extent(), H = x.dim(dh_).extent(), C = x.dim(dc_).extent(), N = x.dim(3).extent();
    auto order = [&](Expr ew, Expr eh, Expr ec, Expr en) {
        return nhwc ? std::vector<Expr>{ec, ew, eh, en} : std::vector<Expr>{ew, eh, ec, en};
    };
    const std::vector<Var> vars = nhwc ? std::vector<Var>{c, w, h, n} : std::vector<Var>{w, h, c, n};
    auto at = [&](const Func &f, Expr ew, Expr eh, Expr ec, Expr en) { return f(order(ew, eh, ec, en)); };
    auto here = [&](const Func &f) { return f(vars); };
    // The spatial dims bounded, the channels and the batch not.
    Region spatial(4);
    spatial[size_t(dw_)] = Range(0, W);
    spatial[size_t(dh_)] = Range(0, H);
    auto k = [&](double v) { return cast(ct, Expr(v)); };
    auto sigmoid = [&](const Expr &v) { return k(1) / (k(1) + exp(-v)); };

    Func base("base");
    base(vars) = cast(ct, BoundaryConditions::repeat_edge(x, spatial)(vars));
    std::vector<Func> fs = {base};
    const int stages = 2 + pick(6);
    for (int s = 0; s < stages; s++) {
        Func a = fs[fs.size() - 1 - size_t(pick(std::min<int>(3, int(fs.size()))))];
        Func b = fs[size_t(pick(int(fs.size())))];
        const std::string sn = std::to_string(s);
        Func f("t" + sn);
        switch (pick(16)) {
        case 0:
            if (pick(2)) {
                p.kinds.push_back("silu");
                f(vars) = here(a) * sigmoid(here(a) * cast(ct, p.gain));
            } else {
                p.kinds.push_back("gelu");
                Expr v = here(a);
                f(vars) = k(0.5) * v * (k(1) + tanh(k(0.7978845608) * (v + k(0.044715) * v * v * v)));
            }
            break;
        case 1:
            p.kinds.push_back("channel_affine");
            f(vars) = here(a) * cast(ct, (*p.affine)(c, 0)) + cast(ct, (*p.affine)(c, 1));
            break;
        case 2: {
            p.kinds.push_back("channel_mix");
            RDom r(0, C, "rm" + sn);
            f(vars) = sum(cast(ct, (*p.mix)(r, c)) * at(a, w, h, r, n)) / cast(ct, C);
            break;
        }
        case 3: {
            p.kinds.push_back("depthwise_3x3");
            Func z = BoundaryConditions::constant_exterior(a, k(0), spatial);
            RDom r(0, 3, 0, 3, "rd" + sn);
            f(vars) = sum(cast(ct, (*p.dw)(r.x, r.y, c)) * at(z, w + r.x - 1, h + r.y - 1, c, n));
            break;
        }
        case 4: {
            p.kinds.push_back("channel_softmax");
            RDom r(0, C, "rs" + sn);
            Func m("max" + sn), e("exp" + sn), total("denominator" + sn);
            m(w, h, n) = maximum(at(a, w, h, r, n));
            e(vars) = exp(here(a) - m(w, h, n));
            total(w, h, n) = sum(at(e, w, h, r, n));
            f(vars) = here(e) / total(w, h, n) * cast(ct, C);
            break;
        }
        case 5: {
            p.kinds.push_back("instance_norm");
            RDom r(0, W, 0, H, "ri" + sn);
            Func mean("mean" + sn), var("var" + sn);
            Expr count = cast(ct, W * H);
            mean(c, n) = sum(at(a, r.x, r.y, c, n)) / count;
            Expr d = at(a, r.x, r.y, c, n) - mean(c, n);
            var(c, n) = sum(d * d) / count;
            f(vars) = (here(a) - mean(c, n)) / sqrt(var(c, n) + k(1e-3));
            break;
        }
        case 6: {
            p.kinds.push_back("max_pool_up");
            Func z = BoundaryConditions::repeat_edge(a, spatial);
            Func pool("pool" + sn);
            pool(vars) = max(max(at(z, 2 * w, 2 * h, c, n), at(z, 2 * w + 1, 2 * h, c, n)),
                             max(at(z, 2 * w, 2 * h + 1, c, n), at(z, 2 * w + 1, 2 * h + 1, c, n)));
            f(vars) = k(0.5) * (at(pool, w / 2, h / 2, c, n) + here(a));
            break;
        }
        case 7: {
            p.kinds.push_back("squeeze_excite");
            RDom r(0, W, 0, H, "re" + sn);
            Func g("gate" + sn);
            g(c, n) = sum(at(a, r.x, r.y, c, n)) / cast(ct, W * H);
            f(vars) = here(a) * sigmoid(g(c, n) * cast(ct, p.gain));
            break;
        }
        case 8:
            p.kinds.push_back("roll_flip");
            f(vars) = k(0.5) * (at(a, W - 1 - w, h, c, n) + at(b, w, h, (c + 1) % C, n));
            break;
        case 9: {
            p.kinds.push_back("cumsum_h");
            Func cs("cumsum" + sn);
            cs(vars) = here(a);
            RDom r(1, H - 1, "rc" + sn);
            cs(order(w, r, c, n)) = at(cs, w, r, c, n) + at(cs, w, r - 1, c, n);
            f(vars) = here(cs) / cast(ct, max(h, 0) + 1);
            break;
        }
        case 10:
            p.kinds.push_back("channel_halves");
            f(vars) = select(c < C / 2, here(a), k(0.5) * at(b, w, h, clamp(c - C / 2, 0, C - 1), n));
            break;
        case 11:
            p.kinds.push_back("batch_gather");
            f(vars) = k(0.75) * at(a, w, h, c, clamp((*p.idx)(n), 0, N - 1)) + k(0.25) * here(b);
            break;
        case 12: {
            // (Over the input, whose values both schedules read alike: no rounding can move the maximum.)
            p.kinds.push_back("argmax_mask");
            RDom r(0, C, "ra" + sn);
            Func am("argmax" + sn);
            am(w, h, n) = argmax(at(base, w, h, r, n));
            f(vars) = select(c == am(w, h, n)[0], here(a), k(0.5) * here(a));
            break;
        }
        case 13: {
            p.kinds.push_back("moving_taps");
            Func z = BoundaryConditions::repeat_edge(a, spatial);
            RDom r(0, p.taps, "rt" + sn);
            f(vars) = sum(at(z, w, h + r - p.taps / 2, c, n)) / cast(ct, p.taps);
            break;
        }
        case 14: {
            p.kinds.push_back("rms_channels_f64");
            RDom r(0, C, "rq" + sn);
            Func q("meansq" + sn);
            Expr v = cast<double>(at(a, w, h, r, n));
            q(w, h, n) = sum(v * v) / cast<double>(C);
            f(vars) = here(a) * cast(ct, Expr(1.0) / sqrt(q(w, h, n) + Expr(1e-3)));
            break;
        }
        default: {
            p.kinds.push_back("extern_stage");
            Func ext("ext" + sn);
            ext.define_extern("solder_tensor_extern_affine", {a}, ct, vars, NameMangling::C);
            f(vars) = k(0.5) * here(ext) + k(0.5) * here(b);
            break;
        }
        }
        fs.push_back(f);
    }
    // (float64: PoCL's double math is not correctly rounded: 1 / sqrt(x) within 6e-11, a pipeline's
    // transcendentals within 3e-9 of the host's.)
    const double f64_tol = 1e-7;
    const double main_tol = p.storage == BFloat(16) ? 1e-2 : p.storage == Float(64) ? f64_tol : 1e-4;
    const double ct_tol = ct == Float(64) ? f64_tol : 1e-4;
    Func last = fs.back();
    Func out("out");
    out(vars) = cast(p.storage, here(last));
    p.outputs = {out};
    p.shapes = {Shape::Tensor};
    p.tol = {main_tol};
    // Drawn after the stages (the stages stay the same for every seed).
    if (pick(3) == 0) {
        p.kinds.push_back("channel_stats");
        Func stats("stats");
        RDom r(0, W, 0, H, "rst");
        Expr v = at(last, r.x, r.y, c, n);
        stats(c, n) = sum(v * v) / cast(ct, W * H);
        p.outputs.push_back(stats);
        p.shapes.push_back(Shape::Stats), p.tol.push_back(ct_tol);
    }
    if (pick(3) == 0) {
        p.kinds.push_back("scalar_total");
        Func total("total");
        RDom r(0, W, 0, H, 0, C, 0, N, "rtot");
        total() = sum(cast<double>(abs(at(last, r[0], r[1], r[2], r[3]))));
        p.outputs.push_back(total);
        p.shapes.push_back(Shape::Scalar), p.tol.push_back(ct_tol);
    }
    if (pick(3) == 0) {
        p.kinds.push_back("argmax_output");
        Func best("best");
        RDom r(0, C, "rbest");
        best(w, h, n) = argmax(at(base, w, h, r, n));
        p.outputs.push_back(best);
        p.shapes.push_back(Shape::Pixels), p.tol.push_back(0);
    }
    if (fs.size() > 3 && pick(3) == 0) {
        p.kinds.push_back("middle_output");
        Func mid("middle");
        mid(vars) = here(fs[fs.size() / 2]);
        p.outputs.push_back(mid);
        p.shapes.push_back(Shape::Tensor), p.tol.push_back(ct_tol);
    }
    if (pick(4) == 0) {
        p.kinds.push_back("specialized");
        p.outputs[0].specialize(p.gain > 1.0f);
    }
    // (Drawn from the seed, not the generator: the stages stay the same whatever the estimate.)
    const Estimate e = large_estimate(seed) ? kLarge : kSmall;
    if (large_estimate(seed)) p.kinds.push_back("large_estimate");
    Region est(4);
    est[size_t(dw_)] = Range(0, e.w);
    est[size_t(dh_)] = Range(0, e.h);
    est[size_t(dc_)] = Range(0, e.c);
    est[3] = Range(0, e.n);
    x.set_estimates(est);
    p.mix->set_estimates({{0, e.c}, {0, e.c}});
    p.dw->set_estimates({{0, 3}, {0, 3}, {0, e.c}});
    p.affine->set_estimates({{0, e.c}, {0, 2}});
    p.idx->set_estimates({{0, e.n}});
    p.gain.set_estimate(0.8f);
    p.taps.set_estimate(3);
    for (size_t o = 0; o < p.outputs.size(); o++) {
        switch (p.shapes[o]) {
        case Shape::Tensor: p.outputs[o].set_estimates(est); break;
        case Shape::Stats: p.outputs[o].set_estimates({{0, e.c}, {0, e.n}}); break;
        case Shape::Scalar: break;
        case Shape::Pixels: p.outputs[o].set_estimates({{0, e.w}, {0, e.h}, {0, e.n}}); break;
        }
    }
}

// One run's sizes: the maps' width and height, channels, batch, and where the outputs' spatial
// window starts.
struct RunSize {
    int w, h, c, n, x0, y0;
};

// The estimate (the small one only: a network-sized run is too long on the host), smaller and odd
// sizes, one point, more channels than estimated, and a window away from the origin.
std::vector<RunSize> run_sizes(uint64_t seed) {
    std::vector<RunSize> s = {
        {7, 5, 3, 1, 0, 0}, {33, 2, 5, 3, 0, 0}, {1, 1, 1, 1, 0, 0}, {67, 9, 19, 1, 0, 0}, {20, 12, 4, 2, 3, 2}};
    if (!large_estimate(seed)) s.insert(s.begin(), {kSmall.w, kSmall.h, kSmall.c, kSmall.n, 0, 0});
    return s;
}

struct Inputs {
    Buffer<> x;
    Buffer<float> mix, dw, affine;
    Buffer<int32_t> idx;
};

Inputs random_inputs(const TensorPipeline &p, const RunSize &s, uint32_t seed) {
    Inputs in;
    std::vector<int> shape = p.nhwc ? std::vector<int>{s.c, s.w, s.h, s.n} : std::vector<int>{s.w, s.h, s.c, s.n};
    if (p.storage == Float(64))
        in.x = random_buffer<double>(shape, seed, -1, 1);
    else if (p.storage == BFloat(16))
        in.x = random_buffer<bfloat16_t>(shape, seed, -1, 1);
    else
        in.x = random_buffer<float>(shape, seed, -1, 1);
    in.mix = random_buffer<float>({s.c, s.c}, seed + 1, -1, 1);
    in.dw = random_buffer<float>({3, 3, s.c}, seed + 2, 0, 0.25);
    in.affine = Buffer<float>(s.c, 2);
    std::mt19937 rng(seed + 3);
    std::uniform_real_distribution<float> u(0, 1);
    for (int ch = 0; ch < s.c; ch++) {
        in.affine(ch, 0) = 0.5f + u(rng);
        in.affine(ch, 1) = u(rng) - 0.5f;
    }
    in.affine.set_host_dirty();
    in.idx = Buffer<int32_t>(s.n);
    for (int b = 0; b < s.n; b++) in.idx(b) = int(rng() % uint32_t(s.n + 2)) - 1;  // (one out of range, clamped)
    in.idx.set_host_dirty();
    return in;
}

// Output `o`'s buffer shape at run size `s` (each of a Tuple's buffers alike).
BufferShape output_shape(const TensorPipeline &p, size_t o, const RunSize &s) {
    switch (p.shapes[o]) {
    case Shape::Tensor:
        if (p.nhwc) return {{s.c, s.w, s.h, s.n}, {0, s.x0, s.y0, 0}};
        return {{s.w, s.h, s.c, s.n}, {s.x0, s.y0, 0, 0}};
    case Shape::Stats: return {{s.c, s.n}, {}};
    case Shape::Scalar: return {};
    case Shape::Pixels: return {{s.w, s.h, s.n}, {s.x0, s.y0, 0}};
    }
    return {};
}

std::vector<Buffer<>> run(TensorPipeline &p, const Target &t, const Inputs &in, const RunSize &s, float gain,
                          int taps) {
    Pipeline &pipe = p.pipe();
    p.x->set(in.x);
    p.mix->set(in.mix);
    p.dw->set(in.dw);
    p.affine->set(in.affine);
    p.idx->set(in.idx);
    p.gain.set(gain);
    p.taps.set(taps);
    std::vector<Buffer<>> bufs;
    for (size_t o = 0; o < p.outputs.size(); o++)
        for (const Type &ty : p.outputs[o].types()) bufs.push_back(output_shape(p, o, s).buffer(ty));
    return realize_into(pipe, bufs, t);
}

// What a launch's size may read at run size `s` (lowered_launches.h): the buffers' mins and
// extents, as `run` makes them.
std::map<std::string, int64_t> launch_sizes(const TensorPipeline &p, const RunSize &s) {
    std::map<std::string, int64_t> sizes;
    add_buffer_sizes(sizes, p.x->name(),
                     p.nhwc ? std::vector<int64_t>{s.c, s.w, s.h, s.n} : std::vector<int64_t>{s.w, s.h, s.c, s.n});
    add_buffer_sizes(sizes, p.mix->name(), {s.c, s.c});
    add_buffer_sizes(sizes, p.dw->name(), {3, 3, s.c});
    add_buffer_sizes(sizes, p.affine->name(), {s.c, 2});
    add_buffer_sizes(sizes, p.idx->name(), {s.n});
    for (size_t o = 0; o < p.outputs.size(); o++) {
        const Func &f = p.outputs[o];
        const BufferShape shape = output_shape(p, o, s);
        for (int k = 0; k < f.outputs(); k++)
            add_buffer_sizes(sizes, f.outputs() > 1 ? f.name() + "." + std::to_string(k) : f.name(), shape.extents,
                             shape.mins);
    }
    return sizes;
}

// The pipeline planned for CUDA and lowered: what its launches would ask of the device at every
// run size and at larger ones than it was planned for (a block whose shared memory grows with the
// sizes fails to launch there), or "".
std::string cuda_launches_at_sizes(TensorPipeline &cuda, uint64_t seed) {
    const Halide::Module m = cuda_module(cuda.outputs);
    std::vector<RunSize> sizes = run_sizes(seed);
    sizes.push_back({512, 256, 32, 2, 0, 0});
    sizes.push_back({1024, 1024, 128, 8, 0, 0});
    for (const RunSize &s : sizes) {
        const int taps = 1 + int(seed % 4);
        for (int t : {taps, 64}) {
            const std::string beyond = launches_beyond_cuda(
                cuda_launches(m, launch_sizes(cuda, s), {{"gain", Expr(1.5f)}, {"taps", Expr(int32_t(t))}}));
            if (!beyond.empty())
                return "planned for CUDA, at " + std::to_string(s.w) + "x" + std::to_string(s.h) + "x" +
                       std::to_string(s.c) + "x" + std::to_string(s.n) + " (taps " + std::to_string(t) + "), " + beyond;
        }
    }
    return "";
}

}  // namespace

TensorPipelineFuncs random_tensor_pipeline(uint64_t seed, const std::string &target) {
    TensorPipeline p;
    build(seed, p);
    if (target.empty())
        schedule_every_func_at_root(p.outputs);
    else
        schedule_with_solder(p.outputs, target);
    std::vector<double> tolerances;
    for (size_t i = 0; i < p.outputs.size(); i++)
        tolerances.insert(tolerances.end(), size_t(p.outputs[i].outputs()), p.tol[i]);
    return {p.outputs, {*p.x, *p.mix, *p.dw, *p.affine, *p.idx, p.gain, p.taps}, p.nhwc, tolerances};
}

RandomTensorResult run_random_tensor_pipelines(const std::vector<uint64_t> &seeds, const std::string &target,
                                               bool plan_only) {
    RandomTensorResult res;
    const Target host = get_host_target();
    for (uint64_t seed : seeds) {
        std::string plan, mismatch;
        TensorPipeline ours, ref;
        std::string failure = failure_of([&] {
            build(seed, ours);
            build(seed, ref);
            res.kinds.insert(res.kinds.end(), ours.kinds.begin(), ours.kinds.end());
            res.types.push_back(ours.type_name());
            Target t = make_target(target);
            if (target == "opencl" && ours.storage == Float(64) && ours.cl_doubles)
                t = t.with_feature(Target::CLDoubles);
            plan = schedule_with_solder(ours.outputs, t);
            schedule_every_func_at_root(ref.outputs);
            if (plan_only) return;
            ours.pipe().compile_jit(t);
            if (target == "opencl") {
                TensorPipeline cuda;
                build(seed, cuda);
                plan += "\n(planned for CUDA and lowered)\n" + schedule_with_solder(cuda.outputs, "cuda");
                const std::string beyond = cuda_launches_at_sizes(cuda, seed);
                if (!beyond.empty()) throw std::runtime_error(beyond);
            }
            ref.pipe().compile_jit(host);
            for (const RunSize &s : run_sizes(seed)) {
                Inputs in = random_inputs(ours, s, uint32_t(seed * 13 + uint64_t(s.w * 7 + s.c)));
                const float gain = 0.5f + float(seed % 3) * 0.5f;  // (1.5: the specialization's branch)
                const int taps = 1 + int(seed % 4);
                std::vector<Buffer<>> want;
                try {
                    want = run(ref, host, in, s, gain, taps);
                } catch (const Halide::Error &) {
                    // (A scan's update writes the rows its RDom names whatever the window: Halide
                    // refuses some windows away from the origin for the reference itself.)
                    if (s.x0 != 0 || s.y0 != 0) continue;
                    throw;
                }
                const std::string size = std::to_string(s.w) + "x" + std::to_string(s.h) + "x" + std::to_string(s.c) +
                                         "x" + std::to_string(s.n) + " from (" + std::to_string(s.x0) + ", " +
                                         std::to_string(s.y0) + ")";
                std::vector<Buffer<>> got;
                const std::string error = failure_of([&] { got = run(ours, t, in, s, gain, taps); });
                if (!error.empty()) throw std::runtime_error("at " + size + ": " + error);
                size_t q = 0;
                for (size_t o = 0; o < ours.outputs.size() && mismatch.empty(); o++) {
                    for (int e = 0; e < ours.outputs[o].outputs() && mismatch.empty(); e++, q++) {
                        std::string d = first_difference(got[q], want[q], ours.tol[o]);
                        if (!d.empty())
                            mismatch = "output " + std::to_string(o) + " (" + ours.outputs[o].name() + ") at " + size +
                                       ": " + d;
                    }
                }
                if (!mismatch.empty()) return;
            }
        });
        if (failure.empty()) failure = mismatch;
        if (!failure.empty()) {
            std::string kinds;
            for (auto &kd : ours.kinds) kinds += (kinds.empty() ? "" : ",") + kd;
            res.failed_seeds.push_back(seed);
            res.messages.push_back("seed " + std::to_string(seed) + " (" + ours.type_name() + ": " + kinds + ") on " +
                                   target + ": " + failure + "\n" + plan);
        }
    }
    return res;
}

}  // namespace solder::testing
