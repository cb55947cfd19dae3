// User pipelines, twelfth set: a depth-to-space rearrangement (a pixel shuffle: division and
// remainder in every index), three outputs of different shapes from one image (a full-size
// sharpened image, a quarter-size preview and a 0-d mean), a strided and dilated 3 x 3
// convolution, a jump-flooding distance transform (eight passes of a stencil at offsets from 128
// down to 1), a bit-reversal permutation of the rows of a signal, and saturating 8-bit
// arithmetic through widening multiplies.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i"), n("n");

// Depth to space by 2: a (960 x 540, 64 channels) f32 tensor to (1920 x 1080, 16 channels), each
// output pixel from the input's pixel at half its coordinates, in the channel its parities pick.
P pixshuffle() {
    ImageParam in(Float(32), 3, "in");
    Func out("out");
    out(x, y, c) = in(x / 2, y / 2, c * 4 + (y % 2) * 2 + x % 2);
    in.set_estimates({{0, 960}, {0, 540}, {0, 64}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    return {{out}, {in}};
}

// Three outputs of one 4K f32 image: a 3 x 3 sharpening at full size, a preview averaging 4 x 4
// blocks, and the image's mean (a 0-d output).
P multires() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func sharp("sharp"), preview("preview"), mean("mean");
    sharp(x, y) = 5.0f * cl(x, y) - cl(x - 1, y) - cl(x + 1, y) - cl(x, y - 1) - cl(x, y + 1);
    RDom b(0, 4, 0, 4, "b");
    preview(x, y) = sum(cl(4 * x + b.x, 4 * y + b.y)) / 16.0f;
    RDom all(0, in.dim(0).extent(), 0, in.dim(1).extent(), "all");
    mean() = sum(in(all.x, all.y)) / cast<float>(in.dim(0).extent() * in.dim(1).extent());
    in.set_estimates({{0, 3840}, {0, 2160}});
    sharp.set_estimates({{0, 3840}, {0, 2160}});
    preview.set_estimates({{0, 960}, {0, 540}});
    return {{sharp, preview, mean}, {in}};
}

// A 3 x 3 convolution of a 4K f32 image with stride 2 and dilation 2 (taps two pixels apart),
// its 9 weights an input.
P dilconv() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    RDom r(0, 3, 0, 3, "r");
    Func out("out");
    out(x, y) = sum(cl(2 * x + 2 * (r.x - 1), 2 * y + 2 * (r.y - 1)) * w(r.x, r.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 3}, {0, 3}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in, w}};
}

// Jump flooding over a 1024 x 1024 seed map (a seed where the input is above 0.999): each pass
// keeps, at each pixel, the nearest seed among its own and the 8 neighbours' at offsets of 128,
// 64, ... 1 pixels; the output is the distance to it. Seeds are coordinates (a Tuple of two ints).
P jumpflood() {
    ImageParam in(Float(32), 2, "in");
    const int far = 1 << 20;
    Func seed("seed");
    seed(x, y) = Tuple(select(in(x, y) > 0.999f, x, far), select(in(x, y) > 0.999f, y, far));
    Func cur = seed;
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    for (int step = 128; step >= 1; step /= 2) {
        Func cl = BoundaryConditions::repeat_edge(cur, {{0, w}, {0, h}});
        Func next("flood" + std::to_string(step));
        Expr bx = cl(x, y)[0], by = cl(x, y)[1];
        Expr bd = (bx - x) * (bx - x) + (by - y) * (by - y);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (dx == 0 && dy == 0) continue;
                Expr cx = cl(x + dx * step, y + dy * step)[0], cy = cl(x + dx * step, y + dy * step)[1];
                Expr d = (cx - x) * (cx - x) + (cy - y) * (cy - y);
                Expr better = d < bd;
                bx = select(better, cx, bx);
                by = select(better, cy, by);
                bd = select(better, d, bd);
            }
        next(x, y) = Tuple(bx, by);
        cur = next;
    }
    Func out("out");
    Expr dx = cast<float>(cur(x, y)[0] - x), dy = cast<float>(cur(x, y)[1] - y);
    out(x, y) = sqrt(min(dx * dx + dy * dy, 1e9f));
    in.set_estimates({{0, 1024}, {0, 1024}});
    out.set_estimates({{0, 1024}, {0, 1024}});
    return {{out}, {in}};
}

// The 4096 points of each of 512 signals permuted by bit reversal of the point's index (an FFT's
// reordering), scaled: a gather whose index is 12 bit operations on the pure var (clamped, so that
// Halide can bound it).
P bitrev() {
    ImageParam in(Float(32), 2, "in");
    Func out("out");
    Expr r = 0;
    for (int b = 0; b < 12; b++) r = r | (((x >> b) & 1) << (11 - b));
    out(x, n) = in(clamp(r, 0, in.dim(0).extent() - 1), n) * 0.5f;
    in.set_estimates({{0, 4096}, {0, 512}});
    out.set_estimates({{0, 4096}, {0, 512}});
    return {{out}, {in}};
}

// Two 8-bit 4K images blended with 8-bit weights through 16-bit widening multiplies, a rounding
// shift and a saturating add of a third image, back to 8 bits.
P satmix() {
    ImageParam a(UInt(8), 2, "a"), b(UInt(8), 2, "b"), d(UInt(8), 2, "d"), wt(UInt(8), 2, "wt");
    Func out("out");
    Expr w16 = cast<uint16_t>(wt(x, y));
    Expr mix = (cast<uint16_t>(a(x, y)) * w16 + cast<uint16_t>(b(x, y)) * (cast<uint16_t>(255) - w16) + 128) >> 8;
    out(x, y) = saturating_cast<uint8_t>(cast<int16_t>(mix) + cast<int16_t>(d(x, y)) - 64);
    for (ImageParam *p : {&a, &b, &d, &wt}) p->set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {a, b, d, wt}};
}

}  // namespace

void add_pipelines_l(Registry &r) {
    r.emplace("pixshuffle", pixshuffle);
    r.emplace("multires", multires);
    r.emplace("dilconv", dilconv);
    r.emplace("jumpflood", jumpflood);
    r.emplace("bitrev", bitrev);
    r.emplace("satmix", satmix);
}

}  // namespace user_pipelines
