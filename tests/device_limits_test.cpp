// The device's launch limits (autosched/model/device_limits.h): the check itself on hand-made
// kernels, every bundled app's planned launches against those Halide's CUDA code makes, and
// pipelines whose launches broke a limit before: a convolution layer (a user reported
// CUDA_ERROR_INVALID_VALUE from cuLaunchKernel on an H100) and tensors of more than 65535 rows.
// No GPU here: the launches are read off the lowered CUDA host code (tests/support/lowered_launches.h),
// and the pipelines run on the host and on OpenCL (PoCL).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "apps/app_pipeline.h"
#include "autosched/autoschedule.h"
#include "autosched/model/device_limits.h"
#include "autosched/model/options.h"
#include "autosched/planner.h"
#include "lang/lang.h"
#include "runtime/targets.h"
#include "tests/support/lowered_launches.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder;
using namespace solder::autosched;
using namespace solder::testing;

namespace {

std::string violations_text(const std::vector<LimitViolation> &v) {
    std::string s;
    for (auto &x : v) s += x.text() + "\n";
    return s;
}

std::string shapes_text(const std::vector<LaunchShape> &v) {
    std::string s;
    for (auto &x : v)
        s += "  " + x.stage + ": grid " + std::to_string(x.grid[0]) + "x" + std::to_string(x.grid[1]) + "x" +
             std::to_string(x.grid[2]) + ", block " + std::to_string(x.threads[0]) + "x" +
             std::to_string(x.threads[1]) + "x" + std::to_string(x.threads[2]) + ", shared " +
             std::to_string(x.shared_bytes) + "\n";
    return s;
}

std::vector<LaunchShape> planned_shapes(const Plan &p) {
    std::vector<LaunchShape> all;
    for (auto &k : p.kernels) all.insert(all.end(), k.launch_shapes.begin(), k.launch_shapes.end());
    return all;
}

std::vector<LaunchShape> shapes_of(const std::vector<LoweredLaunch> &ls) {
    std::vector<LaunchShape> v;
    for (auto &l : ls) v.push_back(l.shape);
    return v;
}

// Every lowered launch evaluated to numbers, and within the device's limits (Halide's runtime opts in
// to no more than the default shared memory).
::testing::AssertionResult within_limits(const std::vector<LoweredLaunch> &ls) {
    DeviceProfile d;
    d.shared_memory_optin_bytes = 0;
    std::string bad;
    for (auto &l : ls) {
        if (!l.constant) bad += l.kernel + ": a launch dim did not evaluate to a number\n";
        bad += violations_text(check_launch(l.shape, d, l.kernel));
    }
    if (bad.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << bad << shapes_text(shapes_of(ls));
}

// The plan's launches are the lowered ones: the same grids and blocks (in any order: Halide's
// order of kernels need not be the plan's), and no more shared memory than planned (Halide's own
// rounding aside; a negative one is sized on the host at run time, for guarded edge tiles).
// A branch Halide made of a kernel (Func::specialize; the second is named "<kernel>__1") launches
// instead of it, not beside it: where the lowered launches hold more of one shape than the plan, a
// branch of the same shape as its kernel's other branch counts once. (The plan lists the branches
// it makes itself, as a stencil's edge tiles; the writer's aligned-vector branch it does not.)
::testing::AssertionResult same_launches(const Plan &plan, std::vector<LoweredLaunch> lowered) {
    auto base = [](const std::string &k) {
        size_t u = k.rfind("__");
        return u != std::string::npos && u + 2 < k.size() &&
                       k.find_first_not_of("0123456789", u + 2) == std::string::npos
                   ? k.substr(0, u)
                   : k;
    };
    // Two kernels of one stage (a specialization's branches), their suffix dropped and their
    // underscores too: Halide writes a Func named `out$6` (a Func named alike earlier in the
    // process) as out__6 in one kernel's name and out_6 in the other's.
    auto stage_of = [&](const std::string &k) {
        std::string b = base(k);
        b.erase(std::remove(b.begin(), b.end(), '_'), b.end());
        return b;
    };
    auto same_shape = [](const LaunchShape &a, const LaunchShape &b) {
        return std::equal(a.grid, a.grid + 3, b.grid) && std::equal(a.threads, a.threads + 3, b.threads);
    };
    const std::vector<LaunchShape> in_plan = planned_shapes(plan);
    auto count = [&](const LaunchShape &x, const auto &list, auto shape_of) {
        return std::count_if(list.begin(), list.end(), [&](const auto &e) { return same_shape(shape_of(e), x); });
    };
    auto lowered_shape = [](const LoweredLaunch &l) -> const LaunchShape & { return l.shape; };
    auto plan_shape = [](const LaunchShape &l) -> const LaunchShape & { return l; };
    for (size_t i = 0; i < lowered.size(); i++) {
        const LoweredLaunch &l = lowered[i];
        if (base(l.kernel) == l.kernel || count(l.shape, lowered, lowered_shape) <= count(l.shape, in_plan, plan_shape))
            continue;
        bool sibling = false;
        for (auto &k : lowered)
            sibling = sibling || (&k != &l && stage_of(k.kernel) == stage_of(l.kernel) && same_shape(k.shape, l.shape));
        if (sibling) lowered.erase(lowered.begin() + long(i--));
    }
    auto order = [](const LaunchShape &x, const LaunchShape &y) {
        return std::make_tuple(x.grid[0], x.grid[1], x.grid[2], x.threads[0], x.threads[1], x.threads[2]) <
               std::make_tuple(y.grid[0], y.grid[1], y.grid[2], y.threads[0], y.threads[1], y.threads[2]);
    };
    std::vector<LaunchShape> planned = planned_shapes(plan);
    std::sort(planned.begin(), planned.end(), order);
    std::sort(lowered.begin(), lowered.end(), [&](auto &x, auto &y) { return order(x.shape, y.shape); });
    bool same = lowered.size() == planned.size();
    for (size_t i = 0; same && i < planned.size(); i++) {
        for (int d = 0; d < 3; d++)
            same = same && planned[i].grid[d] == lowered[i].shape.grid[d] &&
                   planned[i].threads[d] == lowered[i].shape.threads[d];
        same = same && lowered[i].shape.shared_bytes <= planned[i].shared_bytes + 64;
    }
    if (same) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "planned:\n"
                                         << shapes_text(planned) << "lowered:\n"
                                         << shapes_text(shapes_of(lowered));
}

// Planned for CUDA as the plugin plans (no shared-memory opt-in), applied to the Funcs.
Plan plan_for_cuda(const std::vector<Func> &outputs, PlannerOptions opt = {}) {
    opt.device.shared_memory_optin_bytes = 0;
    return autoschedule(outputs, make_target("cuda"), opt, "test").plan;
}

::testing::AssertionResult plan_within_limits(const Plan &p) {
    DeviceProfile d;
    d.shared_memory_optin_bytes = 0;
    auto v = check_device_limits(p, d);
    for (auto &k : p.kernels)
        if (k.launch_shapes.empty()) return ::testing::AssertionFailure() << k.name << " has no launches worked out";
    if (v.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << violations_text(v) << p.to_text();
}

// Buffer fields at the estimates of a built app's inputs and outputs, for lowered_cuda_launches.
std::map<std::string, int64_t> estimate_sizes(const BuiltPipeline &p) {
    std::map<std::string, int64_t> sizes;
    for (auto &in : p.inputs) {
        std::vector<int64_t> e;
        for (int d = 0; d < in.dimensions(); d++)
            e.push_back(*Internal::as_const_int(in.parameter().extent_constraint_estimate(d)));
        add_buffer_sizes(sizes, in.name(), e);
    }
    for (auto &f : p.outputs) {
        std::vector<int64_t> e;
        for (auto &arg : f.function().args())
            for (auto &b : f.function().schedule().estimates())
                if (b.var == arg) e.push_back(*Internal::as_const_int(b.extent));
        add_buffer_sizes(sizes, f.name(), e);
    }
    return sizes;
}

// The scalar parameters of a built app at their estimates (the values it is planned at).
std::map<std::string, Expr> estimate_scalars(const BuiltPipeline &p) {
    std::map<std::string, Expr> v;
    for (auto &a : p.scalars) v[a.name] = a.argument_estimates.scalar_estimate;
    return v;
}

}  // namespace

// The check on hand-made kernels: one launch within every limit, then one beyond each in turn.
TEST(DeviceLimits, CheckFlagsEachLimit) {
    DeviceProfile d;
    d.shared_memory_optin_bytes = 0;  // as the plugin: 48 KB
    KernelPlan k;
    k.name = "k0_f";
    LaunchShape ok;
    ok.stage = "f";
    ok.grid[0] = 2147483647, ok.grid[1] = 65535, ok.grid[2] = 65535;
    ok.threads[0] = 32, ok.threads[1] = 32;  // 1024
    ok.shared_bytes = 48 * 1024;
    k.launch_shapes = {ok};
    EXPECT_TRUE(check_device_limits(k, d).empty()) << violations_text(check_device_limits(k, d));

    struct Case {
        Limit limit;
        std::function<void(LaunchShape &)> change;
        int64_t value, max;
    };
    const std::vector<Case> cases = {
        {Limit::ThreadsPerBlock, [](LaunchShape &s) { s.threads[2] = 2; }, 2048, 1024},
        {Limit::GridX, [](LaunchShape &s) { s.grid[0] = 2147483648LL; }, 2147483648LL, 2147483647},
        {Limit::GridY, [](LaunchShape &s) { s.grid[1] = 65536; }, 65536, 65535},
        {Limit::GridZ, [](LaunchShape &s) { s.grid[2] = 70000; }, 70000, 65535},
        {Limit::SharedMemory, [](LaunchShape &s) { s.shared_bytes = 48 * 1024 + 1; }, 48 * 1024 + 1, 48 * 1024},
    };
    for (auto &c : cases) {
        SCOPED_TRACE(limit_name(c.limit));
        KernelPlan bad = k;
        c.change(bad.launch_shapes[0]);
        auto v = check_device_limits(bad, d);
        ASSERT_FALSE(v.empty());
        EXPECT_EQ(v[0].limit, c.limit);
        EXPECT_EQ(v[0].value, c.value);
        EXPECT_EQ(v[0].max, c.max);
        EXPECT_EQ(v[0].kernel, "k0_f");
        EXPECT_NE(v[0].text().find("f's launch needs " + std::to_string(c.value)), std::string::npos) << v[0].text();
    }
    // More than 1024 threads also needs more registers than a block has, at Halide's 64 per thread.
    KernelPlan wide = k;
    wide.launch_shapes[0].threads[0] = 64;
    auto v = check_device_limits(wide, d);
    ASSERT_EQ(v.size(), 2u) << violations_text(v);
    EXPECT_EQ(v[1].limit, Limit::Registers);
    EXPECT_EQ(v[1].value, 2048 * 64);
    // Opted in (Solder's own libraries), a block may have the device's 227 KB; not one byte more.
    KernelPlan big = k;
    big.launch_shapes[0].shared_bytes = 227 * 1024;
    EXPECT_FALSE(check_device_limits(big, d).empty());
    d.shared_memory_optin_bytes = 227 * 1024;
    EXPECT_TRUE(check_device_limits(big, d).empty());
    big.launch_shapes[0].shared_bytes++;
    EXPECT_FALSE(check_device_limits(big, d).empty());
    // A plan's violations are its kernels'.
    Plan p;
    p.kernels = {k, wide, big};
    EXPECT_EQ(check_device_limits(p, d).size(), 3u) << violations_text(check_device_limits(p, d));
}

// The grid a template maps its block dims to: up to three, the rest fused into z; the whole-point
// dims fused into x before the tile counts; or all in x.
TEST(DeviceLimits, GridOfBlockDims) {
    LaunchShape s;
    auto grid = [&] { return std::vector<int64_t>{s.grid[0], s.grid[1], s.grid[2]}; };
    set_grid(s, {10, 20, 30, 40}, 1, GridMap::Three);
    EXPECT_EQ(grid(), (std::vector<int64_t>{10, 20, 1200}));
    set_grid(s, {10, 20, 30, 40}, 1, GridMap::OuterInX);  // 10 tiles; 20 x 30 x 40 rows
    EXPECT_EQ(grid(), (std::vector<int64_t>{24000, 10, 1}));
    set_grid(s, {10, 20, 30, 40}, 2, GridMap::OuterInX);  // 10 x 20 tiles
    EXPECT_EQ(grid(), (std::vector<int64_t>{1200, 10, 20}));
    set_grid(s, {10, 20}, 2, GridMap::OuterInX);  // tiles only: as they are
    EXPECT_EQ(grid(), (std::vector<int64_t>{10, 20, 1}));
    set_grid(s, {10, 20, 30, 40}, 1, GridMap::AllInX);
    EXPECT_EQ(grid(), (std::vector<int64_t>{240000, 1, 1}));
}

// Every bundled app planned for CUDA (by default, and with the knobs that reach the templates the
// default plans do not: inner-outer, staged rows, block reductions): within the limits, and its
// planned launches are the ones Halide's code makes at the planning estimates (so the check sees
// what the device would).
class PlannedLaunches : public ::testing::TestWithParam<std::tuple<std::string, std::string, bool>> {};

TEST_P(PlannedLaunches, AreHalides) {
    const auto &[name, knob, small] = GetParam();
    BuiltPipeline p = build_app_pipeline(*find_app_spec(name), small ? AppSize::Small : AppSize::Full);
    SolderOptions so;
    if (!knob.empty()) so.enable(knob);
    PlannerOptions opt = so.planner;
    auto a = autoschedule(p.outputs, make_target("cuda"), opt, name);
    const auto v = check_device_limits(a.plan, opt.device);
    EXPECT_TRUE(v.empty()) << violations_text(v);
    EXPECT_TRUE(same_launches(a.plan, lowered_cuda_launches(p.outputs, estimate_sizes(p), estimate_scalars(p))))
        << a.plan.to_text();
}

std::vector<std::tuple<std::string, std::string, bool>> app_knobs() {
    std::vector<std::tuple<std::string, std::string, bool>> v;
    for (const AppSpec &app : all_app_specs()) v.push_back({app.name, "", false});
    v.push_back({"nvfuser_2146", "fewest_bytes", false});
    for (const char *app : {"rmsnorm", "layernorm", "softmax", "puzzler_slices"}) v.push_back({app, "staging", true});
    return v;
}

INSTANTIATE_TEST_SUITE_P(DeviceLimits, PlannedLaunches, ::testing::ValuesIn(app_knobs()), [](const auto &info) {
    const std::string &knob = std::get<1>(info.param);
    return std::get<0>(info.param) + (knob.empty() ? std::string() : "_" + knob) +
           (std::get<2>(info.param) ? "_small" : "");
});

namespace {

// Rows x cols row sums under the block-reduction template (single_kernel_groups, which no bundled
// app's plan takes): one block per row, its planned launch as Halide lowers it.
void expect_block_reduction_launch_is_halides(const std::string &input, int64_t rows, int64_t cols) {
    lang::Graph g;
    lang::Tensor x = g.input(input, lang::DType::F32, {rows, cols});
    lang::Tensor s = lang::sum(x, {-1});
    lang::set_estimates(s.func, s.shape);
    SolderOptions so;
    so.enable("single_kernel_groups");
    PlannerOptions opt = so.planner;
    auto a = autoschedule({s.func}, make_target("cuda"), opt, "sum");
    ASSERT_EQ(a.plan.kernels.at(0).template_name(), "block_reduction") << a.plan.to_text();
    std::map<std::string, int64_t> sizes;
    add_buffer_sizes(sizes, input, {cols, rows});
    add_buffer_sizes(sizes, s.func.name(), {rows});
    EXPECT_TRUE(same_launches(a.plan, lowered_cuda_launches({s.func}, sizes))) << a.plan.to_text();
}

}  // namespace

// 5 rows of 3001: 256 lanes and the second level of partials.
TEST(DeviceLimits, BlockReductionLaunchIsHalides) { expect_block_reduction_launch_is_halides("sx", 5, 3001); }

// A block reduction over fewer points than the block's 256 lanes (a 7 x 7 search window's weights):
// Halide bounds the lanes' loop by the reduction's extent, and the planned launch has that many.
// (16384 of them: 65536 would take a thread each.)
TEST(DeviceLimits, BlockReductionOverFewerPointsThanLanesIsHalides) {
    expect_block_reduction_launch_is_halides("wx", 16384, 49);
}

// Staged rows in a block of several rows (staging, on a GPU of one SM: 8 rows of 512 per block) are
// loaded by the block's own threads, 32 along each row: 256 along each, the block had 2048 threads.
TEST(DeviceLimits, StagedRowsOfSeveralRowsPerBlockIsHalides) {
    const int64_t R = 512, C = 512;  // (tests/row_shapes_test.cpp's layer norm)
    lang::Graph g;
    lang::Tensor x = g.input("rx", lang::DType::F32, {R, C});
    lang::Tensor xs = x * 0.5;
    lang::Tensor d = xs - lang::mean(xs, {-1}, true);
    lang::Tensor y = d * lang::rsqrt(lang::mean(d * d, {-1}, true) + 1e-5);
    lang::set_estimates(y.func, y.shape);
    lang::declare_dense(y.func.output_buffer(), y.shape);
    SolderOptions so;
    so.enable("staging");
    PlannerOptions opt = so.planner;
    opt.device.sms = 1;
    opt.device.blocks_per_sm_to_fill = 1;
    auto a = autoschedule({y.func}, make_target("cuda"), opt, "norm");
    ASSERT_EQ(a.plan.kernels.size(), 1u) << a.plan.to_text();
    EXPECT_EQ(a.plan.kernels[0].rows_per_block(), 8) << a.plan.to_text();
    EXPECT_EQ(a.plan.kernels[0].staged().size(), 1u) << a.plan.to_text();
    EXPECT_TRUE(plan_within_limits(a.plan));
    std::map<std::string, int64_t> sizes;
    add_buffer_sizes(sizes, "rx", {C, R});
    add_buffer_sizes(sizes, y.func.name(), {C, R});
    EXPECT_TRUE(same_launches(a.plan, lowered_cuda_launches({y.func}, sizes))) << a.plan.to_text();
}

namespace {

// A convolution layer as Halide users write it: input N x C x H x W (x innermost), weights
// KW x KH x C_in x C_out, a bias per output channel, zero padding, an RDom over the input channels
// and the window whose extents come from the inputs, then ReLU. `relu` false: the convolution is the
// output itself (its update the last stage).
struct ConvLayer {
    ImageParam input{Float(32), 4, "input"}, weights{Float(32), 4, "weights"}, bias{Float(32), 1, "bias"};
    Func out;
};

ConvLayer conv_layer(int n, int ci, int co, int w, int h, bool relu = true) {
    ConvLayer L;
    Var x("x"), y("y"), c("c"), b("n");
    Func padded = BoundaryConditions::constant_exterior(L.input, 0.f);
    RDom r(0, L.input.dim(2).extent(), 0, L.weights.dim(0).extent(), 0, L.weights.dim(1).extent(), "r");
    Expr kx = L.weights.dim(0).extent() / 2, ky = L.weights.dim(1).extent() / 2;
    Func conv("conv");
    conv(x, y, c, b) = L.bias(c);
    conv(x, y, c, b) += L.weights(r.y, r.z, r.x, c) * padded(x + r.y - kx, y + r.z - ky, r.x, b);
    if (relu) {
        L.out = Func("relu");
        L.out(x, y, c, b) = max(conv(x, y, c, b), 0.f);
    } else {
        L.out = conv;
    }
    L.input.set_estimates({{0, w}, {0, h}, {0, ci}, {0, n}});
    L.weights.set_estimates({{0, 3}, {0, 3}, {0, ci}, {0, co}});
    L.bias.set_estimates({{0, co}});
    L.out.set_estimates({{0, w}, {0, h}, {0, co}, {0, n}});
    return L;
}

// The buffer fields of a convolution run at these sizes.
std::map<std::string, int64_t> conv_sizes(const ConvLayer &L, int64_t n, int64_t ci, int64_t co, int64_t w, int64_t h) {
    std::map<std::string, int64_t> s;
    add_buffer_sizes(s, L.input.name(), {w, h, ci, n});
    add_buffer_sizes(s, L.weights.name(), {3, 3, ci, co});
    add_buffer_sizes(s, L.bias.name(), {co});
    add_buffer_sizes(s, L.out.name(), {w, h, co, n});
    return s;
}

}  // namespace

// The reported layer: planned at its estimates (batch 8, 64 channels, 56 x 56) every launch is
// within the limits, and the CUDA code keeps them at sizes the old schedules broke: batch x channels
// of 65536 (the channel and batch dims were fused into grid z) and rows of 2048 (the convolution,
// computed per row in its consumer's block, had a thread per point of the row).
TEST(DeviceLimits, ConvolutionLayerLaunchesWithinLimitsAtAnySize) {
    for (bool relu : {true, false}) {
        SCOPED_TRACE(relu ? "conv + relu" : "conv alone");
        ConvLayer L = conv_layer(8, 64, 64, 56, 56, relu);
        Plan p = plan_for_cuda({L.out});
        EXPECT_TRUE(plan_within_limits(p));
        for (auto [n, ci, co, w, h] : std::vector<std::array<int64_t, 5>>{
                 {8, 64, 64, 56, 56}, {256, 256, 256, 14, 14}, {1024, 64, 64, 8, 8}, {1, 3, 16, 2048, 1024}}) {
            SCOPED_TRACE("N " + std::to_string(n) + ", C " + std::to_string(ci) + ", " + std::to_string(w) + "x" +
                         std::to_string(h));
            EXPECT_TRUE(within_limits(lowered_cuda_launches({L.out}, conv_sizes(L, n, ci, co, w, h)))) << p.to_text();
        }
    }
    // Planned at batch 256 x 256 channels, where the layer's own kernel had 65536 blocks along z.
    ConvLayer big = conv_layer(256, 256, 256, 56, 56, false);
    Plan p = plan_for_cuda({big.out});
    EXPECT_TRUE(plan_within_limits(p));
    EXPECT_TRUE(within_limits(lowered_cuda_launches({big.out}, conv_sizes(big, 256, 256, 256, 56, 56))));
}

// The same layer, scheduled as the plugin does, against a plain C++ convolution at reduced sizes.
TEST(DeviceLimits, ConvolutionLayerMatchesReferenceOnOpenCL) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ConvLayer L = conv_layer(8, 64, 64, 56, 56);
        std::string plan = schedule_with_solder({L.out}, target);
        Pipeline pipe(L.out);
        pipe.compile_jit(make_target(target));
        for (auto [n, ci, co, w, h] :
             std::vector<std::array<int, 5>>{{2, 5, 3, 13, 11}, {1, 1, 1, 1, 1}, {3, 8, 4, 37, 29}}) {
            SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(ci) + "x" + std::to_string(h) + "x" +
                         std::to_string(w) + " -> " + std::to_string(co) + " channels");
            auto in = random_buffer<float>({w, h, ci, n}, 11, -1, 1);
            auto wt = random_buffer<float>({3, 3, ci, co}, 12, -1, 1);
            auto bs = random_buffer<float>({co}, 13, -1, 1);
            L.input.set(in);
            L.weights.set(wt);
            L.bias.set(bs);
            Buffer<float> o = pipe.realize({w, h, co, n}, make_target(target));
            o.copy_to_host();
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = bs(q[2]);
                    for (int c = 0; c < ci; c++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++) {
                                const int xx = q[0] + kx - 1, yy = q[1] + ky - 1;
                                if (xx >= 0 && xx < w && yy >= 0 && yy < h)
                                    s += double(wt(kx, ky, c, q[2])) * in(xx, yy, c, q[3]);
                            }
                    return std::max(s, 0.0);
                },
                1e-4))
                << plan;
        }
    }
}

namespace {

// out = in x 2 + 1 over in's extents: the pointwise template's blocks over its outer dims.
Func scaled(ImageParam &in) {
    std::vector<Var> v(size_t(in.dimensions()));
    std::vector<Expr> args(v.begin(), v.end());
    Func out("scaled");
    out(args) = in(args)*2.f + 1.f;
    return out;
}

// Rows of 16 less their mean, 70000 x 2 rows: the row template's blocks over the rows.
Func centred(ImageParam &in) {
    Var x("x"), y("y"), z("z");
    RDom r(0, in.dim(0).extent(), "r");
    Func mean("mean"), out("centred");
    mean(y, z) = sum(in(r, y, z)) / cast<float>(in.dim(0).extent());
    out(x, y, z) = in(x, y, z) - mean(y, z);
    return out;
}

}  // namespace

// More than 65535 rows: the pointwise template mapped the rows to grid y, the row template its
// second block dim; both now keep y and z within 65535, at the estimate (the check) and in the
// CUDA code at that size; and the pipelines still compute the right values.
TEST(DeviceLimits, RowsBeyondGridYStayInGridXOnOpenCL) {
    struct Case {
        std::string what;
        std::vector<int> shape;  // innermost first
        std::function<Func(ImageParam &)> build;
        std::function<float(const Buffer<float> &, const std::vector<int> &)> ref;
    };
    const std::vector<Case> cases = {
        {"pointwise 70000 x 8", {8, 70000}, scaled, [](auto &a, auto &q) { return a(q[0], q[1]) * 2.f + 1.f; }},
        {"pointwise 4 x 70000 x 4",
         {4, 70000, 4},
         scaled,
         [](auto &a, auto &q) { return a(q[0], q[1], q[2]) * 2.f + 1.f; }},
        {"row 70000 x 2 x 16",
         {16, 2, 70000},
         centred,
         [](auto &a, auto &q) {
             double m = 0;
             for (int i = 0; i < 16; i++) m += a(i, q[1], q[2]);
             return float(a(q[0], q[1], q[2]) - m / 16);
         }},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        for (bool fixed : {false, true}) {
            SCOPED_TRACE(fixed ? "sizes fixed" : "sizes known at run time");
            for (auto &target : std::vector<std::string>{"cuda", "host", "opencl"}) {
                SCOPED_TRACE("target " + target);
                ImageParam in(Float(32), int(c.shape.size()), "in");
                Func out = c.build(in);
                for (size_t d = 0; d < c.shape.size(); d++) {
                    in.dim(int(d)).set_estimate(0, c.shape[d]);
                    out.set_estimate(out.args()[d], 0, c.shape[d]);
                    if (fixed) {
                        in.dim(int(d)).set_bounds(0, c.shape[d]);
                        out.output_buffer().dim(int(d)).set_bounds(0, c.shape[d]);
                    }
                }
                if (target == "cuda") {
                    Plan p = plan_for_cuda({out});
                    ASSERT_TRUE(plan_within_limits(p));
                    for (auto &k : p.kernels)
                        for (auto &s : k.launch_shapes) {
                            EXPECT_LE(s.grid[1], 65535) << p.to_text();
                            EXPECT_LE(s.grid[2], 65535) << p.to_text();
                        }
                    // Fixed sizes: folded because the planned grid broke the limit, and saying so.
                    // (Narrow pointwise rows share blocks, 128 or 256 of them each: their grid fits.)
                    const auto *pw = p.kernels.back().get<PointwiseParams>();
                    if (fixed && !(pw && pw->threads_y > 1)) {
                        EXPECT_TRUE(p.kernels.back().grid_in_x) << p.to_text();
                        EXPECT_NE(p.to_text().find("block dims fused into grid x: "), std::string::npos) << p.to_text();
                        EXPECT_NE(p.to_text().find("70000 blocks along grid "), std::string::npos) << p.to_text();
                    }
                    std::map<std::string, int64_t> sizes;
                    std::vector<int64_t> e(c.shape.begin(), c.shape.end());
                    add_buffer_sizes(sizes, in.name(), e);
                    add_buffer_sizes(sizes, out.name(), e);
                    EXPECT_TRUE(within_limits(lowered_cuda_launches({out}, sizes))) << p.to_text();
                    continue;
                }
                std::string plan = schedule_with_solder({out}, target);
                auto a = random_buffer<float>(c.shape, 21, -1, 1);
                in.set(a);
                Pipeline pipe(out);
                Buffer<float> o = pipe.realize(c.shape, make_target(target));
                o.copy_to_host();
                EXPECT_TRUE(matches(
                    o, [&](auto &q) { return c.ref(a, q); }, 1e-5))
                    << plan;
            }
        }
    }
}

// A row kernel whose per-block Funcs fit the template's own count (48404 bytes: a reduction over
// a 12100-point row and a row sum) but not once the row sum's partials across the block's 256
// lanes are added (49492 bytes, above 48 KB): the planner falls back to the generic template for
// that root, saying why, and the pipeline stays correct.
TEST(DeviceLimits, KernelBeyondSharedMemoryFallsBackToGenericOnOpenCL) {
    const int W = 12100, H = 600;
    for (auto &target : std::vector<std::string>{"cuda", "opencl"}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        RDom r(0, in.dim(0).extent(), "r"), k(1, 2, "k");
        Func a("a"), m("m"), out("out");
        a(x, y) = 0.f;
        a(x, y) += in(x, y) * cast<float>(k);  // 3 x in, as a reduction per point
        m(y) = sum(in(r, y));
        out(x, y) = a(x, y) - m(y);
        in.dim(0).set_bounds(0, W).dim(1).set_bounds(0, H);
        out.output_buffer().dim(0).set_bounds(0, W).dim(1).set_bounds(0, H);
        in.set_estimates({{0, W}, {0, H}});
        out.set_estimates({{0, W}, {0, H}});
        if (target == "cuda") {
            Plan p = plan_for_cuda({out});
            EXPECT_TRUE(plan_within_limits(p));
            const std::string text = p.to_text();
            EXPECT_NE(text.find("generic template: its row kernel would break a device limit at the planned size: " +
                                out.name() +
                                "'s launch needs 49492 bytes of shared memory per block, above the device's 49152"),
                      std::string::npos)
                << text;
            std::map<std::string, int64_t> sizes;
            add_buffer_sizes(sizes, in.name(), {W, H});
            add_buffer_sizes(sizes, out.name(), {W, H});
            EXPECT_TRUE(within_limits(lowered_cuda_launches({out}, sizes))) << text;
            continue;
        }
        std::string plan = schedule_with_solder({out}, target);
        auto ai = random_buffer<float>({W, H}, 31, -1, 1);
        in.set(ai);
        Buffer<float> o = Pipeline(out).realize({W, H}, make_target(target));
        o.copy_to_host();
        std::vector<double> sums(H);
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++) sums[size_t(j)] += ai(i, j);
        EXPECT_TRUE(matches(
            o, [&](auto &q) { return 3.0 * ai(q[0], q[1]) - sums[size_t(q[1])]; }, 2e-3))
            << plan;
    }
}

// A 3 x 3 box over every channel of a batch (N x C x H x W: the stencil template's 32 x 32 tiles,
// the channel and batch dims as a further grid dim), whose sizes are fixed or known only at run time.
struct BatchedBox {
    ImageParam in{Float(32), 4, "bin"};
    Func by{"by"};
    BatchedBox(const std::vector<int> &shape, bool fixed) {
        Var x("x"), y("y"), c("c"), n("n");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func bx("bx");
        bx(x, y, c, n) = clamped(x - 1, y, c, n) + clamped(x, y, c, n) + clamped(x + 1, y, c, n);
        by(x, y, c, n) = bx(x, y - 1, c, n) + bx(x, y, c, n) + bx(x, y + 1, c, n);
        for (int d = 0; d < 4; d++) {
            in.dim(d).set_estimate(0, shape[size_t(d)]);
            by.set_estimate(by.args()[size_t(d)], 0, shape[size_t(d)]);
            if (fixed) {
                in.dim(d).set_bounds(0, shape[size_t(d)]);
                by.output_buffer().dim(d).set_bounds(0, shape[size_t(d)]);
            }
        }
    }
};

// At most three grid dims (a fourth block loop is one Halide refuses: the fixed-size plan of 6 x 6
// planes did not compile), within the limits (90000 planes: above 65535 along z), as planned; and
// the right values on OpenCL.
TEST(DeviceLimits, BatchedStencilKeepsItsGridWithinLimitsOnOpenCL) {
    for (auto [fixed, planes] : std::vector<std::pair<bool, int>>{{true, 300}, {false, 300}, {true, 6}, {false, 6}}) {
        SCOPED_TRACE(std::string(fixed ? "sizes fixed" : "sizes known at run time") + ", " + std::to_string(planes) +
                     " x " + std::to_string(planes) + " planes");
        const std::vector<int> shape{64, 48, planes, planes};
        BatchedBox b(shape, fixed);
        Plan p = plan_for_cuda({b.by});
        EXPECT_EQ(p.kernels.back().template_name(), "stencil_tile") << p.to_text();
        EXPECT_TRUE(plan_within_limits(p));
        std::map<std::string, int64_t> sizes;
        std::vector<int64_t> e(shape.begin(), shape.end());
        add_buffer_sizes(sizes, b.in.name(), e);
        add_buffer_sizes(sizes, b.by.name(), e);
        std::vector<LoweredLaunch> lowered;
        try {
            lowered = lowered_cuda_launches({b.by}, sizes);
        } catch (const Halide::Error &err) {
            ADD_FAILURE() << err.what() << p.to_text();
            continue;
        }
        EXPECT_TRUE(within_limits(lowered)) << p.to_text();
        EXPECT_TRUE(same_launches(p, lowered)) << p.to_text();
        if (planes > 6) continue;
        BatchedBox run(shape, fixed);
        std::string plan = schedule_with_solder({run.by}, "opencl");
        auto a = random_buffer<float>(shape, 41, -1, 1);
        run.in.set(a);
        Buffer<float> o = Pipeline(run.by).realize(shape, make_target("opencl"));
        o.copy_to_host();
        auto at = [&](int x, int y, int c, int n) {
            return double(a(std::clamp(x, 0, shape[0] - 1), std::clamp(y, 0, shape[1] - 1), c, n));
        };
        EXPECT_TRUE(matches(
            o,
            [&](auto &q) {
                double s = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) s += at(q[0] + dx, q[1] + dy, q[2], q[3]);
                return s;
            },
            1e-5))
            << plan;
    }
}

// Outputs read by other outputs, at sizes known only at run time (random user pipeline seed 8's
// shape: a sum over a run-time number of taps below each point, an output that an argmax over its
// rows and a second output read): each output's rows, channels and batches go to grid x (fused,
// beyond two dims), its tile counts after them. Fused with its tile count too, seed 8's first
// output inferred its rows from 573 before its first and the run failed; here, on OpenCL, at the
// estimate and at other sizes, every value is right.
TEST(DeviceLimits, OutputsReadByOtherOutputsKeepTheirBoundsOnOpenCL) {
    for (int rank : {2, 3, 4}) {
        SCOPED_TRACE(std::to_string(rank) + "-D");
        ImageParam in(Float(32), rank, "oin");
        Param<int> taps("otaps");
        taps.set_estimate(3);
        std::vector<Var> v(static_cast<size_t>(rank));
        std::vector<Expr> at(v.begin(), v.end());
        Func clamped = BoundaryConditions::repeat_edge(in);
        RDom r(0, taps, "ot");
        std::vector<Expr> below = at;
        below[1] = below[1] + r;
        Func first("first"), best("best"), second("second");
        first(at) = 0.5f * (clamped(at) + sum(clamped(below)) / cast<float>(taps));
        RDom row(0, in.dim(0).extent(), "orow");
        std::vector<Expr> along = at;
        along[0] = row;
        std::vector<Var> outer(v.begin() + 1, v.end());
        std::vector<Expr> outer_at(outer.begin(), outer.end());
        best(outer) = argmax(first(along));
        second(at) = first(at) + 0.25f * cast<float>(best(outer_at)[0]) / cast<float>(in.dim(0).extent());
        const std::vector<int> estimate{256, 192, 3, 2};
        for (int d = 0; d < rank; d++) {
            in.dim(d).set_estimate(0, estimate[size_t(d)]);
            first.set_estimate(v[size_t(d)], 0, estimate[size_t(d)]);
            second.set_estimate(v[size_t(d)], 0, estimate[size_t(d)]);
        }
        std::string plan = schedule_with_solder({second, first}, "opencl");
        Pipeline p({second, first});
        p.compile_jit(make_target("opencl"));
        for (std::vector<int> shape : {std::vector<int>{256, 192, 3, 2}, {37, 29, 2, 3}, {1, 1, 1, 1}}) {
            shape.resize(size_t(rank));
            auto a = random_buffer<float>(shape, 51, -1, 1);
            in.set(a);
            taps.set(3);
            Realization out = p.realize(shape, make_target("opencl"));
            Buffer<float> o2 = out[0], o1 = out[1];
            o1.copy_to_host();
            o2.copy_to_host();
            auto f1 = [&](std::vector<int> q) {
                double s = 0;
                for (int t = 0; t < 3; t++) {
                    auto b = q;
                    b[1] = std::clamp(b[1] + t, 0, shape[1] - 1);
                    s += a(b.data());
                }
                return 0.5 * (a(q.data()) + s / 3);
            };
            EXPECT_TRUE(matches(
                o1, [&](auto &q) { return f1(q); }, 1e-5))
                << plan;
            std::map<std::vector<int>, int> args;  // per row: where its first maximum is
            auto arg_of = [&](std::vector<int> q) {
                q[0] = 0;
                auto it = args.find(q);
                if (it != args.end()) return it->second;
                int arg = 0;
                double best_value = f1(q);
                for (int i = 1; i < shape[0]; i++) {
                    q[0] = i;
                    if (const double f = f1(q); f > best_value) best_value = f, arg = i;
                }
                q[0] = 0;
                return args[q] = arg;
            };
            EXPECT_TRUE(matches(
                o2, [&](auto &q) { return f1(q) + 0.25 * arg_of(q) / shape[0]; }, 1e-5))
                << plan;
        }
    }
}
// nl_means's patch sums (49 points each, 192 million results) took a block of 49 lanes per result,
// its four dims fused into grid x at run-time extents: Halide then sized each block's partials in
// shared memory over whole rows, and the launch failed on the GPU. One thread per result sums them.
TEST(DeviceLimits, FewPointsPerResultOverManyResultsAreNotABlockReduction) {
    BuiltPipeline p = build_app_pipeline(*find_app_spec("nl_means"), AppSize::Full);
    auto a = autoschedule(p.outputs, make_target("cuda"), SolderOptions{}.planner, "nl_means");
    for (auto &k : a.plan.kernels) EXPECT_NE(k.template_name(), "block_reduction") << a.plan.to_text();
    for (auto &l : lowered_cuda_launches(p.outputs, estimate_sizes(p), estimate_scalars(p)))
        EXPECT_GE(l.shape.shared_bytes, 0) << l.kernel << ": shared memory sized per launch on the host";
}

// A block matcher's stored window sums (tests/register_tiles_test.cpp), each thread computing the 9
// offsets of its block along the sums' dim 2 (register_rows_dim), its threads over dims 0 and 1:
// the planned launches of both of the sums' stages are the ones Halide's code makes.
TEST(DeviceLimits, RowsApartOfABlockMatcherAreHalides) {
    Halide::ImageParam cur(Halide::UInt(8), 2, "dcur"), prev(Halide::UInt(8), 2, "dprev");
    Halide::Func pc = Halide::BoundaryConditions::repeat_edge(prev);
    Halide::Var bx("bx"), by("by"), dx("dx"), dy("dy");
    Halide::RDom p(0, 8, 0, 8, "dp"), s(-4, 9, -4, 9, "ds");
    Halide::Func sad("dsad"), out("dbest");
    sad(dx, dy, bx, by) = Halide::sum(Halide::cast<uint16_t>(
        Halide::absd(cur(8 * bx + p.x, 8 * by + p.y), pc(8 * bx + p.x + dx, 8 * by + p.y + dy))));
    Halide::Tuple best = Halide::argmin(sad(s.x, s.y, bx, by));
    out(bx, by) = Halide::cast<int>(best[0]) * 16 + Halide::cast<int>(best[1]);
    cur.set_estimates({{0, 1920}, {0, 1088}});
    prev.set_estimates({{0, 1920}, {0, 1088}});
    out.set_estimates({{0, 240}, {0, 136}});
    PlannerOptions opt;
    auto a = autoschedule({out}, make_target("cuda"), opt, "blocks");
    ASSERT_NE(a.plan.to_text().find("9 points of dim 2 per thread"), std::string::npos) << a.plan.to_text();
    EXPECT_TRUE(plan_within_limits(a.plan));
    std::map<std::string, int64_t> sizes;
    add_buffer_sizes(sizes, cur.name(), {1920, 1088});
    add_buffer_sizes(sizes, prev.name(), {1920, 1088});
    add_buffer_sizes(sizes, out.name(), {240, 136});
    EXPECT_TRUE(same_launches(a.plan, lowered_cuda_launches({out}, sizes))) << a.plan.to_text();
}
