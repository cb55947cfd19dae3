// The stencil template's two edge treatments on OpenCL, against plain loops: an image that spans
// a tile in both dims shifts its edge tiles inwards (every tile one shape, so shared memory is
// sized once), a smaller one keeps guarded edge tiles. Both must compute every pixel right,
// including the recomputed ones where shifted tiles overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "apps/app_pipeline.h"
#include "apps/ref_util.h"
#include "autosched/autoschedule.h"
#include "lang/lang.h"
#include "schedules/registry.h"
#include "schedules/stencil_tile/stencil_schedule.h"
#include "schedules/template.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"
#include "tests/support/user_pipeline.h"

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
        solder::testing::estimate_image(in, out, w, h);
    }
};

void expect_blur(int64_t w, int64_t h, bool whole_tiles) {
    Blur b(w, h);
    autosched::Plan plan = solder::testing::plan_for({b.out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    ASSERT_EQ(plan.kernels[0].template_name(), "stencil_tile") << plan.to_text();
    EXPECT_EQ(solder::testing::tile_of(plan.kernels[0]).whole_tiles, whole_tiles) << plan.to_text();
    EXPECT_EQ(plan.to_text().find("edge tiles shifted inwards") != std::string::npos, whole_tiles) << plan.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"tile_in", DType::F32, {h, w}})};
    std::vector<HostBuffer> out{make_host_buffer({"tile_blur_y", DType::F32, {h, w}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < w * h; i++) px[i] = float((i * 7919) % 101) / 16.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, {b.out}, {b.in}, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(whole_tiles ? "TailStrategy::ShiftInwards" : "TailStrategy::GuardWithIf"), std::string::npos)
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

TEST(StencilTiles, ImagesSmallerThanATileKeepGuardedEdges) { expect_blur(kStencilTileX - 3, kStencilTileY + 9, false); }

namespace {

// Harris's middle: gradients of an image (gx, gy: 3-tap stencils of it, clamped at the edges,
// reading the input itself so that they are the tile's first level), their products (cheap
// pointwise Funcs of the gradients), and 3x3 box sums of the products.
struct Products {
    Halide::ImageParam in{Halide::Float(32), 2, "prod_in"};
    Halide::Func out{"prod_out"};
    Halide::Func gx{"prod_gx"}, gy{"prod_gy"}, xx{"prod_xx"}, yy{"prod_yy"}, xy{"prod_xy"};
    Products(int64_t w, int64_t h, bool costly_square) {
        Halide::Var x("x"), y("y");
        auto c = [&](Halide::Expr xx, Halide::Expr yy) {
            return in(Halide::clamp(xx, 0, int(w) - 1), Halide::clamp(yy, 0, int(h) - 1));
        };
        gx(x, y) = c(x + 1, y) - c(x - 1, y);
        gy(x, y) = c(x, y + 1) - c(x, y - 1);
        // costly_square: xx's own arithmetic is more than kMaxInlinedTileOps, so recomputing it at
        // 9 taps would cost more than a tile of it in shared memory.
        xx(x, y) = costly_square ? Halide::sqrt(gx(x, y) * gx(x, y) + 1.0f) * 0.5f + gx(x, y) * 0.25f - 1.0f
                                 : gx(x, y) * gx(x, y);
        yy(x, y) = gy(x, y) * gy(x, y);
        xy(x, y) = gx(x, y) * gy(x, y);
        auto box = [&](Halide::Func f) {
            Halide::Expr s = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) s = s + f(x + dx, y + dy);
            return s;
        };
        out(x, y) = box(xx) * box(yy) - box(xy);
        solder::testing::estimate_image(in, out, w, h);
    }
};

autosched::Placement placement(const autosched::Plan &p, const std::string &f) {
    // Halide names a second Func of the same name `f$1` (another test in this process).
    for (auto &fp : p.funcs)
        if (fp.func == f || fp.func.rfind(f + "$", 0) == 0) return fp.placement;
    ADD_FAILURE() << "no " << f << " in\n" << p.to_text();
    return autosched::Placement::Root;
}

// Runs `plan` on OpenCL over a w x h input named `in_name` (values (i * 7919 % 101) / 32) and checks
// output `out_name` against `ref`, a double evaluation given the clamped input, within 1e-4 of
// max(1, |ref|).
using ClampedInput = std::function<double(int64_t, int64_t)>;
void expect_opencl_matches(const autosched::Plan &plan, const Halide::Func &out, const Halide::ImageParam &in,
                           const std::string &in_name, const std::string &out_name, int64_t w, int64_t h,
                           const std::function<double(const ClampedInput &, int64_t, int64_t)> &ref) {
    std::vector<HostBuffer> ins{make_host_buffer({in_name, DType::F32, {h, w}})};
    std::vector<HostBuffer> outs{make_host_buffer({out_name, DType::F32, {h, w}})};
    float *px = data_as<float>(ins[0]);
    for (int64_t i = 0; i < w * h; i++) px[i] = float((i * 7919) % 101) / 32.0f;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, {out}, {in}, "opencl", ins, outs), "");
    const float *py = data_as<float>(outs[0]);
    const ClampedInput at = [&](int64_t x, int64_t y) {
        return double(px[std::clamp<int64_t>(y, 0, h - 1) * w + std::clamp<int64_t>(x, 0, w - 1)]);
    };
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            const double r = ref(at, x, y);
            ASSERT_NEAR(py[y * w + x], r, 1e-4 * std::max(1.0, std::abs(r))) << "x " << x << " y " << y;
        }
}

}  // namespace

TEST(StencilTiles, CheapProductsOfFewerFuncsAreInlinedAndTheirFactorsStagedInstead) {
    using autosched::Placement;
    const int64_t w = kStencilTileX * 2 + 3, h = kStencilTileY + 6;
    Products p(w, h, false);
    autosched::Plan plan = solder::testing::plan_for({p.out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    ASSERT_EQ(plan.kernels[0].template_name(), "stencil_tile") << plan.to_text();
    // Three products read through the box sums, all of two gradients: the gradients per tile.
    for (auto f : {"prod_gx", "prod_gy"}) EXPECT_EQ(placement(plan, f), Placement::ComputeAtBlock) << f;
    for (auto f : {"prod_xx", "prod_yy", "prod_xy"}) EXPECT_EQ(placement(plan, f), Placement::Inline) << f;
    // (Names as the Funcs have them: a Func named alike earlier in the process is prod_xx$1.)
    const std::string gs = p.gx.name() + ", " + p.gy.name();
    EXPECT_NE(plan.to_text().find(p.xx.name() + ", " + p.xy.name() + ", " + p.yy.name() +
                                  " inlined into their stencil consumers (cheap pointwise functions of " + gs +
                                  "), and " + gs + " computed per tile instead: 2 tiles in shared memory, not 3"),
              std::string::npos)
        << plan.to_text();
    // The host plan keeps the products per tile (the swap was measured on the GPU only).
    autosched::Plan host = solder::testing::plan_for({p.out}, {}, false);
    EXPECT_EQ(placement(host, "prod_xx"), Placement::ComputeAtBlock) << host.to_text();

    expect_opencl_matches(plan, p.out, p.in, "prod_in", "prod_out", w, h,
                          [](const ClampedInput &at, int64_t x, int64_t y) {
                              double sxx = 0, syy = 0, sxy = 0;
                              for (int dy = -1; dy <= 1; dy++)
                                  for (int dx = -1; dx <= 1; dx++) {
                                      const double gx = at(x + dx + 1, y + dy) - at(x + dx - 1, y + dy);
                                      const double gy = at(x + dx, y + dy + 1) - at(x + dx, y + dy - 1);
                                      sxx += gx * gx, syy += gy * gy, sxy += gx * gy;
                                  }
                              return sxx * syy - sxy;
                          });
}

TEST(StencilTiles, CostlyProductsStayStaged) {
    using autosched::Placement;
    // xx too costly to recompute: only yy and xy could go, which would stage gx and gy for them
    // (2 tiles for 2): no swap.
    Products p(kStencilTileX * 2, kStencilTileY * 2, true);
    autosched::Plan plan = solder::testing::plan_for({p.out}, {}, true);
    for (auto f : {"prod_xx", "prod_yy", "prod_xy"}) EXPECT_EQ(placement(plan, f), Placement::ComputeAtBlock) << f;
    EXPECT_EQ(plan.to_text().find("computed per tile instead"), std::string::npos) << plan.to_text();
}

TEST(StencilTiles, CheapStencilsOfStagedFuncsAreRecomputedInRegisters) {
    using autosched::Placement;
    // The blur of the edge tests (which run this plan on OpenCL): its first pass reads only the
    // clamped input, which is staged, and costs a few operations: each thread recomputes it for
    // its column of rows instead of a second tile in shared memory.
    Blur b(kStencilTileX * 2 + 7, kStencilTileY + 5);
    autosched::Plan plan = solder::testing::plan_for({b.out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(placement(plan, "tile_blur_x"), Placement::Inline) << plan.to_text();
    EXPECT_NE(plan.to_text().find("recomputed in each thread's registers from "), std::string::npos) << plan.to_text();
    int staged = 0;
    for (auto &fp : plan.funcs) staged += fp.placement == Placement::ComputeAtBlock;
    EXPECT_EQ(staged, 1) << plan.to_text();
    // Host plans keep both passes per tile (measured on the GPU only).
    autosched::Plan host = solder::testing::plan_for({b.out}, {}, false);
    EXPECT_EQ(placement(host, "tile_blur_x"), Placement::ComputeAtBlock) << host.to_text();
}

namespace {

// Three 3-tap passes of a clamped image, each a stencil of the one before: the second and the
// third are not both recomputed (the third would recompute the second at 3 x 3 taps). `costly`: the
// second pass's recompute would cost more than kMaxRecomputeOpsPerOutput, and it stays per tile.
struct Passes {
    Halide::ImageParam in{Halide::Float(32), 2, "pass_in"};
    Halide::Func out{"pass_out"};
    Passes(int64_t w, int64_t h, bool costly) {
        Halide::Var x("x"), y("y");
        Halide::Func c = Halide::BoundaryConditions::repeat_edge(in);
        Halide::Func p1("pass_1"), p2("pass_2");
        Halide::Expr s1 = c(x - 1, y) + c(x, y) + c(x + 1, y);
        p1(x, y) = costly ? Halide::sqrt(s1 * s1 + 1.0f) : s1;
        p2(x, y) = p1(x, y - 1) - p1(x, y + 1);
        out(x, y) = p2(x - 1, y) + 0.5f * p2(x + 1, y);
        solder::testing::estimate_image(in, out, w, h);
    }
};

void expect_passes(bool costly) {
    using autosched::Placement;
    const int64_t w = kStencilTileX * 2 + 5, h = kStencilTileY + 3;
    Passes p(w, h, costly);
    autosched::Plan plan = solder::testing::plan_for({p.out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    // Cheap: the second pass is recomputed, so the third stays per tile. Costly: the second stays
    // per tile, and the third, cheap, is recomputed from it.
    EXPECT_EQ(placement(plan, "pass_1"), costly ? Placement::ComputeAtBlock : Placement::Inline) << plan.to_text();
    EXPECT_EQ(placement(plan, "pass_2"), costly ? Placement::Inline : Placement::ComputeAtBlock) << plan.to_text();

    expect_opencl_matches(plan, p.out, p.in, "pass_in", "pass_out", w, h,
                          [costly](const ClampedInput &at, int64_t x, int64_t y) {
                              auto p1 = [&](int64_t xx, int64_t yy) {
                                  const double s = at(xx - 1, yy) + at(xx, yy) + at(xx + 1, yy);
                                  return costly ? std::sqrt(s * s + 1.0) : s;
                              };
                              auto p2 = [&](int64_t xx, int64_t yy) { return p1(xx, yy - 1) - p1(xx, yy + 1); };
                              return p2(x - 1, y) + 0.5 * p2(x + 1, y);
                          });
}

}  // namespace

TEST(StencilTiles, OnlyOneLevelOfStencilsIsRecomputed) { expect_passes(false); }

TEST(StencilTiles, CostlyStencilsOfStagedFuncsStayStaged) { expect_passes(true); }

TEST(StencilTiles, ProducersOfWideStencilsStayStaged) {
    using autosched::Placement;
    // A cheap pass under a 9 x 9 box: each thread would recompute it at 9 x (4 + 8) points for its
    // 4 outputs, more than kMaxRecomputeOpsPerOutput; under a 3 x 3 box the same pass is recomputed.
    for (int radius : {4, 1}) {
        Halide::ImageParam in{Halide::Float(32), 2, "wide_in"};
        Halide::Var x("x"), y("y");
        Halide::Func c = Halide::BoundaryConditions::repeat_edge(in);
        Halide::Func p("wide_pass"), out("wide_out");
        p(x, y) = c(x - 1, y) + c(x, y) + c(x + 1, y);
        Halide::Expr s = 0.0f;
        for (int dy = -radius; dy <= radius; dy++)
            for (int dx = -radius; dx <= radius; dx++) s = s + p(x + dx, y + dy);
        out(x, y) = s;
        solder::testing::estimate_image(in, out, 300, 200);
        autosched::Plan plan = solder::testing::plan_for({out}, {}, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        EXPECT_EQ(placement(plan, "wide_pass"), radius > 1 ? Placement::ComputeAtBlock : Placement::Inline)
            << "radius " << radius << "\n"
            << plan.to_text();
    }
}

namespace {

// The PTX of kernel `entry_prefix...` in a CUDA module: from its .entry line to the next one.
std::string kernel_ptx(const Halide::Module &m, const std::string &entry_prefix) {
    for (const auto &b : m.buffers()) {
        std::string text(reinterpret_cast<const char *>(b.data()), b.size_in_bytes());
        size_t at = text.find(".entry " + entry_prefix);
        if (at == std::string::npos) continue;
        size_t end = text.find(".entry ", at + 1);
        return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    }
    return "";
}

}  // namespace

// stencil_chain at 4K, sizes from its input: its first kernel's root is an intermediate, so its
// tiles are guarded at the image's edges and its producers' regions per tile have run-time extents.
// Dealing those producers to threads must not divide by the region's width (a division and a
// remainder by a register per point, in PTX div.s32 / rem.s32, left that kernel bound by integer
// instructions: 217 us on an H200 where the same work without them took 115).
TEST(StencilTiles, ProducersOfAnIntermediateRootAreDealtWithoutDivisions) {
    BuiltPipeline p = build_app_pipeline(*find_app_spec("stencil_chain"), AppSize::Full);
    autosched::PlannerOptions opt;
    auto a = autosched::autoschedule(p.outputs, make_target("cuda"), opt, "stencil_chain");
    Halide::Pipeline pipe(p.outputs);
    Halide::Module m = pipe.compile_to_module(pipe.infer_arguments(), "chain", make_target("cuda"));
    int checked = 0;
    for (const auto &k : a.plan.kernels) {
        if (k.template_name() != "stencil_tile" || !k.outputs.empty() || k.funcs.size() < 2) continue;
        // (A Func renamed unique in this process, "stage1$1", names its kernel "stage1__1".)
        std::string root = k.root;
        for (size_t at; (at = root.find('$')) != std::string::npos;) root.replace(at, 1, "__");
        std::string ptx = kernel_ptx(m, "_kernel_" + root + "_s0");
        ASSERT_FALSE(ptx.empty()) << "no kernel of " << k.root << " in the module";
        EXPECT_EQ(ptx.find("div.s32"), std::string::npos) << k.name;
        EXPECT_EQ(ptx.find("rem.s32"), std::string::npos) << k.name;
        checked++;
    }
    EXPECT_GT(checked, 0) << "no stencil kernel with an intermediate root and producers per tile:\n"
                          << a.plan.to_text();
}

// A bilateral grid's slicing: each pixel reads the blurred grid at its 8 x 8 cell and intensity.
// Computed per 32 x 32 tile of the slicing kernel, the blurred grid would be 5 x 5 cells of 12
// intensities x 2 channels, the block's threads taking its cells (25 of 256 busy) and each walking
// its 24 intensities and channels one after another (316 us on the H200 at 2560 x 1536 where the
// blurs stored took 79): the tiles compute no Func that walks more than a few points per thread
// while most threads idle. (The blurs' own kernel, over the grid's cells, takes tiles of 32 x 32
// cells, each thread walking one intensity and channel.)
TEST(StencilTiles, AGridOfFewCellsPerTileIsNotComputedPerTile) {
    using autosched::Placement;
    Halide::ImageParam in{Halide::Float(32), 2, "sg_in"};
    Halide::Var x("x"), y("y"), z("z"), c("c");
    Halide::Func e = Halide::BoundaryConditions::repeat_edge(in);
    Halide::Func hist("sg_hist"), bz("sg_bz"), bx("sg_bx"), by("sg_by"), out("sg_out");
    Halide::RDom r(0, 8, 0, 8, "sg_r");
    Halide::Expr v = Halide::clamp(e(x * 8 + r.x - 4, y * 8 + r.y - 4), 0.0f, 1.0f);
    hist(x, y, z, c) = 0.0f;
    hist(x, y, Halide::cast<int>(v * 10.0f + 0.5f), c) += Halide::select(c == 0, v, 1.0f);
    bz(x, y, z, c) = hist(x, y, z - 1, c) + 2 * hist(x, y, z, c) + hist(x, y, z + 1, c);
    bx(x, y, z, c) = bz(x - 1, y, z, c) + 2 * bz(x, y, z, c) + bz(x + 1, y, z, c);
    by(x, y, z, c) = bx(x, y - 1, z, c) + 2 * bx(x, y, z, c) + bx(x, y + 1, z, c);
    Halide::Expr zv = Halide::clamp(in(x, y), 0.0f, 1.0f) * 10.0f;
    Halide::Expr zb = Halide::cast<int>(Halide::floor(zv)), zf = zv - Halide::floor(zv);
    auto slice = [&](int ch) { return Halide::lerp(by(x / 8, y / 8, zb, ch), by(x / 8, y / 8, zb + 1, ch), zf); };
    out(x, y) = slice(0) / slice(1);
    solder::testing::estimate_image(in, out, 2560, 1536);
    autosched::Plan plan = solder::testing::plan_for({out}, {}, true);
    EXPECT_NE(placement(plan, "sg_by"), Placement::ComputeAtBlock) << plan.to_text();
}

// Four steps of Perona-Malik diffusion on a 4K image, each reading the step before through its
// own edge clamp (`pm_e2` clamps the first step) at 5 taps, with 4 exps per point: a kernel
// whose root is an intermediate, so its tiles are guarded. Staging an edge clamp per tile costs a
// host-side region evaluation per launch, and a cheap clamp of a stored or input Func is inlined
// instead; but inlining `pm_e2` inlines the first step too, recomputed with its own 5 taps and
// exps at each of the second step's 5 taps (what the clamp alone costs is a few operations). The
// clamp of a step stays computed per tile (or stored), never inlined (Anderson2021 stages the
// first and third steps per block: 341.6 us against Solder's 372.1 with them inlined, H100).
TEST(StencilTiles, AClampOfAStepThatReadsAStencilIsNotInlinedIntoGuardedTiles) {
    Halide::ImageParam in{Halide::Float(32), 2, "pm_in"};
    Halide::Var x("x"), y("y");
    Halide::Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    Halide::Func cur("pm_u0");
    cur(x, y) = in(x, y);
    for (int step = 1; step <= 4; step++) {
        Halide::Func e("pm_e" + std::to_string(step)), next("pm_u" + std::to_string(step));
        e(x, y) = cur(Halide::clamp(x, 0, w - 1), Halide::clamp(y, 0, h - 1));
        auto flux = [&](Halide::Expr d) { return Halide::exp(-(d * d) / 0.0625f) * d; };
        Halide::Expr c = e(x, y);
        next(x, y) =
            c + 0.2f * (flux(e(x, y - 1) - c) + flux(e(x, y + 1) - c) + flux(e(x - 1, y) - c) + flux(e(x + 1, y) - c));
        cur = next;
    }
    Halide::Func out("pm_out");
    out(x, y) = cur(x, y);
    solder::testing::estimate_image(in, out, 3840, 2160);
    autosched::Plan plan = solder::testing::plan_for({out}, {}, true);
    for (const char *clamp_of_a_step : {"pm_e2", "pm_e3", "pm_e4"})
        EXPECT_NE(placement(plan, clamp_of_a_step), autosched::Placement::Inline) << clamp_of_a_step << "\n"
                                                                                  << plan.to_text();
}

// Film grain: a hash's noise per pixel (random_float, dozens of operations) read through an edge
// clamp, blurred 3 x 3 and added to each channel of the image: guarded tiles (the root reads its
// input unclamped). The clamp reads no stencil and neither does the noise inlined into it, so the
// clamp is inlined at the blur's taps, its hash recomputed at each, rather than computed per tile
// with the host sizing every launch's shared memory (measured on the H100 at 4K: 73.6 us inlined,
// 103.6 per tile).
TEST(StencilTiles, ANoiseClampReadingNoStencilIsInlinedIntoGuardedTiles) {
    Halide::ImageParam in{Halide::Float(32), 3, "fg_in"};
    Halide::Param<int> seed("fg_seed");
    Halide::Var x("x"), y("y"), c("c");
    Halide::Func noise("fg_noise"), edge("fg_edge"), soft("fg_soft"), out("fg_out");
    noise(x, y) = Halide::random_float(seed) - 0.5f;
    Halide::Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    edge(x, y) = noise(Halide::clamp(x, 0, w - 1), Halide::clamp(y, 0, h - 1));
    soft(x, y) = (edge(x - 1, y - 1) + 2 * edge(x, y - 1) + edge(x + 1, y - 1) + 2 * edge(x - 1, y) + 4 * edge(x, y) +
                  2 * edge(x + 1, y) + edge(x - 1, y + 1) + 2 * edge(x, y + 1) + edge(x + 1, y + 1)) /
                 16.0f;
    out(x, y, c) = in(x, y, c) + 0.1f * soft(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    autosched::Plan plan = solder::testing::plan_for({out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name(), "stencil_tile") << plan.to_text();
    EXPECT_EQ(placement(plan, "fg_edge"), autosched::Placement::Inline) << plan.to_text();
}

namespace {

// One Richardson-Lucy step, its 5-tap blurs written as users write them with a C++ loop over the
// taps: `f(x + k - 2, y)`, whose first tap Halide builds as `(x + 0) - 2` (read as a remap: the
// blurs are pointwise kernels' inlined reads, or stored). Correct at any size however planned.
struct RichardsonLucyStep {
    Halide::ImageParam in{Halide::Float(32), 2, "rl_in"};
    Halide::Func next{"rl_next"};
    RichardsonLucyStep() {
        using namespace Halide;
        Var x("x"), y("y");
        Func obs("rl_obs");
        Func clamped = BoundaryConditions::repeat_edge(in);
        obs(x, y) = clamped(x, y) + 1.5f;
        const float w[5] = {1, 4, 6, 4, 1};
        auto blur = [&](Func f, const std::string &name) {
            Func bx(name + "_x"), by(name);
            Expr sx = 0.0f, sy = 0.0f;
            for (int k = 0; k < 5; k++) sx += f(x + k - 2, y) * (w[k] / 16);
            bx(x, y) = sx;
            for (int k = 0; k < 5; k++) sy += bx(x, y + k - 2) * (w[k] / 16);
            by(x, y) = sy;
            return by;
        };
        Func conv = blur(obs, "rl_conv"), ratio("rl_ratio");
        ratio(x, y) = obs(x, y) / max(conv(x, y), 1e-3f);
        Func back = blur(ratio, "rl_back");
        next(x, y) = obs(x, y) * back(x, y);
        in.set_estimates({{0, 2048}, {0, 2048}});
        next.set_estimates({{0, 2048}, {0, 2048}});
    }
};

}  // namespace

TEST(StencilTiles, TapsWrittenInAnIndexLoopRunOnOpenCLAtAnySize) {
    for (const std::string &target : solder::testing::user_targets()) {
        RichardsonLucyStep s;
        const std::string plan = solder::testing::schedule_with_solder({s.next}, target);
        Halide::Pipeline p = solder::testing::compiled({s.next}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {1, 1}, {5, 70}}) {
            SCOPED_TRACE(target + " " + std::to_string(w) + "x" + std::to_string(h));
            auto a = solder::testing::random_buffer<float>({w, h}, 17, 0, 1);
            s.in.set(a);
            Halide::Buffer<float> got = solder::testing::realize_on<float>(p, {w, h}, target);
            const float tap[5] = {1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f};
            auto obs = [&](int x, int y) { return double(a(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))) + 1.5; };
            auto blur = [&](auto f, int x, int y) {
                double s2 = 0;
                for (int j = 0; j < 5; j++) {
                    double s1 = 0;
                    for (int k = 0; k < 5; k++) s1 += f(x + k - 2, y + j - 2) * tap[k];
                    s2 += s1 * tap[j];
                }
                return s2;
            };
            auto ratio = [&](int x, int y) { return obs(x, y) / std::max(blur(obs, x, y), 1e-3); };
            EXPECT_TRUE(solder::testing::matches(
                got, [&](auto &q) { return obs(q[0], q[1]) * blur(ratio, q[0], q[1]); }, 1e-4))
                << plan;
        }
    }
}

namespace {

// An unsharp mask whose reads are clamped by hand, as Halide's tutorials clamp them
// (`in(clamp(x + k, 0, w - 1), y)`), not through a BoundaryConditions Func: the blur's passes are
// stencils all the same, computed per tile.
struct HandClampedUnsharp {
    Halide::ImageParam in{Halide::Float(32), 2, "hc_in"};
    Halide::Func out{"hc_out"};
    HandClampedUnsharp() {
        using namespace Halide;
        Var x("x"), y("y");
        Expr W = in.width(), H = in.height();
        Func bx("hc_bx"), by("hc_by");
        Expr sx = 0.0f, sy = 0.0f;
        for (int k = -2; k <= 2; k++) sx += in(clamp(x + k, 0, W - 1), clamp(y, 0, H - 1));
        bx(x, y) = sx / 5;
        for (int k = -2; k <= 2; k++) sy += bx(x, clamp(y + k, 0, H - 1));
        by(x, y) = sy / 5;
        out(x, y) = 2 * in(x, y) - by(x, y);
        in.set_estimates({{0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3840}, {0, 2160}});
    }
};

}  // namespace

TEST(StencilTiles, ReadsClampedByHandAreStencilsComputedPerTile) {
    HandClampedUnsharp u;
    const std::string plan = solder::testing::schedule_with_solder({u.out}, "cuda");
    EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
    EXPECT_NE(plan.find("[stencil_tile"), std::string::npos) << plan;
    EXPECT_NE(plan.find("computed per block: hc_bx"), std::string::npos) << plan;
}

TEST(StencilTiles, ReadsClampedByHandRunOnOpenCLAtAnySize) {
    for (const std::string &target : solder::testing::user_targets()) {
        HandClampedUnsharp u;
        const std::string plan = solder::testing::schedule_with_solder({u.out}, target);
        Halide::Pipeline p = solder::testing::compiled({u.out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {1, 1}, {70, 3}}) {
            SCOPED_TRACE(target + " " + std::to_string(w) + "x" + std::to_string(h));
            auto a = solder::testing::random_buffer<float>({w, h}, 19, -1, 1);
            u.in.set(a);
            Halide::Buffer<float> got = solder::testing::realize_on<float>(p, {w, h}, target);
            auto at = [&](int x, int y) { return double(a(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))); };
            EXPECT_TRUE(solder::testing::matches(
                got,
                [&](auto &q) {
                    double s = 0;
                    for (int j = -2; j <= 2; j++)
                        for (int k = -2; k <= 2; k++) s += at(q[0] + k, q[1] + j);
                    return 2 * at(q[0], q[1]) - s / 25;
                },
                1e-4))
                << plan;
        }
    }
}

// A Func two kernels read through a stencil is computed in neither's tiles (Halide computes a Func
// at one place): each inlines it at every tap, and the stencil template costs it so. A user's
// Horn-Schunck flow, whose u and v kernels both read each iteration, had been costed as staging the
// iterations per tile: modelled 19 us a kernel, measured several times that.
TEST(StencilTiles, AFuncAnotherKernelReadsTooIsCostedAtEveryTap) {
    using namespace solder::autosched;
    Halide::ImageParam in(Halide::Float(32), 2, "twice_in");
    Halide::Var x("x"), y("y");
    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in);
    Halide::Func p("twice_p"), a("twice_a"), b("twice_b");
    p(x, y) = Halide::sqrt(clamped(x, y) * clamped(x, y) + 1.0f) * Halide::exp(clamped(x, y));
    auto taps = [&](int dx) {
        Halide::Expr s = 0.0f;
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++) s += p(x + (i + dx), y + j);
        return s;
    };
    a(x, y) = taps(0);
    b(x, y) = taps(1) * 0.5f;
    solder::testing::estimate_image(in, a, 1024, 1024);
    b.set_estimates({{0, 1024}, {0, 1024}});
    PlannerOptions opt;
    auto member = [](const FuncGraph &g, const char *name) {
        for (size_t i = 0; i < g.nodes.size(); i++)
            if (g.nodes[i].name == name || g.nodes[i].name.rfind(std::string(name) + "$", 0) == 0) return int(i);
        ADD_FAILURE() << name << " is not in the graph";
        return 0;
    };
    auto choice = [&](const std::vector<Halide::Func> &outs) {
        const FuncGraph g = FuncGraph::build(outs);
        std::vector<int> members{member(g, "twice_p")};
        for (size_t i = 0; i < g.nodes.size(); i++)
            if (!g.nodes[i].is_input && !g.nodes[i].is_output && g.nodes[i].name.rfind("twice_p", 0) != 0)
                members.push_back(int(i));  // (the boundary condition)
        std::sort(members.begin(), members.end());
        const KernelContext c(g, opt, member(g, "twice_a"), members);
        const std::optional<KernelChoice> kc = kernel_template(TemplateKind::StencilTile).choose(c);
        EXPECT_TRUE(kc.has_value()) << kernel_template(TemplateKind::StencilTile).why_not(c);
        return kc ? kc->flops : 0.0;
    };
    // a alone: p per tile, once per point and its halo. With b reading p too: 9 evaluations a point.
    const double own = choice({a}), shared = choice({a, b});
    EXPECT_GT(shared, 6 * own) << own << " " << shared;
}
