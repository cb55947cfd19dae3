// Twenty-fifth set: interleaved images as generators declare them (`set_stride` on the buffers, the
// channels innermost and bounded), through the templates other than the pointwise one. A 3 x 3 box
// blur of an interleaved RGB image (stride 3), the luminance of an interleaved RGBA image into a
// planar output, a 2x downsampling of an interleaved RGBA image, and planar RGB packed into
// interleaved RGBA with an opaque alpha.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c");

// Declares `p`'s channels innermost: stride `channels` along x, stride 1 and bounds [0, channels)
// along c.
void interleave(OutputImageParam p, int channels) {
    p.dim(0).set_stride(channels);
    p.dim(2).set_stride(1).set_bounds(0, channels);
}

P ilblur() {
    ImageParam in(UInt(8), 3, "in");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func out("out");
    RDom k(-1, 3, -1, 3, "k");
    out(x, y, c) = cast<uint8_t>((sum(cast<uint16_t>(clamped(x + k.x, y + k.y, c))) + 4) / 9);
    interleave(in, 3);
    interleave(out.output_buffer(), 3);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}

P ilgray() {
    ImageParam in(UInt(8), 3, "in");
    Func gray("gray");
    gray(x, y) = (0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2)) * (in(x, y, 3) / 255.0f);
    interleave(in, 4);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    gray.set_estimates({{0, 3840}, {0, 2160}});
    return {{gray}, {in}};
}

P ildown2() {
    ImageParam in(UInt(8), 3, "in");
    Func out("out");
    Expr s = cast<uint16_t>(in(2 * x, 2 * y, c)) + in(2 * x + 1, 2 * y, c) + in(2 * x, 2 * y + 1, c) +
             in(2 * x + 1, 2 * y + 1, c);
    out(x, y, c) = cast<uint8_t>((s + 2) / 4);
    interleave(in, 4);
    interleave(out.output_buffer(), 4);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 4}});
    return {{out}, {in}};
}

P planar2il() {
    ImageParam in(Float(32), 3, "in");
    Func out("out");
    out(x, y, c) = select(c == 3, cast<uint8_t>(255), cast<uint8_t>(clamp(in(x, y, min(c, 2)), 0.0f, 1.0f) * 255.0f));
    interleave(out.output_buffer(), 4);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_y(Registry &r) {
    r.emplace("ilblur", ilblur);
    r.emplace("ilgray", ilgray);
    r.emplace("ildown2", ildown2);
    r.emplace("planar2il", planar2il);
}

}  // namespace user_pipelines
