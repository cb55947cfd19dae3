// Thirty-eighth set: six pipelines as users write them, each a window read through another (an
// inline reduction over a window of a Func that is itself one, or a stencil's): a morphological
// opening of an 8-bit image (a 5 x 5 minimum, then a 5 x 5 maximum of it); a difference of two
// Gaussians whose weights are Funcs of constant sigmas, each blur two passes of inline sums; the
// coherence of an image's structure tensor (Sobel gradients, their products summed over a 5 x 5
// window); a 9 x 9 box blur of an interleaved 8-bit RGB image in two passes of 16-bit sums; a 5 x 5
// bilateral filter (a weighted sum over its window divided by the weights' sum); and an unsharp
// mask of a planar RGB image whose binomial taps come from a Func of the tap index.
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c");

// A morphological opening of a 4K 8-bit image: the 5 x 5 minimum of the edge-clamped image, then
// the 5 x 5 maximum of that.
P morphopen() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-2, 5, -2, 5, "r");
    Func eroded("eroded"), out("out");
    eroded(x, y) = minimum(cl(x + r.x, y + r.y));
    Func ce = BoundaryConditions::repeat_edge(eroded, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
    out(x, y) = maximum(ce(x + r.x, y + r.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// A difference of Gaussians (sigma 1 and 2, radius 3 sigma) of a 2K f32 image, each blur a row
// pass and a column pass of inline sums weighted by a Func of the tap (normalized by a constant).
P dogsep() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::mirror_image(in);
    auto blur = [&](float sigma, const std::string &name) {
        const int r = int(std::ceil(3.0f * sigma));
        float norm = 0.0f;
        for (int k = -r; k <= r; k++) norm += std::exp(-float(k * k) / (2.0f * sigma * sigma));
        Func w(name + "_w"), bx(name + "_x"), by(name + "_y");
        Var t("t");
        w(t) = exp(-cast<float>(t * t) / (2.0f * sigma * sigma)) / norm;
        RDom k(-r, 2 * r + 1, name + "_k");
        bx(x, y) = sum(cl(x + k, y) * w(k));
        by(x, y) = sum(bx(x, y + k) * w(k));
        return by;
    };
    Func fine = blur(1.0f, "fine"), coarse = blur(2.0f, "coarse");
    Func out("out");
    out(x, y) = fine(x, y) - coarse(x, y);
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in}};
}

// The coherence of a 4K f32 image's structure tensor: Sobel gradients of the clamped image, their
// products summed over a 5 x 5 window, then ((l1 - l2) / (l1 + l2))^2 from the tensor's
// eigenvalues (0 where the window is flat).
P structten() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func gx("gx"), gy("gy"), jxx("jxx"), jxy("jxy"), jyy("jyy"), out("out");
    gx(x, y) = (cl(x + 1, y - 1) + 2.0f * cl(x + 1, y) + cl(x + 1, y + 1)) -
               (cl(x - 1, y - 1) + 2.0f * cl(x - 1, y) + cl(x - 1, y + 1));
    gy(x, y) = (cl(x - 1, y + 1) + 2.0f * cl(x, y + 1) + cl(x + 1, y + 1)) -
               (cl(x - 1, y - 1) + 2.0f * cl(x, y - 1) + cl(x + 1, y - 1));
    RDom r(-2, 5, -2, 5, "r");
    jxx(x, y) = sum(gx(x + r.x, y + r.y) * gx(x + r.x, y + r.y));
    jxy(x, y) = sum(gx(x + r.x, y + r.y) * gy(x + r.x, y + r.y));
    jyy(x, y) = sum(gy(x + r.x, y + r.y) * gy(x + r.x, y + r.y));
    Expr tr = jxx(x, y) + jyy(x, y);
    Expr diff = sqrt((jxx(x, y) - jyy(x, y)) * (jxx(x, y) - jyy(x, y)) + 4.0f * jxy(x, y) * jxy(x, y));
    out(x, y) = select(tr > 1e-6f, (diff / tr) * (diff / tr), 0.0f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// A 9 x 9 box blur of an interleaved 8-bit RGB 4K image (channels innermost): a row pass and a
// column pass of 16-bit sums, rounded back to 8 bits.
P boxrgb() {
    ImageParam in(UInt(8), 3, "in");
    Expr w = in.dim(1).extent(), h = in.dim(2).extent();
    Func cl("cl"), rows("rows"), cols("cols"), out("out");
    cl(c, x, y) = in(c, clamp(x, 0, w - 1), clamp(y, 0, h - 1));
    RDom k(-4, 9, "k");
    rows(c, x, y) = sum(cast<uint16_t>(cl(c, x + k, y)));
    cols(c, x, y) = sum(cast<uint32_t>(rows(c, x, y + k)));
    out(c, x, y) = cast<uint8_t>((cols(c, x, y) + 40) / 81);
    in.dim(0).set_stride(1);
    in.dim(1).set_stride(3);
    out.output_buffer().dim(0).set_stride(1);
    out.output_buffer().dim(1).set_stride(3);
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// A 5 x 5 bilateral filter of a 2K f32 gray image: each neighbour weighted by its spatial distance
// and by how far its value is from the centre's (sigma_r a Param), divided by the weights' sum.
P bilateral5() {
    ImageParam in(Float(32), 2, "in");
    Param<float> sigma_r("sigma_r");
    sigma_r.set_estimate(0.1f);
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-2, 5, -2, 5, "r");
    Expr d = cl(x + r.x, y + r.y) - cl(x, y);
    Expr wt = exp(-cast<float>(r.x * r.x + r.y * r.y) / 8.0f - d * d / (2.0f * sigma_r * sigma_r));
    Func num("num"), den("den"), out("out");
    num(x, y) = sum(wt * cl(x + r.x, y + r.y));
    den(x, y) = sum(wt);
    out(x, y) = num(x, y) / den(x, y);
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in, sigma_r}};
}

// An unsharp mask of a planar f32 RGB 4K image: a 5-tap binomial blur (taps 1 4 6 4 1 from a Func
// of the tap index) along rows and then columns, and the image plus amount times its difference
// from the blur.
P unsharpsum() {
    ImageParam in(Float(32), 3, "in");
    Param<float> amount("amount");
    amount.set_estimate(0.6f);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func tap("tap"), bx("bx"), by("by"), out("out");
    Var t("t");
    tap(t) = select(t == 0, 6.0f, abs(t) == 1, 4.0f, 1.0f) / 16.0f;
    RDom k(-2, 5, "k");
    bx(x, y, c) = sum(cl(x + k, y, c) * tap(k));
    by(x, y, c) = sum(bx(x, y + k, c) * tap(k));
    out(x, y, c) = cl(x, y, c) + amount * (cl(x, y, c) - by(x, y, c));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, amount}};
}

}  // namespace

void add_pipelines_al(Registry &r) {
    r.emplace("morphopen", morphopen);
    r.emplace("dogsep", dogsep);
    r.emplace("structten", structten);
    r.emplace("boxrgb", boxrgb);
    r.emplace("bilateral5", bilateral5);
    r.emplace("unsharpsum", unsharpsum);
}

}  // namespace user_pipelines
