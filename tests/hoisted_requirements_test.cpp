// require() on parameters and sizes, scheduled for a GPU: given the Pipeline (as the plugin gives
// it), Solder moves the check into the pipeline's requirements and the Func's kernel runs on the
// device; a require() on values (a point of an input) stays, and its kernel on the host. Run on
// OpenCL: the values where the requirements hold, the user's message where one fails.
#include <gtest/gtest.h>

#include <string>

#include "autosched/apply_plan.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace hoisted_requirements {

struct Checked {
    ImageParam in{Float(32), 2, "in"};
    Param<float> gain{"gain"};
    Var x{"x"}, y{"y"};
    Func mid{"mid"}, out{"out"}, clean{"clean"};
    Checked() {
        mid(x, y) = require(in.dim(0).extent() > 2, in(x, y) + 1.f, "too narrow:", in.dim(0).extent());
        out(x, y) = require(gain > 0.f, mid(x, y) * gain, "gain must be positive, not", gain);
        // (A check of each point's value, and one whose message names the point: both stay where
        // they are.)
        clean(x, y) = require(in(x, y) >= 0.f, sqrt(in(x, y)), "negative input") +
                      require(gain > -100.f, 0.f, "gain out of range at", x, y);
        in.set_estimates({{0, 1024}, {0, 1024}});
        out.set_estimates({{0, 1024}, {0, 1024}});
        clean.set_estimates({{0, 1024}, {0, 1024}});
        gain.set_estimate(2.f);
    }
};

std::string plan_for(Checked &c, const std::string &target, Pipeline *p) {
    return schedule_with_solder({c.out, c.clean}, solder::make_target(target), {}, p);
}

TEST(HoistedRequirements, ChecksOfParametersMoveToThePipelineAndItsKernelsToTheDevice) {
    for (const std::string &target : {std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE(target);
        Checked c;
        Pipeline p({c.out, c.clean});
        const std::string plan = plan_for(c, target, &p);
        const std::string hosted = solder::autosched::kOnHostRequireReason;
        EXPECT_EQ(plan.find(c.out.name() + ": " + hosted), std::string::npos) << plan;
        EXPECT_NE(plan.find(c.clean.name() + ": " + hosted), std::string::npos) << plan;
        EXPECT_NE(plan.find(c.out.name() + ": its require() names only parameters"), std::string::npos) << plan;
        EXPECT_NE(plan.find(c.mid.name() + ": its require() names only parameters"), std::string::npos) << plan;
        if (target == "cuda") {
            // (Before, a require() left in a CUDA kernel: "Error: halide_error_requirement_failed".)
            EXPECT_NO_THROW(p.compile_to_lowered_stmt(::testing::TempDir() + "/hoisted.stmt", p.infer_arguments(), Text,
                                                      solder::make_target("cuda")));
            continue;
        }
        ASSERT_EQ(failure_of([&] { p.compile_jit(solder::make_target(target)); }), "");
        Buffer<float> img = random_buffer<float>({67, 9}, 5, 0, 1);
        c.in.set(img);
        c.gain.set(1.5f);
        Buffer<float> o(67, 9), s(67, 9);
        ASSERT_EQ(failure_of([&] { p.realize({o, s}, solder::make_target(target)); }), "");
        o.copy_to_host();
        s.copy_to_host();
        for (int yy = 0; yy < 9; yy++)
            for (int xx = 0; xx < 67; xx++) {
                ASSERT_FLOAT_EQ(o(xx, yy), (img(xx, yy) + 1.f) * 1.5f) << xx << ", " << yy;
                ASSERT_NEAR(s(xx, yy), std::sqrt(img(xx, yy)), 1e-6f) << xx << ", " << yy;
            }
        // Each requirement fails with its own message: the gain, and the width.
        c.gain.set(-1.f);
        const std::string gain_failure = failure_of([&] { p.realize({67, 9}, solder::make_target(target)); });
        EXPECT_NE(gain_failure.find("gain must be positive, not -1"), std::string::npos) << gain_failure;
        c.gain.set(1.f);
        Buffer<float> narrow = random_buffer<float>({2, 9}, 6, 0, 1);
        c.in.set(narrow);
        const std::string width_failure = failure_of([&] { p.realize({2, 9}, solder::make_target(target)); });
        EXPECT_NE(width_failure.find("too narrow: 2"), std::string::npos) << width_failure;
    }
}

TEST(HoistedRequirements, WithoutThePipelineTheyStayAndTheirKernelsRunOnTheHost) {
    Checked c;
    const std::string plan = plan_for(c, "cuda", nullptr);
    EXPECT_NE(plan.find(c.out.name() + ": " + std::string(solder::autosched::kOnHostRequireReason)), std::string::npos)
        << plan;
    EXPECT_EQ(plan.find("its require() names only parameters"), std::string::npos) << plan;
}

}  // namespace hoisted_requirements
