// User pipelines, tenth set: a threshold mask packed 8 pixels to a byte (strided reads under an
// inline sum of shifted bits), a softmax over the middle dim of a 3-D tensor, segmented sums over
// CSR offsets (an RDom whose length a predicate reads from an input at the pure var), the collapse
// of a 4-level Laplacian pyramid (inputs at four resolutions, each level upsampled and added), a
// histogram of each row's arg-max position (a scatter indexed by a reduction), and a 16-bit image
// rotated by 90 degrees with a gain.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), n("n"), i("i");

// A 4096 x 2160 f32 image thresholded at a Param level, 8 neighbouring pixels packed into each
// byte's bits.
P bitpack() {
    ImageParam in(Float(32), 2, "in");
    Param<float> level("level");
    level.set_estimate(0.0f);
    RDom k(0, 8, "k");
    Func out("out");
    out(x, y) = cast<uint8_t>(sum(select(in(8 * x + k, y) > level, 1 << k, 0)));
    in.set_estimates({{0, 4096}, {0, 2160}});
    out.set_estimates({{0, 512}, {0, 2160}});
    return {{out}, {in, level}};
}

// A softmax over the 64 channels of a (1024 positions, 64 channels, 32 batches) f32 tensor: the
// channel dim in the middle, so each position's maximum and sum read across rows.
P softmid() {
    ImageParam in(Float(32), 3, "in");
    RDom r(0, in.dim(1).extent(), "r");
    Func m("m"), e("e"), s("s"), out("out");
    m(x, n) = maximum(in(x, r, n));
    e(x, c, n) = exp(in(x, c, n) - m(x, n));
    s(x, n) = sum(e(x, r, n));
    out(x, c, n) = e(x, c, n) / s(x, n);
    in.set_estimates({{0, 1024}, {0, 64}, {0, 32}});
    out.set_estimates({{0, 1024}, {0, 64}, {0, 32}});
    return {{out}, {in}};
}

// Segmented sums of 2^20 values over 65536 segments (segsum; segsum_odd: 65535) given by CSR offsets (an input), each
// segment at most `max_len` long: an RDom over that bound with a predicate on the segment's
// length, read at the pure var.
P segsum_of(int segments) {
    ImageParam vals(Float(32), 1, "vals"), off(Int(32), 1, "off");
    Param<int> max_len("max_len");
    max_len.set_estimate(32);
    RDom r(0, max_len, "r");
    r.where(r < off(i + 1) - off(i));
    Func out("out");
    out(i) = 0.0f;
    out(i) += vals(clamp(off(i) + r, 0, vals.dim(0).extent() - 1));
    vals.set_estimates({{0, 1 << 20}});
    off.set_estimates({{0, segments + 1}});
    out.set_estimates({{0, segments}});
    return {{out}, {vals, off, max_len}};
}

// The collapse of a 4-level Laplacian pyramid (bands at 1920 x 1080 down to 240 x 135, each an
// input): from the coarsest, each level upsampled by a 3-tap filter along each axis and added to
// the next band.
P collapse() {
    ImageParam l0(Float(32), 2, "l0"), l1(Float(32), 2, "l1"), l2(Float(32), 2, "l2"), l3(Float(32), 2, "l3");
    auto up = [&](Func f, const std::string &name) {
        Func ux(name + "_x"), u(name);
        ux(x, y) = 0.5f * f(x / 2, y) + 0.25f * (f((x - 1) / 2, y) + f((x + 1) / 2, y));
        u(x, y) = 0.5f * ux(x, y / 2) + 0.25f * (ux(x, (y - 1) / 2) + ux(x, (y + 1) / 2));
        return u;
    };
    Func c3 = BoundaryConditions::repeat_edge(l3);
    Func s2("s2"), s1("s1"), out("out");
    Func u3 = up(c3, "u3");
    s2(x, y) = u3(x, y) + BoundaryConditions::repeat_edge(l2)(x, y);
    Func u2 = up(s2, "u2");
    s1(x, y) = u2(x, y) + BoundaryConditions::repeat_edge(l1)(x, y);
    Func u1 = up(s1, "u1");
    out(x, y) = u1(x, y) + l0(x, y);
    l0.set_estimates({{0, 1920}, {0, 1080}});
    l1.set_estimates({{0, 960}, {0, 540}});
    l2.set_estimates({{0, 480}, {0, 270}});
    l3.set_estimates({{0, 240}, {0, 135}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {l0, l1, l2, l3}};
}

// Where each row of a 4096 x 4096 f32 image peaks: each row's arg-max, then a 64-bin histogram of
// those positions (a scatter indexed by a reduction's result).
P peakhist() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r"), ry(0, in.dim(1).extent(), "ry");
    Func pos("pos"), hist("hist");
    pos(y) = argmax(in(r, y))[0];
    hist(i) = 0;
    hist(clamp(pos(ry) * 64 / in.dim(0).extent(), 0, 63)) += 1;
    in.set_estimates({{0, 4096}, {0, 4096}});
    hist.set_estimates({{0, 64}});
    return {{hist}, {in}};
}

// A 3840 x 2160 16-bit image rotated by 90 degrees clockwise, scaled by a Param gain and saturated.
P rot90() {
    ImageParam in(UInt(16), 2, "in");
    Param<float> gain("gain");
    gain.set_estimate(1.5f);
    Func out("out");
    Expr v = cast<float>(in(y, in.dim(1).extent() - 1 - x)) * gain;
    out(x, y) = cast<uint16_t>(min(v, 65535.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 2160}, {0, 3840}});
    return {{out}, {in, gain}};
}

}  // namespace

void add_pipelines_j(Registry &r) {
    r.emplace("bitpack", bitpack);
    r.emplace("softmid", softmid);
    r.emplace("segsum", [] { return segsum_of(65536); });
    r.emplace("segsum_odd", [] { return segsum_of(65535); });
    r.emplace("collapse", collapse);
    r.emplace("peakhist", peakhist);
    r.emplace("rot90", rot90);
}

}  // namespace user_pipelines
