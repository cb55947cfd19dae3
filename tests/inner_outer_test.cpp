// The inner-outer kernel (autosched/inner_outer.h, schedules/inner_outer.h): nvfuser_2146's column
// sums summed in the row kernel's blocks. Checked in the plan (when the planner takes it, what it
// moves, why it does not by default) and on OpenCL against the app's reference at a size whose
// blocks a small GPU profile accepts.
#include <gtest/gtest.h>

#include "apps/app_pipeline.h"
#include "apps/nvfuser_2146/shapes.h"
#include "autosched/inner_outer.h"
#include "runtime/output_check.h"
#include "tests/support/plan_and_run.h"

using namespace solder;
using namespace solder::autosched;

namespace {

Plan plan_nvfuser(PlannerOptions opt) {
    BuiltPipeline p = build_app_pipeline(*find_app_spec("nvfuser_2146"), AppSize::Full);
    return plan_pipeline(FuncGraph::build(p.outputs), opt, "nvfuser_2146");
}

const KernelPlan *inner_outer_kernel(const Plan &p) {
    for (auto &k : p.kernels)
        if (k.template_name == "inner_outer") return &k;
    return nullptr;
}

bool explains(const Plan &p, const std::string &words) {
    for (auto &e : p.explanations)
        if (e.reason.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(InnerOuter, FewestBytesReadsTheInputsOnce) {
    PlannerOptions opt;
    opt.fewest_bytes = true;
    Plan p = plan_nvfuser(opt);
    const KernelPlan *k = inner_outer_kernel(p);
    ASSERT_NE(k, nullptr) << p.to_text();
    EXPECT_EQ(k->root.rfind("cast_63", 0), 0u);
    EXPECT_EQ(k->split_group.size(), 4u);
    EXPECT_EQ(k->rows_per_block, kMaxInnerOuterRows);
    // Two 1024-wide bf16 inputs, 32 rows each: more than 48 KB, within the H100's opt-in.
    int64_t staged = 0;
    for (auto &s : k->staged) staged += s.bytes_per_block;
    EXPECT_EQ(staged, 32 * 1024 * 2 * 2);
    EXPECT_LE(double(p.total_bytes), 1.25 * double(p.min_bytes)) << p.to_text();
    for (auto &m : p.materialized) EXPECT_LT(m.bytes, 56ll * 1024 * 1024 * 4) << m.func;
    // The sums' own kernels only add partials: no zeroing and summing launches of their own.
    for (auto &other : p.kernels)
        if (&other != k) EXPECT_LT(other.bytes_read, 16ll * 1024 * 1024) << other.name;
    EXPECT_TRUE(explains(p, "taken for fewest_bytes")) << p.to_text();
    EXPECT_NE(p.to_json().find("\"column_sums\""), std::string::npos);
}

TEST(InnerOuter, DefaultPlanKeepsTwoPassesAndSaysWhy) {
    Plan p = plan_nvfuser({});
    EXPECT_EQ(inner_outer_kernel(p), nullptr) << p.to_text();
    EXPECT_TRUE(explains(p, "--enable fewest_bytes takes it")) << p.to_text();
}

TEST(InnerOuter, NoOptInNoInnerOuter) {
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.device.shared_memory_optin_bytes = 0;  // Halide's own runtime (the plugin's default)
    Plan p = plan_nvfuser(opt);
    EXPECT_EQ(inner_outer_kernel(p), nullptr) << p.to_text();
    EXPECT_TRUE(explains(p, "shared_memory_optin_kb")) << p.to_text();
}

TEST(InnerOuter, HorizontalOffNoInnerOuter) {
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.horizontal = false;
    EXPECT_EQ(inner_outer_kernel(plan_nvfuser(opt)), nullptr);
}

// nvfuser_2146 at (4, 512, 512), planned for a GPU of 4 SMs (where its column sums take the shared
// split-K that the inner-outer kernel hosts): 2048 rows, 64 blocks of 32.
TEST(InnerOuter, MatchesTheReferenceOnOpenCL) {
    const AppSpec *spec = find_app_spec("nvfuser_2146");
    AppIO io = nvfuser_2146_io(4, 512, 512);
    BuiltPipeline p = (*find_pipeline_builder("nvfuser_2146"))(io);
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.device.sms = 4;
    Plan plan = solder::testing::plan_for(p.outputs, opt, true);
    const KernelPlan *k = inner_outer_kernel(plan);
    ASSERT_NE(k, nullptr) << plan.to_text();
    EXPECT_EQ(k->blocks, 64);
    std::vector<HostBuffer> in, out, ref;
    for (auto &t : io.inputs) in.push_back(make_host_buffer(t));
    for (auto &t : io.outputs) out.push_back(make_host_buffer(t)), ref.push_back(make_host_buffer(t));
    spec->make_inputs(in, 7);
    spec->reference(in, ref);
    std::vector<Halide::Argument> args;
    for (auto &ip : p.inputs) args.push_back(ip);
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, p.outputs, args, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(".compute_with("), std::string::npos);
    for (size_t i = 0; i < io.outputs.size(); i++) {
        auto it = spec->tolerance.find(io.outputs[i].name);
        OutputCheck c = check_output(io.outputs[i], out[i], ref[i], it == spec->tolerance.end() ? spec->default_tolerance : it->second);
        EXPECT_TRUE(c.pass) << io.outputs[i].name << ": max abs error " << c.max_abs_err << ", worst " << c.worst_ratio;
    }
}
