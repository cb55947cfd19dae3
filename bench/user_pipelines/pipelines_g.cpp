// User pipelines, seventh set: layouts and resolutions as camera and video code has them: an
// interleaved RGBA image to planar floats, YUV 4:2:0 (a full-resolution plane and two
// half-resolution ones) to interleaved RGB, a 2 x 2 box downsampling of an interleaved RGBA
// image, a 64-tap FIR filter of a long 1-D signal by weights in an input, a cumulative sum along
// the outermost dim of a volume, and RGB to CIE Lab (cube roots and a select per channel).
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), z("z"), c("c"), i("i");

// An interleaved 8-bit RGBA 4K image (the channel innermost) to planar f32 in [0, 1], alpha
// premultiplied.
P rgba2planar() {
    ImageParam in(UInt(8), 3, "in");
    Func out("out");
    Expr alpha = cast<float>(in(3, x, y)) / 255.0f;
    out(x, y, c) = select(c == 3, alpha, cast<float>(in(c, x, y)) / 255.0f * alpha);
    in.set_estimates({{0, 4}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    return {{out}, {in}};
}
// A 4K YUV 4:2:0 frame (a full-resolution Y plane, half-resolution U and V planes) to interleaved
// 8-bit RGB by the BT.601 matrix in integers (8 fraction bits), the chroma taken at each pixel's
// 2 x 2 block.
P yuv420() {
    ImageParam yp(UInt(8), 2, "yp"), up(UInt(8), 2, "up"), vp(UInt(8), 2, "vp");
    Func out("out");
    Expr Y = cast<int>(yp(x, y)) - 16, U = cast<int>(up(x / 2, y / 2)) - 128, V = cast<int>(vp(x / 2, y / 2)) - 128;
    Expr r = 298 * Y + 409 * V, g = 298 * Y - 100 * U - 208 * V, b = 298 * Y + 516 * U;
    Expr v = select(c == 0, r, c == 1, g, b);
    out(c, x, y) = cast<uint8_t>(clamp((v + 128) >> 8, 0, 255));
    yp.set_estimates({{0, 3840}, {0, 2160}});
    up.set_estimates({{0, 1920}, {0, 1080}});
    vp.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    return {{out}, {yp, up, vp}};
}
// A 2 x 2 box downsampling of an interleaved 8-bit RGBA 4K image, rounded, still interleaved.
P down2rgba() {
    ImageParam in(UInt(8), 3, "in");
    Func out("out");
    Expr s = cast<uint16_t>(in(c, 2 * x, 2 * y)) + in(c, 2 * x + 1, 2 * y) + in(c, 2 * x, 2 * y + 1) +
             in(c, 2 * x + 1, 2 * y + 1);
    out(c, x, y) = cast<uint8_t>((s + 2) / 4);
    in.set_estimates({{0, 4}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 4}, {0, 1920}, {0, 1080}});
    return {{out}, {in}};
}
// A 64-tap FIR filter of 2^22 f32 samples by weights in an input buffer, the signal zero beyond
// its ends.
P fir1d() {
    ImageParam sig(Float(32), 1, "sig"), taps(Float(32), 1, "taps");
    Func padded = BoundaryConditions::constant_exterior(sig, 0.0f);
    RDom k(0, taps.dim(0).extent(), "k");
    Func out("out");
    out(i) = sum(padded(i - k) * taps(k));
    sig.set_estimates({{0, 1 << 22}});
    taps.set_estimates({{0, 64}});
    out.set_estimates({{0, 1 << 22}});
    return {{out}, {sig, taps}};
}
// The cumulative sum along the outermost dim of a 256 x 256 x 64 f32 volume (a scan along z).
P zscan() {
    ImageParam in(Float(32), 3, "in");
    RDom r(1, in.dim(2).extent() - 1, "r");
    Func out("out");
    out(x, y, z) = in(x, y, z);
    out(x, y, r) = out(x, y, r - 1) + in(x, y, r);
    in.set_estimates({{0, 256}, {0, 256}, {0, 64}});
    out.set_estimates({{0, 256}, {0, 256}, {0, 64}});
    return {{out}, {in}};
}
// A planar f32 sRGB 4K image to CIE Lab (D65): linearized, to XYZ, each component's cube root or
// its linear segment, then L, a and b.
P lab() {
    ImageParam in(Float(32), 3, "in");
    Func lin("lin"), xyz("xyz"), fxyz("fxyz"), out("out");
    Expr v = abs(in(x, y, c));
    lin(x, y, c) = select(v <= 0.04045f, v / 12.92f, pow((v + 0.055f) / 1.055f, 2.4f));
    Expr R = lin(x, y, 0), G = lin(x, y, 1), B = lin(x, y, 2);
    xyz(x, y, c) =
        select(c == 0, (0.4124f * R + 0.3576f * G + 0.1805f * B) / 0.95047f, c == 1,
               0.2126f * R + 0.7152f * G + 0.0722f * B, (0.0193f * R + 0.1192f * G + 0.9505f * B) / 1.08883f);
    Expr t = xyz(x, y, c);
    fxyz(x, y, c) = select(t > 0.008856f, pow(t, 1.0f / 3.0f), 7.787f * t + 16.0f / 116.0f);
    out(x, y, c) = select(c == 0, 116.0f * fxyz(x, y, 1) - 16.0f, c == 1, 500.0f * (fxyz(x, y, 0) - fxyz(x, y, 1)),
                          200.0f * (fxyz(x, y, 1) - fxyz(x, y, 2)));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_g(Registry &r) {
    r.emplace("rgba2planar", rgba2planar);
    r.emplace("yuv420", yuv420);
    r.emplace("down2rgba", down2rgba);
    r.emplace("fir1d", fir1d);
    r.emplace("zscan", zscan);
    r.emplace("lab", lab);
}

}  // namespace user_pipelines
