// Fast device math: CUDA builds compile f32 exp to the GPU's exp2 approximation (ex2.approx) and
// tanh to 1 - 2 / (exp(2x) + 1) with it, every schedule alike; other targets and
// SOLDER_DISABLE=fast_math keep the accurate functions.
#include <gtest/gtest.h>

#include "lang/lang.h"
#include "runtime/fast_device_math.h"
#include "runtime/targets.h"
#include "tests/support/test_processes.h"

using namespace solder;
using namespace solder::testing;

namespace {

int count(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
    return n;
}

std::string app_ptx(const std::string &app, const std::string &env) {
    std::string dir = fresh_temp_dir("fast-math");
    CliResult r = run_solder_cli("build " + app + " --target cuda --schedule unfused --small --out " + dir, env);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return read_file(dir + "/" + app + "__unfused__cuda__small.kernels.ptx");
}

}  // namespace

TEST(FastMath, OnlyCudaTargetsAndOnlyExpAndTanhFuncsChange) {
    SolderOptions on, off;
    off.disable("fast_math");
    EXPECT_TRUE(fast_device_math_enabled(make_target("cuda"), on));
    EXPECT_FALSE(fast_device_math_enabled(make_target("cuda"), off));
    EXPECT_FALSE(fast_device_math_enabled(make_target("opencl"), on));
    EXPECT_FALSE(fast_device_math_enabled(make_target("host"), on));
    lang::Graph g;
    lang::Tensor x = g.input("fx", lang::DType::F32, {4, 8});
    lang::Tensor e = lang::exp(x) + 1.0;
    lang::Tensor s = lang::sqrt(x);
    EXPECT_EQ(use_fast_device_math({e.func}), 1);  // the exp Func; the add and the input do not change
    EXPECT_EQ(use_fast_device_math({s.func}), 0);
    EXPECT_EQ(use_fast_device_math({e.func}), 0);  // already rewritten
    lang::Tensor t = lang::tanh(x);
    EXPECT_EQ(use_fast_device_math({t.func}), 1);
    EXPECT_EQ(use_fast_device_math({t.func}), 0);
}

TEST(FastMath, CudaSoftmaxUsesTheExp2ApproximationUnlessDisabled) {
    std::string fast = app_ptx("softmax", "");
    ASSERT_FALSE(fast.empty());
    EXPECT_GT(count(fast, "ex2.approx"), 0) << fast.substr(0, 2000);
    std::string accurate = app_ptx("softmax", "SOLDER_DISABLE=fast_math");
    ASSERT_FALSE(accurate.empty());
    EXPECT_EQ(count(accurate, "ex2.approx"), 0);
    EXPECT_GT(count(accurate, "fma.rn"), count(fast, "fma.rn"));
}

TEST(FastMath, CudaGeluUsesOneApproximateDivisionPerTanhUnlessDisabled) {
    std::string fast = app_ptx("bias_gelu", "");
    ASSERT_FALSE(fast.empty());
    EXPECT_GT(count(fast, "div.approx"), 0) << fast.substr(0, 2000);
    EXPECT_GT(count(fast, "ex2.approx"), 0);
    std::string accurate = app_ptx("bias_gelu", "SOLDER_DISABLE=fast_math");
    ASSERT_FALSE(accurate.empty());
    EXPECT_EQ(count(accurate, "div.approx"), 0);
    // libdevice's tanhf: a polynomial for small arguments, so many more FMAs.
    EXPECT_GT(count(accurate, "fma.rn"), count(fast, "fma.rn"));
}
