// Thirty-ninth set: five pipelines as users write them, each a reduction whose innermost dim has
// only a few points: the largest value of each channel along each row of an interleaved 8-bit
// RGB image; the mean score of each of 16 classes over a million samples (a column sum of a
// narrow matrix); the RMS level of each channel of an interleaved stereo signal; and batch
// normalizations of channels-last (NHWC) feature maps of 16 and 64 channels.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), n("n");

// The largest value of each channel along each row of an interleaved 8-bit RGB 4K image
// (channels innermost): a 3 x 2160 result.
P rowmaxrgb() {
    ImageParam in(UInt(8), 3, "in");
    RDom r(0, in.dim(1).extent(), "r");
    Func out("out");
    out(c, y) = maximum(in(c, r, y));
    in.dim(0).set_stride(1);
    in.dim(1).set_stride(3);
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3}, {0, 2160}});
    return {{out}, {in}};
}

// The mean score of each of 16 classes over a batch of a million samples (scores stored class
// innermost): a column sum of a 16-wide matrix.
P classsum() {
    ImageParam in(Float(32), 2, "in");
    Expr samples = in.dim(1).extent();
    RDom r(0, samples, "r");
    Func out("out");
    out(c) = sum(in(c, r)) / cast<float>(samples);
    in.set_estimates({{0, 16}, {0, 1 << 20}});
    out.set_estimates({{0, 16}});
    return {{out}, {in}};
}

// The RMS level of each channel of an interleaved stereo f32 signal of 16M frames (its squares
// summed in f64), and the signal scaled so that its louder channel's RMS is a Param target level.
P stereorms() {
    ImageParam in(Float(32), 2, "in");
    Param<float> target("target");
    target.set_estimate(0.1f);
    Expr frames = in.dim(1).extent();
    RDom r(0, frames, "r");
    Func rms("rms"), out("out");
    Expr v = cast<double>(in(c, r));
    rms(c) = cast<float>(sqrt(sum(v * v) / cast<double>(frames)));
    Expr loud = max(rms(0), rms(1));
    out(c, x) = in(c, x) * (target / max(loud, 1e-9f));
    in.dim(0).set_stride(1);
    in.dim(1).set_stride(2);
    out.output_buffer().dim(0).set_stride(1);
    out.output_buffer().dim(1).set_stride(2);
    in.set_estimates({{0, 2}, {0, 1 << 24}});
    out.set_estimates({{0, 2}, {0, 1 << 24}});
    return {{out}, {in, target}};
}

// A batch normalization (training statistics) of a channels-last f32 feature map of `channels`
// channels innermost, `side` x `side` pixels and a batch of `batch`: each channel's mean and
// variance over the pixels and the batch, then each value normalized and scaled by a per-channel
// weight and bias.
P nhwc_norm(int channels, int side, int batch) {
    ImageParam in(Float(32), 4, "in"), weight(Float(32), 1, "weight"), bias(Float(32), 1, "bias");
    Expr count = cast<float>(in.dim(1).extent() * in.dim(2).extent() * in.dim(3).extent());
    RDom r(0, in.dim(1).extent(), 0, in.dim(2).extent(), 0, in.dim(3).extent(), "r");
    Func mean("mean"), var("var"), out("out");
    mean(c) = sum(in(c, r.x, r.y, r.z)) / count;
    Expr d = in(c, r.x, r.y, r.z) - mean(c);
    var(c) = sum(d * d) / count;
    out(c, x, y, n) = (in(c, x, y, n) - mean(c)) / sqrt(var(c) + 1e-5f) * weight(c) + bias(c);
    in.set_estimates({{0, channels}, {0, side}, {0, side}, {0, batch}});
    weight.set_estimates({{0, channels}});
    bias.set_estimates({{0, channels}});
    out.set_estimates({{0, channels}, {0, side}, {0, side}, {0, batch}});
    return {{out}, {in, weight, bias}};
}

// 16 channels of 128 x 128 pixels, a batch of 32.
P nhwcnorm() { return nhwc_norm(16, 128, 32); }
// 64 channels of 56 x 56 pixels (a ResNet's first stage), a batch of 32.
P nhwcnorm64() { return nhwc_norm(64, 56, 32); }

}  // namespace

void add_pipelines_am(Registry &r) {
    r.emplace("rowmaxrgb", rowmaxrgb);
    r.emplace("classsum", classsum);
    r.emplace("stereorms", stereorms);
    r.emplace("nhwcnorm", nhwcnorm);
    r.emplace("nhwcnorm64", nhwcnorm64);
}

}  // namespace user_pipelines
