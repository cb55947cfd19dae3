// Atomic scatters whose bin is loaded: Halide emits an atomic add only where the stored value is
// a load of the store's own index plus a delta, and a bin loaded from two 8-bit images
// (`h(a(r.x, r.y), b(r.x, r.y)) += 1`) shares those loads with the value once common
// subexpressions are taken out: each increment was a compare-and-swap loop. The generic template
// reads the bin's loads through wrappers computed at each point (docs/halide-21-notes.md), and the
// kernel's increments are atomic adds. The histogram matches plain loops on OpenCL at a size apart
// from the estimates. A bin computed from the RDom's points alone (a radial profile's ring) has no
// load to read so: its index moves into a Func of its own (autosched/computed_bins.h), computed at
// each point, with the same effect.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>
#include <vector>

#include "tests/support/user_pipeline.h"

namespace atomic_adds {

using namespace Halide;
using namespace solder::testing;

// Whether a lowered statement allocates a wrapper's buffer in device memory (a Func computed at a
// thread that Halide could not size to a point: a heap allocation for every thread).
bool wrapper_on_device_heap(const std::string &stmt) {
    return std::regex_search(stmt, std::regex(R"(halide_device_malloc\([^)]*_wrapper)"));
}

struct JointHistogram {
    ImageParam a{UInt(8), 2, "jh_a"}, b{UInt(8), 2, "jh_b"};
    Func h{"jh"};
    JointHistogram() {
        Var x("x"), y("y");
        RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "r");
        h(x, y) = 0;
        h(cast<int>(a(r.x, r.y)), cast<int>(b(r.x, r.y))) += 1;
        a.set_estimates({{0, 3840}, {0, 2160}});
        b.set_estimates({{0, 3840}, {0, 2160}});
        h.set_estimates({{0, 256}, {0, 256}});
    }
};

TEST(AtomicAdds, ABinLoadedFromTwoImagesIsAnAtomicAddOnCuda) {
    JointHistogram p;
    const std::string plan = schedule_with_solder({p.h}, "cuda");
    EXPECT_NE(plan.find(".in({jh"), std::string::npos) << plan;
    lower_for_cuda({p.h}, "atomic_adds");
    std::ifstream stmt(::testing::TempDir() + "/atomic_adds.stmt");
    const std::string text((std::istreambuf_iterator<char>(stmt)), std::istreambuf_iterator<char>());
    // (The statement ends with the kernels' PTX.)
    EXPECT_NE(text.find("atom.global.add.u32"), std::string::npos);
    EXPECT_EQ(text.find(".cas."), std::string::npos);
    EXPECT_FALSE(wrapper_on_device_heap(text));
}

TEST(AtomicAdds, AJointHistogramMatchesPlainLoopsOnOpenCL) {
    JointHistogram p;
    const std::string plan = schedule_with_solder({p.h}, "opencl");
    Pipeline pipe(p.h);
    pipe.compile_jit(solder::make_target("opencl"));
    const int W = 97, H = 61;
    Buffer<uint8_t> ia = random_buffer<uint8_t>({W, H}, 3, 0, 255), ib = random_buffer<uint8_t>({W, H}, 4, 0, 255);
    ia.set_host_dirty();
    ib.set_host_dirty();
    p.a.set(ia);
    p.b.set(ib);
    Buffer<int> got = realize_on<int>(pipe, {256, 256}, "opencl");
    Buffer<int> want(256, 256);
    want.fill(0);
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) want(ia(i, j), ib(i, j))++;
    int wrong = 0;
    want.for_each_element([&](int u, int v) { wrong += got(u, v) != want(u, v); });
    EXPECT_EQ(wrong, 0) << plan;
}

// The PTX of `outputs` planned (already) for CUDA.
std::string cuda_ptx(const std::vector<Func> &outputs, const std::string &name) {
    lower_for_cuda(outputs, name);
    std::ifstream stmt(::testing::TempDir() + "/" + name + ".stmt");
    return std::string((std::istreambuf_iterator<char>(stmt)), std::istreambuf_iterator<char>());
}

// Each ring's sum and count about a centre scalar parameters give, within a radius: the bin is
// `clamp(int(sqrt(fx * fx + fy * fy) + 0.5f), 0, 511)` over the RDom's points, `fx` used twice.
// `T` the summed values' type (float on CUDA; OpenCL's atomics take integers only).
struct RingSums {
    ImageParam in;
    Param<float> cx{"rs_cx"}, cy{"rs_cy"};
    Func rings{"rs_rings"};
    explicit RingSums(Type t) : in(t, 2, "rs_in") {
        Var i("i");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        const Expr fx = cast<float>(r.x) - cx, fy = cast<float>(r.y) - cy;
        const Expr radius = sqrt(fx * fx + fy * fy);
        r.where(radius < 400.5f);
        const Expr bin = clamp(cast<int>(radius + 0.5f), 0, 511);
        rings(i) = Tuple(cast(t, 0), 0);
        rings(bin) = Tuple(rings(bin)[0] + in(r.x, r.y), rings(bin)[1] + 1);
        cx.set_estimate(960.0f);
        cy.set_estimate(540.0f);
        in.set_estimates({{0, 1920}, {0, 1080}});
        rings.set_estimates({{0, 512}});
    }
};

TEST(AtomicAdds, ABinComputedFromTheRDomsPointsIsAnAtomicAddOnCuda) {
    RingSums p(Float(32));
    const std::string plan = schedule_with_solder({p.rings}, "cuda");
    EXPECT_NE(plan.find("moved into rs_rings"), std::string::npos) << plan;
    const std::string ptx = cuda_ptx({p.rings}, "ring_sums");
    EXPECT_NE(ptx.find("atom.global.add.f32"), std::string::npos);
    EXPECT_NE(ptx.find("atom.global.add.u32"), std::string::npos);
    EXPECT_EQ(ptx.find(".cas."), std::string::npos);
    EXPECT_FALSE(wrapper_on_device_heap(ptx));
    // Turned off (`--disable computed_bins`): each increment a compare-and-swap loop.
    RingSums q(Float(32));
    solder::autosched::PlannerOptions off;
    off.computed_bins = false;
    schedule_with_solder({q.rings}, solder::make_target("cuda"), off);
    EXPECT_NE(cuda_ptx({q.rings}, "ring_sums_off").find(".cas."), std::string::npos);
}

TEST(AtomicAdds, RingSumsMatchPlainLoopsOnOpenCL) {
    RingSums p(Int(32));
    const std::string plan = schedule_with_solder({p.rings}, "opencl");
    EXPECT_NE(plan.find("moved into rs_rings"), std::string::npos) << plan;
    Pipeline pipe(p.rings);
    pipe.compile_jit(solder::make_target("opencl"));
    const int W = 613, H = 331, N = 512;
    const float ox = 300.25f, oy = 17.5f;
    Buffer<int> im = random_buffer<int>({W, H}, 11, 0, 1000);
    im.set_host_dirty();
    p.in.set(im);
    p.cx.set(ox);
    p.cy.set(oy);
    Buffer<int> sums(N), counts(N);
    pipe.realize({sums, counts}, solder::make_target("opencl"));
    sums.copy_to_host();
    counts.copy_to_host();
    std::vector<int> want_sum(N, 0), want_count(N, 0);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const float dx = float(x) - ox, dy = float(y) - oy, rad = std::sqrt(dx * dx + dy * dy);
            if (!(rad < 400.5f)) continue;
            const int b = std::min(std::max(int(rad + 0.5f), 0), 511);
            want_sum[size_t(b)] += im(x, y), want_count[size_t(b)]++;
        }
    int wrong = 0;
    for (int b = 0; b < N; b++) wrong += sums(b) != want_sum[size_t(b)] || counts(b) != want_count[size_t(b)];
    EXPECT_EQ(wrong, 0) << plan;
}

// A bin that reads a pure var the update writes as it is (each row's histogram of a function of
// the row and the RDom's point) cannot be computed by a Func of the RVars alone: it is left as
// written, and the histogram still matches plain loops on OpenCL.
TEST(AtomicAdds, ABinThatReadsAPureVarIsLeftAsWritten) {
    auto make = [](Func &f) {
        Var x("x"), b("b");
        RDom r(0, 100, "r");
        f(x, b) = 0;
        f(x, clamp(cast<int>(sqrt(cast<float>(r * r + x))), 0, 63)) += 1;
        f.set_estimates({{0, 512}, {0, 64}});
    };
    Func on_cuda("pv_cuda"), on_cl("pv_cl");
    make(on_cuda);
    const std::string plan = schedule_with_solder({on_cuda}, "cuda");
    EXPECT_EQ(plan.find("moved into"), std::string::npos) << plan;
    EXPECT_NO_THROW(lower_for_cuda({on_cuda}, "pure_var_bins"));
    make(on_cl);
    schedule_with_solder({on_cl}, "opencl");
    Pipeline pipe(on_cl);
    pipe.compile_jit(solder::make_target("opencl"));
    Buffer<int> got = realize_on<int>(pipe, {37, 64}, "opencl");
    int wrong = 0;
    for (int x = 0; x < 37; x++) {
        std::vector<int> want(64, 0);
        for (int r = 0; r < 100; r++) want[size_t(std::clamp(int(std::sqrt(float(r * r + x))), 0, 63))]++;
        for (int b = 0; b < 64; b++) wrong += got(x, b) != want[size_t(b)];
    }
    EXPECT_EQ(wrong, 0) << plan;
}

// A Hough transform's votes: each edge pixel's distance at 180 angles, `round(x * cos(t) + y *
// sin(t))`, a bin of the RDom's points alone over bins too many for shared memory, its angle
// stored as it is and walked innermost. A wrapper of its bin at each point was sized by Halide over
// the 180 angles per thread, a heap allocation in global memory for every thread (out of memory
// on the H100): none is made, and each vote stays a compare-and-swap loop.
TEST(AtomicAdds, AHoughTransformsVotesMakeNoAllocationPerThread) {
    ImageParam edges(UInt(8), 2, "hg_edges");
    const Expr w = edges.dim(0).extent(), h = edges.dim(1).extent();
    const Expr diag = cast<int>(ceil(sqrt(cast<float>(w * w + h * h))));
    Func votes("hg_votes");
    Var a("a"), rho("rho");
    RDom r(0, w, 0, h, 0, 180, "r");
    r.where(edges(r.x, r.y) > 0);
    const Expr theta = cast<float>(r.z) * float(M_PI / 180);
    const Expr dist = cast<float>(r.x) * cos(theta) + cast<float>(r.y) * sin(theta);
    votes(a, rho) = 0;
    votes(r.z, clamp(cast<int>(round(dist)) + diag, 0, 2 * diag)) += 1;
    edges.set_estimates({{0, 1024}, {0, 1024}});
    votes.set_estimates({{0, 180}, {0, 2 * 1449 + 1}});
    const std::string plan = schedule_with_solder({votes}, "cuda");
    EXPECT_EQ(plan.find("_wrapper"), std::string::npos) << plan;
    const std::string stmt = cuda_ptx({votes}, "hough_votes");
    EXPECT_EQ(stmt.find("_wrapper"), std::string::npos);
}

}  // namespace atomic_adds
