// User pipelines, fifteenth set: a 4 x 4 colour matrix of its own at every pixel (a reduction of
// 4 steps over a 4-point innermost dim), a softmax over 10 classes for a million samples (rows far
// shorter than a warp), a separable 3-D box blur whose radius is a parameter (its third pass along
// the outermost dim), each element's rank within its row of 16, a Lanczos-3 downsampling whose
// weights are sines of the output coordinate, and a per-pixel minimum, maximum and mean over 16
// frames of 16-bit video (a Tuple reduction over the outermost dim).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), z("z"), c("c"), i("i"), n("n");

// out(i, x, y) = sum over k of m(i, k, x, y) * v(k, x, y): a 1920 x 1080 image of 4-vectors, each
// transformed by a 4 x 4 matrix of its own.
P matvec4() {
    ImageParam m(Float(32), 4, "m"), v(Float(32), 3, "v");
    RDom k(0, 4, "k");
    Func out("out");
    out(i, x, y) = sum(m(i, k, x, y) * v(k, x, y));
    m.set_estimates({{0, 4}, {0, 4}, {0, 1920}, {0, 1080}});
    v.set_estimates({{0, 4}, {0, 1920}, {0, 1080}});
    out.set_estimates({{0, 4}, {0, 1920}, {0, 1080}});
    return {{out}, {m, v}};
}

// A softmax over the 10 classes (dim 0, an input's extent) of each of 1048576 samples.
P tinysoftmax() {
    ImageParam logits(Float(32), 2, "logits");
    RDom r(0, logits.dim(0).extent(), "r");
    Func mx("mx"), den("den"), out("out");
    mx(n) = maximum(logits(r, n));
    den(n) = sum(exp(logits(r, n) - mx(n)));
    out(c, n) = exp(logits(c, n) - mx(n)) / den(n);
    logits.set_estimates({{0, 10}, {0, 1048576}});
    out.set_estimates({{0, 10}, {0, 1048576}});
    return {{out}, {logits}};
}

// A separable box blur of a 256^3 f32 volume, radius a parameter (3 at the estimate), clamped at the
// edges: along x, then y, then z (the outermost dim).
P box3d() {
    ImageParam in(Float(32), 3, "in");
    Param<int> radius("radius");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-radius, 2 * radius + 1, "r");
    Expr norm = 1.0f / cast<float>(2 * radius + 1);
    Func bx("bx"), by("by"), out("out");
    bx(x, y, z) = sum(cl(x + r, y, z)) * norm;
    by(x, y, z) = sum(bx(x, y + r, z)) * norm;
    out(x, y, z) = sum(by(x, y, z + r)) * norm;
    in.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    radius.set_estimate(3);
    out.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    return {{out}, {in, radius}};
}

// The rank of each value within its row of 16 (how many of the row's values are smaller, ties
// broken by position), for 1048576 rows.
P rowrank() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func rank("rank");
    Expr before = in(r, n) < in(x, n) || (in(r, n) == in(x, n) && r < x);
    rank(x, n) = sum(select(before, 1, 0));
    in.set_estimates({{0, 16}, {0, 1048576}});
    rank.set_estimates({{0, 16}, {0, 1048576}});
    return {{rank}, {in}};
}

// A 4K f32 image downsampled by 3 along each dim with a Lanczos-3 kernel: each output pixel sums
// 18 x 18 input taps, its weights sinc(t) sinc(t / 3) of the tap's distance in output pixels,
// computed from the coordinates (normalized by their sum).
P lanczos() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    const float pi = 3.14159265f;
    auto kernel = [&](Expr t) {
        Expr a = pi * t, b = pi * t / 3.0f;
        return select(abs(t) < 1e-4f, 1.0f, select(abs(t) >= 3.0f, 0.0f, sin(a) * sin(b) / (a * b)));
    };
    Var k("k");
    Func wx("wx"), wsum("wsum"), hx("hx"), out("out");
    // Tap k (0 ... 17) of output coordinate x reads input 3x + k - 8, at distance (k - 7.5 - 1/3
    // ... ) / 3 output pixels from the output pixel's centre.
    wx(k) = kernel((cast<float>(k) - 7.0f) / 3.0f);
    RDom t(0, 18, "t");
    wsum() = sum(wx(t));
    hx(x, y) = sum(cl(3 * x + t - 8, y) * wx(t)) / wsum();
    out(x, y) = sum(hx(x, 3 * y + t - 8) * wx(t)) / wsum();
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 1280}, {0, 720}});
    return {{out}, {in}};
}

// Per-pixel minimum, maximum and mean over 16 frames of 1920 x 1080 16-bit video: a Tuple
// reduction over the outermost dim, then the three as 16-bit planes of one output.
P temporal() {
    ImageParam frames(UInt(16), 3, "frames");
    RDom f(0, frames.dim(2).extent(), "f");
    Func st("st"), out("out");
    st(x, y) = Tuple(cast<uint16_t>(65535), cast<uint16_t>(0), cast<uint32_t>(0));
    Expr v = frames(x, y, f);
    st(x, y) = Tuple(min(st(x, y)[0], v), max(st(x, y)[1], v), st(x, y)[2] + cast<uint32_t>(v));
    Expr count = cast<uint32_t>(frames.dim(2).extent());
    out(x, y, c) = select(c == 0, st(x, y)[0], c == 1, st(x, y)[1], cast<uint16_t>((st(x, y)[2] + count / 2) / count));
    frames.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    return {{out}, {frames}};
}

}  // namespace

void add_pipelines_o(Registry &r) {
    r.emplace("matvec4", matvec4);
    r.emplace("tinysoftmax", tinysoftmax);
    r.emplace("box3d", box3d);
    r.emplace("rowrank", rowrank);
    r.emplace("lanczos", lanczos);
    r.emplace("temporal", temporal);
}

}  // namespace user_pipelines
