// The stencil template's two edge treatments on OpenCL, against plain loops: an image that spans
// a tile in both dims shifts its edge tiles inwards (every tile one shape, so shared memory is
// sized once), a smaller one keeps guarded edge tiles. Both must compute every pixel right,
// including the recomputed ones where shifted tiles overlap.
#include <gtest/gtest.h>

#include <algorithm>

#include "apps/ref_util.h"
#include "lang/lang.h"
#include "schedules/fused_templates.h"
#include "tests/support/plan_and_run.h"

using namespace solder;

namespace {

// A 3x3 box blur of a clamped image, as the blur app writes it, with a separate first pass so the
// plan computes it per tile.
struct Blur {
    Halide::ImageParam in{Halide::Float(32), 2, "tile_in"};
    Halide::Func out{"tile_blur_y"};
    Blur(int64_t w, int64_t h) {
        Halide::Var x("x"), y("y");
        Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in);
        Halide::Func bx("tile_blur_x");
        bx(x, y) = clamped(x - 1, y) + 2.0f * clamped(x, y) + clamped(x + 1, y);
        out(x, y) = bx(x, y - 1) + 2.0f * bx(x, y) + bx(x, y + 1);
        in.dim(0).set_estimate(0, int(w));
        in.dim(1).set_estimate(0, int(h));
        lang::set_estimates(out, {h, w});
    }
};

void expect_blur(int64_t w, int64_t h, bool whole_tiles) {
    Blur b(w, h);
    autosched::Plan plan = solder::testing::plan_for({b.out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    ASSERT_EQ(plan.kernels[0].template_name, "stencil_tile") << plan.to_text();
    EXPECT_EQ(plan.kernels[0].whole_tiles, whole_tiles) << plan.to_text();
    EXPECT_EQ(plan.to_text().find("edge tiles shifted inwards") != std::string::npos, whole_tiles)
        << plan.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"tile_in", DType::F32, {h, w}})};
    std::vector<HostBuffer> out{make_host_buffer({"tile_blur_y", DType::F32, {h, w}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < w * h; i++) px[i] = float((i * 7919) % 101) / 16.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, {b.out}, {b.in}, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(whole_tiles ? "TailStrategy::ShiftInwards" : "TailStrategy::GuardWithIf"),
              std::string::npos)
        << source;
    const float *py = data_as<float>(out[0]);
    auto at = [&](int64_t x, int64_t y) {
        return px[std::clamp<int64_t>(y, 0, h - 1) * w + std::clamp<int64_t>(x, 0, w - 1)];
    };
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            auto row = [&](int64_t yy) { return at(x - 1, yy) + 2.0f * at(x, yy) + at(x + 1, yy); };
            const float ref = row(y - 1) + 2.0f * row(y) + row(y + 1);
            ASSERT_NEAR(py[y * w + x], ref, 1e-3f * std::max(1.0f, ref)) << "x " << x << " y " << y;
        }
}

}  // namespace

TEST(StencilTiles, ImagesSpanningATileShiftTheirEdgeTilesInwards) {
    // Neither dim a multiple of the tile: the last tiles overlap their neighbours.
    expect_blur(kStencilTileX * 2 + 7, kStencilTileY + 5, true);
}

TEST(StencilTiles, ImagesSmallerThanATileKeepGuardedEdges) {
    expect_blur(kStencilTileX - 3, kStencilTileY + 9, false);
}
