// What a plan keeps in a block's shared memory must not grow with the sizes the pipeline runs at:
// Halide sizes it when the pipeline runs, and a launch asking for more than a block may have fails
// (docs/any-pipeline.md, "Shared memory at any size"). Each pipeline here is planned for CUDA at its
// estimates, lowered, and its launches evaluated at the estimates and at sizes well beyond them
// (tests/support/lowered_launches.h): threads and shared memory within the device's defaults.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "autosched/model/block_regions.h"
#include "autosched/model/pipeline_funcs.h"
#include "tests/support/lowered_launches.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace shared_at_any_size {

// The launches of `outputs` (planned already) at each of `sizes`: "" where all fit, else what
// does not and where.
std::string launches_at(const std::vector<Func> &outputs, const std::vector<std::map<std::string, int64_t>> &sizes,
                        const std::map<std::string, Expr> &scalars = {}) {
    const Module m = cuda_module(outputs);
    for (size_t i = 0; i < sizes.size(); i++) {
        const std::string beyond = launches_beyond_cuda(cuda_launches(m, sizes[i], scalars));
        if (!beyond.empty()) return "at sizes " + std::to_string(i) + ": " + beyond;
    }
    return "";
}

// Buffer fields of an input `in` and an output `out` of the same extents.
std::map<std::string, int64_t> same_extents(const std::string &in, const std::string &out,
                                            const std::vector<int64_t> &extents) {
    std::map<std::string, int64_t> s;
    add_buffer_sizes(s, in, extents);
    add_buffer_sizes(s, out, extents);
    return s;
}

// Estimates of 48 x 32 x 16 x 2 for input `x` and output `out`; with `fixed`, those extents
// constant too (the pipeline runs at the size it was planned for).
void estimate_48x32x16x2(ImageParam &x, Func &out, bool fixed) {
    const std::vector<int> est{48, 32, 16, 2};
    x.set_estimates({{0, est[0]}, {0, est[1]}, {0, est[2]}, {0, est[3]}});
    out.set_estimates({{0, est[0]}, {0, est[1]}, {0, est[2]}, {0, est[3]}});
    if (fixed)
        for (int d = 0; d < 4; d++) {
            x.dim(d).set_bounds(0, est[size_t(d)]);
            out.output_buffer().dim(d).set_bounds(0, est[size_t(d)]);
        }
}

// An instance norm whose mean weighs each point by its sum over the channels: the row template's
// block owns a (w, h) plane of one channel, and the per-point channel sum, a reduction that the
// block's mean reads over the whole plane, would be computed per block in shared memory over that
// plane: 6 KB at 48 x 32, 512 KB at 512 x 256. With extents known only at run time it is stored
// instead; with constant extents it may stay per block (its size is then the one planned).
TEST(SharedMemoryAtAnySize, APlaneAPerBlockReductionReadsIsStoredWhenItsSizeIsKnownOnlyAtRunTime) {
    for (bool fixed : {false, true}) {
        SCOPED_TRACE(fixed ? "constant extents" : "run-time extents");
        ImageParam x(Float(32), 4, "x");
        Var w("w"), h("h"), c("c"), n("n");
        RDom rc(0, x.dim(2).extent(), "rc"), plane(0, x.dim(0).extent(), 0, x.dim(1).extent(), "plane");
        Func across("across"), weighted("weighted"), out("out");
        across(w, h, n) = 0.0f;
        across(w, h, n) += x(w, h, rc, n);
        weighted(c, n) = 0.0f;
        weighted(c, n) += x(plane.x, plane.y, c, n) * across(plane.x, plane.y, n);
        out(w, h, c, n) = x(w, h, c, n) - weighted(c, n) / cast<float>(x.dim(0).extent() * x.dim(1).extent());
        estimate_48x32x16x2(x, out, fixed);
        const std::string plan = schedule_with_solder({out}, "cuda");
        const bool stored = plan.find("grow with the sizes the pipeline runs at") != std::string::npos;
        EXPECT_EQ(stored, !fixed) << plan;
        std::vector<std::map<std::string, int64_t>> sizes{same_extents(x.name(), out.name(), {48, 32, 16, 2})};
        if (!fixed) sizes.push_back(same_extents(x.name(), out.name(), {512, 256, 32, 2}));
        EXPECT_EQ(launches_at({out}, sizes), "") << plan;
    }
}

// A block's Funcs sized at their largest block: a per-point reduction read at channel c and at
// c - C/2 (clamped at 0) needs one channel in the first block of channels and C/2 + 1 in the
// middle one. Counted at the first, the plan kept 9 planes of 48 x 32 floats per block (55 KB) at
// its own estimate.
TEST(SharedMemoryAtAnySize, ABlockIsSizedByTheLargestBlockNotTheFirst) {
    for (bool fixed : {false, true}) {
        SCOPED_TRACE(fixed ? "constant extents" : "run-time extents");
        ImageParam x(Float(32), 4, "x");
        Var w("w"), h("h"), c("c"), n("n");
        RDom taps(-1, 3, "taps"), plane(0, x.dim(0).extent(), 0, x.dim(1).extent(), "plane");
        Func edge = BoundaryConditions::repeat_edge(x);
        Func smooth("smooth"), halves("halves"), energy("energy"), out("out");
        smooth(w, h, c, n) = 0.0f;
        smooth(w, h, c, n) += edge(w + taps, h, c, n);
        const Expr other = clamp(c - x.dim(2).extent() / 2, 0, x.dim(2).extent() - 1);
        halves(w, h, c, n) = smooth(w, h, c, n) + smooth(w, h, other, n);
        energy(c, n) = 0.0f;
        energy(c, n) += halves(plane.x, plane.y, c, n);
        out(w, h, c, n) = x(w, h, c, n) * energy(c, n);
        estimate_48x32x16x2(x, out, fixed);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_EQ(launches_at({out}, {same_extents(x.name(), out.name(), {48, 32, 16, 2})}), "") << plan;
    }
}

// A scan down the rows whose readers read it through a copy: its tile in shared memory holds every
// step of the scan, as many as the image has rows, known only at run time. Planned at 32 rows, the
// tile took 8 KB; at 256 rows of float64, 64 KB. It keeps no tile of its steps then.
TEST(SharedMemoryAtAnySize, AScanDownARunTimeHeightKeepsNoTileOfItsSteps) {
    ImageParam x(Float(64), 3, "x");
    Var c("c"), w("w"), h("h");
    RDom down(1, x.dim(2).extent() - 1, "down");
    Func cumsum("cumsum"), out("out");
    cumsum(c, w, h) = x(c, w, h);
    cumsum(c, w, down) = cumsum(c, w, down - 1) + x(c, w, down);
    out(c, w, h) = cumsum(c, w, h) * Expr(0.5) + cumsum(c, w, max(h - 1, 0));
    x.set_estimates({{0, 16}, {0, 48}, {0, 32}});
    out.set_estimates({{0, 16}, {0, 48}, {0, 32}});
    const std::string plan = schedule_with_solder({out}, "cuda");
    EXPECT_EQ(launches_at({out}, {same_extents(x.name(), out.name(), {16, 48, 32}),
                                  same_extents(x.name(), out.name(), {16, 512, 4096})}),
              "")
        << plan;
}

// A scan over a parameter's steps keeps its tile of them in shared memory where the parameter
// declares a max (Param::set_range) at which the tile still fits, sized there: the most steps it
// runs. Without one, or with one too large for a tile, the scan keeps no tile (a max beyond what
// the planner analyses, 2^31 - 1 steps over this image, counts as no max).
TEST(SharedMemoryAtAnySize, AScanOverADeclaredRangeOfStepsIsSizedAtItsMax) {
    for (int most : {8, 2000, 0, std::numeric_limits<int>::max()}) {
        SCOPED_TRACE("steps up to " + std::to_string(most));
        ImageParam in(Float(32), 2, "in");
        Param<int> steps("steps");
        steps.set_estimate(5);
        if (most > 0) steps.set_range(1, most);
        Var x("x"), y("y"), t("t");
        Func acc("acc"), out("out");
        acc(x, y, t) = in(x, y);
        RDom r(1, steps, "r");
        acc(x, y, r) = acc(x, y, r - 1) * 0.5f + in(x, y);
        out(x, y) = acc(x, y, steps) - acc(x, y, steps / 2);
        in.set_estimates({{0, 1024}, {0, 256}});
        out.set_estimates({{0, 1024}, {0, 256}});
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_EQ(plan.find("tile in shared memory, written once through a copy") != std::string::npos, most == 8)
            << plan;
        const int run = most > 0 && most <= 2000 ? most : 4096;
        EXPECT_EQ(launches_at({out}, {same_extents(in.name(), out.name(), {1024, 256})}, {{"steps", Expr(run)}}), "")
            << plan;
    }
}

}  // namespace shared_at_any_size

namespace shared_at_any_size {

// Which block shapes need the same regions at every block (blocks_alike), so that the shared-memory
// check asks the first block only: a chain of stencils at the readers' vars plus constants does; a
// product of a clamped image's first rows and columns (c(r, y) * c(x, r): the union of both reads
// spans rows 0 to y, more the farther the block is from row 0) does not, and its largest block
// needs more than its first; nor does a read through a clamp.
TEST(SharedMemoryAtAnySize, OnlyBlocksWhoseReadsMoveAlikeAreAskedOnce) {
    using namespace solder::autosched;
    ImageParam in(Float(32), 2, "alike_in");
    Var x("x"), y("y");
    RDom r(0, 8, "alike_r");
    Func s1("alike_s1"), s2("alike_s2"), prod("alike_prod"), clamped("alike_clamped");
    s1(x, y) = in(x, y) + in(x + 1, y);
    s2(x, y) = s1(x, y - 1) * s1(x, y + 1);
    Func c = BoundaryConditions::repeat_edge(in);
    prod(x, y) = sum(c(r, y) * c(x, r));
    clamped(x, y) = in(x, clamp(y - 64, 0, 255)) + in(x, y);
    for (Func *f : {&s2, &prod, &clamped}) f->set_estimates({{0, 256}, {0, 256}});
    in.set_estimates({{0, 256}, {0, 256}});
    for (Func *f : {&s2, &prod, &clamped}) {
        SCOPED_TRACE(f->name());
        const FuncGraph g = FuncGraph::build({*f});
        int root = -1;
        for (size_t n = 0; n < g.nodes.size(); n++)
            if (g.nodes[n].name == f->name()) root = int(n);
        ASSERT_GE(root, 0);
        // The root's kernel with every Func before it inlined into it (a row of the root per block).
        std::vector<bool> inside(g.nodes.size(), false);
        for (size_t n = 0; n < g.nodes.size(); n++) inside[n] = int(n) != root && !g.nodes[n].is_input;
        const std::vector<int64_t> shape = owning_innermost(2, 1);
        const bool alike = blocks_alike(g, root, inside, shape);
        EXPECT_EQ(alike, f == &s2);
        const auto first = g.regions_for(root, block_region(g.nodes[size_t(root)].region, 1), inside);
        const auto largest = largest_per_block(g, root, g.nodes[size_t(root)].region, shape, inside);
        int64_t first_points = 0, largest_points = 0;
        for (size_t n = 0; n < g.nodes.size(); n++)
            first_points += region_points(first[n]), largest_points += region_points(largest[n]);
        if (f == &s2)
            EXPECT_EQ(largest_points, first_points);
        else
            EXPECT_GT(largest_points, first_points);
    }
}

}  // namespace shared_at_any_size

namespace shared_at_any_size {

// A histogram's chunks keep their bins in shared memory where the bins fit when the pipeline runs,
// and increment the Func's own bins elsewhere. The bins' count a parameter gives (`nbins`), or the
// output's extent where the histogram is the output: the chunks run in a specialization on that
// (autosched/model/run_time_region.h), taken at the estimates, and no launch asks for more than a
// block may have at a count or an extent far beyond them.
TEST(SharedMemoryAtAnySize, BinsWhoseCountIsGivenWhenThePipelineRunsAreInSharedMemoryWhereTheyFit) {
    for (bool param_bins : {true, false}) {
        SCOPED_TRACE(param_bins ? "bins a parameter's count" : "bins the output's extent");
        ImageParam in(Float(32), 2, "in");
        Param<int> nbins("nbins");
        nbins.set_estimate(64);
        Var i("i");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        const Expr count = param_bins ? Expr(nbins) : Expr(256);
        Expr bin = clamp(cast<int>(in(r.x, r.y) * cast<float>(count)), 0, count - 1);
        Func hist("hist"), out("out");
        hist(i) = 0;
        hist(bin) += 1;
        out(i) = hist(i) * 2;
        in.set_estimates({{0, 1024}, {0, 512}});
        out.set_estimates({{0, param_bins ? 64 : 256}});
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("their bins in shared memory where"), std::string::npos) << plan;
        const Module m = cuda_module({out});
        // The chunks' launch at the estimates: 64 or 256 bins of 4 bytes in shared memory.
        auto most_shared = [&](int64_t bins, int64_t out_extent) {
            std::map<std::string, int64_t> sizes;
            add_buffer_sizes(sizes, in.name(), {1024, 512});
            add_buffer_sizes(sizes, out.name(), {out_extent});
            const auto launches = cuda_launches(m, sizes, {{nbins.name(), Expr(int32_t(bins))}});
            EXPECT_EQ(launches_beyond_cuda(launches), "") << bins << " bins, output of " << out_extent;
            int64_t most = 0;
            for (const auto &l : launches) most = std::max(most, l.shape.shared_bytes);
            return most;
        };
        const int64_t est = param_bins ? 64 : 256;
        EXPECT_GE(most_shared(est, est), est * 4);
        // Beyond 8192 bins (32 KB): each increment in global memory.
        EXPECT_EQ(most_shared(param_bins ? 100000 : est, param_bins ? est : 100000), 0);
        EXPECT_EQ(most_shared(param_bins ? 100000 : est, 100000), 0);
    }
}

// A radial profile: each ring's mean about a centre that scalar parameters give, over the whole
// image or, with `disk`, only within a radius (`r.where(radius < 511.5f)`). Built afresh for each
// target (a Func is scheduled once).
struct RadialProfile {
    ImageParam in{UInt(8), 2, "rp_in"};
    Param<float> cx{"rp_cx"}, cy{"rp_cy"};
    Func out{"rp_out"}, rings{"rp_rings"};
    explicit RadialProfile(bool disk) {
        cx.set_estimate(256.0f);
        cy.set_estimate(128.0f);
        Var i("i");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        const Expr fx = cast<float>(r.x) - cx, fy = cast<float>(r.y) - cy;
        const Expr radius = sqrt(fx * fx + fy * fy);
        if (disk) r.where(radius < 511.5f);
        const Expr bin = clamp(cast<int>(radius + 0.5f), 0, 511);
        rings(i) = Tuple(0, 0);
        rings(bin) = Tuple(rings(bin)[0] + cast<int>(in(r.x, r.y)), rings(bin)[1] + 1);
        out(i) = cast<float>(rings(i)[0]) / cast<float>(max(rings(i)[1], 1));
        in.set_estimates({{0, 512}, {0, 256}});
        out.set_estimates({{0, 512}});
    }
};

// The profile's bins' range comes from a square root over the parameters and the input's
// extents: a condition with lets and a call in it, which the schedule's specialization and its
// source both take. The chunks' bins are in shared memory at the estimates and not for an output
// far larger, and the profile matches plain loops on OpenCL at a size and centre apart from the
// estimates.
TEST(SharedMemoryAtAnySize, BinsWhoseRangeASquareRootOfParametersGivesAreInSharedMemoryWhereTheyFit) {
    RadialProfile rp(false);
    const std::string plan = schedule_with_solder({rp.out}, "cuda");
    EXPECT_NE(plan.find("their bins in shared memory where"), std::string::npos) << plan;
    EXPECT_NE(plan.find("Halide::sqrt("), std::string::npos) << plan;
    const Module m = cuda_module({rp.out});
    auto most_shared = [&](int64_t out_extent) {
        std::map<std::string, int64_t> sizes;
        add_buffer_sizes(sizes, rp.in.name(), {512, 256});
        add_buffer_sizes(sizes, rp.out.name(), {out_extent});
        const auto launches = cuda_launches(m, sizes, {{rp.cx.name(), Expr(256.0f)}, {rp.cy.name(), Expr(128.0f)}});
        EXPECT_EQ(launches_beyond_cuda(launches), "") << "output of " << out_extent;
        int64_t most = 0;
        for (const auto &l : launches) most = std::max(most, l.shape.shared_bytes);
        return most;
    };
    EXPECT_GE(most_shared(512), 512 * 8);
    EXPECT_EQ(most_shared(100000), 0);

    for (bool disk : {false, true}) {
        SCOPED_TRACE(disk ? "within a radius" : "the whole image");
        RadialProfile cl(disk);
        const std::string plan_cl = schedule_with_solder({cl.out}, "opencl");
        Pipeline p(cl.out);
        p.compile_jit(solder::make_target("opencl"));
        const int W = 301, H = 77, N = 400;
        const float ox = 97.25f, oy = 12.5f, within = disk ? 511.5f : 1e9f;
        Buffer<uint8_t> im = random_buffer<uint8_t>({W, H}, 7, 0, 255);
        im.set_host_dirty();
        cl.in.set(im);
        cl.cx.set(ox);
        cl.cy.set(oy);
        Buffer<float> got = realize_on<float>(p, {N}, "opencl");
        std::vector<double> sum(N, 0.0);
        std::vector<int> count(N, 0);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const float dx = float(x) - ox, dy = float(y) - oy, rad = std::sqrt(dx * dx + dy * dy);
                if (!(rad < within)) continue;
                const int b = std::min(std::max(int(rad + 0.5f), 0), 511);
                if (b < N) sum[size_t(b)] += im(x, y), count[size_t(b)]++;
            }
        int wrong = 0;
        for (int b = 0; b < N; b++) {
            const double want = sum[size_t(b)] / std::max(count[size_t(b)], 1);
            wrong += std::abs(got(b) - want) > 1e-4 * (1 + std::abs(want));
        }
        EXPECT_EQ(wrong, 0) << plan_cl;
    }
}

// Halide's rfactor keeps, on the stage that merges the chunks, the RDom's predicate relaxed over
// the RVars the chunks took (their bounds substituted): a square root of an interval bound of
// (x - cx)^2 + (y - cy)^2, negative where cx lies inside the image, is NaN and the relaxed test
// false, so the merge skipped every chunk on CUDA (radprof's profile all zero on the H100). A
// predicate that calls such a function takes no chunks (its increments go to the Func's bins),
// and one that does not (a mask) still does.
TEST(SharedMemoryAtAnySize, APredicateWithASquareRootTakesNoChunks) {
    RadialProfile disk(true);
    EXPECT_TRUE(solder::predicate_not_relaxable(disk.rings.function().update(0)));
    const std::string plan = schedule_with_solder({disk.out}, "cuda");
    EXPECT_EQ(plan.find("in chunks"), std::string::npos) << plan;
    EXPECT_NO_THROW(cuda_module({disk.out}));

    ImageParam in(UInt(8), 2, "mk_in");
    Var i("i");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    r.where(in(r.x, r.y) > 3);
    Func hist("mk_hist"), out("mk_out");
    hist(i) = 0;
    hist(cast<int>(in(r.x, r.y))) += 1;
    out(i) = hist(i) * 2;
    in.set_estimates({{0, 1024}, {0, 512}});
    out.set_estimates({{0, 256}});
    EXPECT_FALSE(solder::predicate_not_relaxable(hist.function().update(0)));
    const std::string masked = schedule_with_solder({out}, "cuda");
    EXPECT_NE(masked.find("in chunks"), std::string::npos) << masked;
}

}  // namespace shared_at_any_size
