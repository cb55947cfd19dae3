// Atomic scatters whose bin is loaded: Halide emits an atomic add only where the stored value is
// a load of the store's own index plus a delta, and a bin loaded from two 8-bit images
// (`h(a(r.x, r.y), b(r.x, r.y)) += 1`) shares those loads with the value once common
// subexpressions are taken out: each increment was a compare-and-swap loop. The generic template
// reads the bin's loads through wrappers computed at each point (docs/halide-21-notes.md), and the
// kernel's increments are atomic adds. The histogram matches plain loops on OpenCL at a size apart
// from the estimates.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "tests/support/user_pipeline.h"

namespace atomic_adds {

using namespace Halide;
using namespace solder::testing;

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
    EXPECT_NE(plan.find(".in({jh})"), std::string::npos) << plan;
    lower_for_cuda({p.h}, "atomic_adds");
    std::ifstream stmt(::testing::TempDir() + "/atomic_adds.stmt");
    const std::string text((std::istreambuf_iterator<char>(stmt)), std::istreambuf_iterator<char>());
    // (The statement ends with the kernels' PTX.)
    EXPECT_NE(text.find("atom.global.add.u32"), std::string::npos);
    EXPECT_EQ(text.find(".cas."), std::string::npos);
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

}  // namespace atomic_adds
