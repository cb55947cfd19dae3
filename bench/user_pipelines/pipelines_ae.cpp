// Thirty-first set: LLM activations in Halide's own bfloat16 type, as a user's generator declares
// them (`ImageParam(BFloat(16), ...)`), each widened to f32 for its arithmetic and stored back as
// bf16. An RMSNorm over rows whose length is the input's extent, with a bf16 weight, and a bias add
// with a tanh GELU; both at the bundled apps' size (8192 x 4096), which build the same algorithms
// through Solder's tensor layer over 16-bit storage. Halide 21 cannot compile these for CUDA as
// written (issue 8311); Solder's plugin rewrites their bf16 conversions first.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var i("i"), j("j");

// A pipeline over 8192 x 4096 activations `x` and a 4096-long vector `v`, its output as `x`: the
// estimates, and with `aligned` every buffer declared 16-byte aligned (set_host_alignment), as the
// tensor layer declares its own: Halide 21's PTX then loads and stores 4 bf16 at a time in the
// whole-vector branch.
P activations(Func out, ImageParam x, ImageParam v, bool aligned) {
    if (aligned) {
        x.set_host_alignment(16);
        v.set_host_alignment(16);
        out.output_buffer().set_host_alignment(16);
    }
    x.set_estimates({{0, 4096}, {0, 8192}});
    v.set_estimates({{0, 4096}});
    out.set_estimates({{0, 4096}, {0, 8192}});
    return {{out}, {x, v}};
}

P bf16rms(bool aligned) {
    ImageParam x(BFloat(16), 2, "x");
    ImageParam w(BFloat(16), 1, "w");
    Func ms("ms"), out("out");
    RDom r(0, x.dim(0).extent(), "r");
    Expr v = cast<float>(x(r, j));
    ms(j) = sum(v * v) / cast<float>(x.dim(0).extent());
    out(i, j) = cast(BFloat(16), cast<float>(x(i, j)) * (1.0f / sqrt(ms(j) + 1e-6f)) * cast<float>(w(i)));
    return activations(out, x, w, aligned);
}

P bf16gelu(bool aligned) {
    ImageParam x(BFloat(16), 2, "x");
    ImageParam b(BFloat(16), 1, "b");
    Func out("out");
    Expr v = cast<float>(x(i, j)) + cast<float>(b(i));
    const float k = 0.7978845608f;  // sqrt(2 / pi)
    out(i, j) = cast(BFloat(16), 0.5f * v * (1.0f + tanh(k * (v + 0.044715f * v * v * v))));
    return activations(out, x, b, aligned);
}

// The position of a 4096 x 2160 image's largest value, as (x, y). `provable` writes the reduction
// in the form Halide 21's associativity prover accepts (the value first, the old position kept
// unless the new value wins); without it, the inline `argmax`, which it refuses.
P image_argmax(bool provable) {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func am("am"), out("out");
    if (provable) {
        Expr v = in(r.x, r.y);
        am() = {Float(32).min(), 0, 0};
        am() = {max(am()[0], v), select(am()[0] > v, am()[1], r.x), select(am()[0] > v, am()[2], r.y)};
        out(i) = select(i == 0, am()[1], am()[2]);
    } else {
        am() = argmax(in(r.x, r.y));  // (x, y, value)
        out(i) = select(i == 0, am()[0], am()[1]);
    }
    in.set_estimates({{0, 4096}, {0, 2160}});
    out.set_estimates({{0, 2}});
    return {{out}, {in}};
}

// The sum of the first n of 16M floats, n a scalar parameter (a loss over the valid tokens).
P head_sum() {
    ImageParam v(Float(32), 1, "v");
    Param<int> n("n");
    RDom r(0, n, "r");
    Func out("out");
    out() = sum(v(r));
    v.set_estimates({{0, 1 << 24}});
    n.set_estimate((1 << 24) - 1000);
    return {{out}, {v, n}};
}

// The mean of a 512 x 512 x 16 volume (16 planes: fewer than the slices that fill the device).
P volume_mean() {
    ImageParam in(Float(32), 3, "in");
    RDom r(in);
    Func out("out");
    out() = sum(in(r.x, r.y, r.z)) / cast<float>(in.dim(0).extent() * in.dim(1).extent() * in.dim(2).extent());
    in.set_estimates({{0, 512}, {0, 512}, {0, 16}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_ae(Registry &r) {
    r.emplace("bf16rms", [] { return bf16rms(false); });
    r.emplace("bf16gelu", [] { return bf16gelu(false); });
    r.emplace("bf16rmsa", [] { return bf16rms(true); });
    r.emplace("bf16gelua", [] { return bf16gelu(true); });
    r.emplace("imgargmax", [] { return image_argmax(false); });
    r.emplace("imgargmaxp", [] { return image_argmax(true); });
    r.emplace("headsum", head_sum);
    r.emplace("volmean", volume_mean);
}

}  // namespace user_pipelines
