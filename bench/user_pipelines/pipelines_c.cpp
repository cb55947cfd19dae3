// User pipelines, third set: a Tuple-valued output, a joint histogram, gathers at a flow field's
// offsets and through a 3-D colour table, scans in both directions along rows, a Param stride,
// 8-bit compositing through 16-bit sums, a 0-d loss over per-row reductions, pooling windows sized
// by a Param, an image-pair error to one value, a Tuple minimum and maximum per channel, and each
// column's mean subtracted.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), n("n");

// The gradient of a 4K f32 image in polar form, magnitude and angle: one Func of a Tuple.
P polar() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func out("out");
    Expr gx = cl(x + 1, y) - cl(x - 1, y), gy = cl(x, y + 1) - cl(x, y - 1);
    out(x, y) = {sqrt(gx * gx + gy * gy), atan2(gy, gx)};
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// The joint histogram of two 8-bit 4K images: 256 x 256 bins (a scatter with a 2-D index).
P hist2d() {
    ImageParam a(UInt(8), 2, "a"), b(UInt(8), 2, "b");
    RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "r");
    Func h("h");
    h(x, y) = 0;
    h(cast<int>(a(r.x, r.y)), cast<int>(b(r.x, r.y))) += 1;
    a.set_estimates({{0, 3840}, {0, 2160}});
    b.set_estimates({{0, 3840}, {0, 2160}});
    h.set_estimates({{0, 256}, {0, 256}});
    return {{h}, {a, b}};
}
// A 4K f32 image resampled bilinearly at a flow field's offsets (up to 8 pixels each way).
P flowwarp() {
    ImageParam in(Float(32), 2, "in"), flow(Float(32), 3, "flow");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func out("out");
    Expr sx = x + flow(x, y, 0) * 8.0f, sy = y + flow(x, y, 1) * 8.0f;
    Expr ix = cast<int>(floor(sx)), iy = cast<int>(floor(sy));
    Expr fx = sx - ix, fy = sy - iy;
    out(x, y) = lerp(lerp(cl(ix, iy), cl(ix + 1, iy), fx), lerp(cl(ix, iy + 1), cl(ix + 1, iy + 1), fx), fy);
    in.set_estimates({{0, 3840}, {0, 2160}});
    flow.set_estimates({{0, 3840}, {0, 2160}, {0, 2}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, flow}};
}
// A first-order IIR smoothing of each row, causal then anticausal (scans along x both ways), its
// coefficient a Param.
P iir2() {
    ImageParam in(Float(32), 2, "in");
    Param<float> a("a");
    a.set_estimate(0.25f);
    Expr W = in.dim(0).extent();
    RDom r(1, W - 1, "r");
    Func fwd("fwd"), bwd("bwd"), out("out");
    fwd(x, y) = in(x, y);
    fwd(r, y) = a * in(r, y) + (1.0f - a) * fwd(r - 1, y);
    bwd(x, y) = fwd(x, y);
    Expr xb = W - 1 - r;
    bwd(xb, y) = a * fwd(xb, y) + (1.0f - a) * bwd(xb + 1, y);
    out(x, y) = bwd(x, y);
    in.set_estimates({{0, 4096}, {0, 2160}});
    out.set_estimates({{0, 4096}, {0, 2160}});
    return {{out}, {in, a}};
}
// A decimation by a Param stride with a 2 x 2 box at each sample (3x at the estimate).
P decimate() {
    ImageParam in(Float(32), 2, "in");
    Param<int> s("s");
    s.set_estimate(3);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func out("out");
    out(x, y) = (cl(x * s, y * s) + cl(x * s + 1, y * s) + cl(x * s, y * s + 1) + cl(x * s + 1, y * s + 1)) * 0.25f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 1280}, {0, 720}});
    return {{out}, {in, s}};
}
// An 8-bit RGB foreground over a background through an 8-bit alpha matte, 16-bit sums.
P u8comp() {
    ImageParam fg(UInt(8), 3, "fg"), bg(UInt(8), 3, "bg"), al(UInt(8), 2, "al");
    Func out("out");
    Expr a = cast<uint16_t>(al(x, y));
    Expr v = cast<uint16_t>(fg(x, y, c)) * a + cast<uint16_t>(bg(x, y, c)) * (255 - a) + 127;
    out(x, y, c) = cast<uint8_t>(v / 255);
    fg.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    bg.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    al.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {fg, bg, al}};
}
// The mean cross-entropy of 4096 rows of 8192 logits against integer labels: a 0-d output summing
// per-row log-sum-exps (each a maximum, then a sum).
P xent() {
    ImageParam lg(Float(32), 2, "logits"), lab(Int(32), 1, "labels");
    RDom k(0, lg.dim(0).extent(), "k"), r(0, lg.dim(1).extent(), "r");
    Func mx("mx"), lse("lse"), loss("loss"), out("out");
    mx(n) = maximum(lg(k, n));
    lse(n) = log(sum(exp(lg(k, n) - mx(n)))) + mx(n);
    loss(n) = lse(n) - lg(clamp(lab(n), 0, lg.dim(0).extent() - 1), n);
    out() = sum(loss(r)) / cast<float>(lg.dim(1).extent());
    lg.set_estimates({{0, 8192}, {0, 4096}});
    lab.set_estimates({{0, 4096}});
    return {{out}, {lg, lab}};
}
// Average pooling of a 4096 x 4096 f32 image in windows of a Param's size (32 x 32 at the estimate).
P avgpool() {
    ImageParam in(Float(32), 2, "in");
    Param<int> k("k");
    k.set_estimate(32);
    RDom r(0, k, 0, k, "r");
    Func out("out");
    out(x, y) = sum(in(x * k + r.x, y * k + r.y)) / cast<float>(k * k);
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 128}, {0, 128}});
    return {{out}, {in, k}};
}
// The PSNR between two 4K f32 images: one value from their squared differences, summed in f64.
P psnr() {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "r");
    Func out("out");
    Expr d = a(r.x, r.y) - b(r.x, r.y);
    // (Summed in f64: 8 million f32 squares summed serially, as the host reference does, drift by
    // 1e-2 of the sum.)
    Expr mse = sum(cast<double>(d * d)) / cast<double>(a.dim(0).extent() * a.dim(1).extent());
    out() = cast<float>(Expr(10.0) * log(Expr(4.0) / mse) / Expr(std::log(10.0)));
    a.set_estimates({{0, 3840}, {0, 2160}});
    b.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {a, b}};
}
// Each channel of a planar RGB f32 image stretched to [0, 1] by its minimum and maximum, found
// together as a Tuple reduction.
P minmax() {
    ImageParam in(Float(32), 3, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func mm("mm"), out("out");
    mm(c) = {Float(32).max(), Float(32).min()};
    Expr v = in(r.x, r.y, c);
    mm(c) = {min(mm(c)[0], v), max(mm(c)[1], v)};
    out(x, y, c) = (in(x, y, c) - mm(c)[0]) / (mm(c)[1] - mm(c)[0]);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}
// Each column's mean subtracted from a 3840 x 2160 f32 image (a reduction down the columns, then
// a pointwise stage).
P colcenter() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(1).extent(), "r");
    Func mean("mean"), out("out");
    mean(x) = sum(in(x, r)) / cast<float>(in.dim(1).extent());
    out(x, y) = in(x, y) - mean(x);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 17 x 17 x 17 RGB colour table applied to a planar RGB f32 image, interpolated trilinearly
// (eight data-dependent gathers per value).
P lut3d() {
    ImageParam in(Float(32), 3, "in"), lut(Float(32), 4, "lut");
    Func out("out");
    auto coord = [&](int ch) { return clamp((in(x, y, ch) + 1.0f) * 8.0f, 0.0f, 15.999f); };
    Expr pr = coord(0), pg = coord(1), pb = coord(2);
    Expr ir = cast<int>(pr), ig = cast<int>(pg), ib = cast<int>(pb);
    Expr fr = pr - ir, fg = pg - ig, fb = pb - ib;
    auto at = [&](Expr dr, Expr dg, Expr db) { return lut(ir + dr, ig + dg, ib + db, c); };
    Expr c00 = lerp(at(0, 0, 0), at(1, 0, 0), fr), c10 = lerp(at(0, 1, 0), at(1, 1, 0), fr);
    Expr c01 = lerp(at(0, 0, 1), at(1, 0, 1), fr), c11 = lerp(at(0, 1, 1), at(1, 1, 1), fr);
    out(x, y, c) = lerp(lerp(c00, c10, fg), lerp(c01, c11, fg), fb);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    lut.set_estimates({{0, 17}, {0, 17}, {0, 17}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, lut}};
}

}  // namespace

void add_pipelines_c(Registry &r) {
    r.emplace("polar", polar);
    r.emplace("hist2d", hist2d);
    r.emplace("flowwarp", flowwarp);
    r.emplace("iir2", iir2);
    r.emplace("decimate", decimate);
    r.emplace("u8comp", u8comp);
    r.emplace("xent", xent);
    r.emplace("avgpool", avgpool);
    r.emplace("psnr", psnr);
    r.emplace("minmax", minmax);
    r.emplace("colcenter", colcenter);
    r.emplace("lut3d", lut3d);
}

}  // namespace user_pipelines
