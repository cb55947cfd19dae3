// The C++ schedule source Solder writes is a schedule a user can paste: CMake built rmsnorm twice for
// OpenCL, once scheduled by the Solder plugin and once by a generator whose schedule() is the source
// that plugin wrote (apps/generators/rmsnorm_pasted_generator.cpp). Had the source not applied, the
// second generator would have failed to build. Here both run on PoCL and match the reference, and
// their lowered code (Halide's .stmt, names of the two libraries aside) is the same: the pasted
// source reproduces the schedule, loop for loop.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "apps/app_spec.h"
#include "rmsnorm_by_solder_cl.h"
#include "rmsnorm_pasted_cl.h"
#include "runtime/output_check.h"

using namespace solder;

namespace {

using Entry = int (*)(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);

HostBuffer run(Entry f, std::vector<HostBuffer> &in, const TensorSpec &out_spec) {
    HostBuffer out = make_host_buffer(out_spec);
    poison(out);
    EXPECT_EQ(f(in[0].raw_buffer(), in[1].raw_buffer(), out.raw_buffer()), 0);
    out.copy_to_host();
    return out;
}

std::string stmt_without_name(const char *path, const std::string &name) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string s = ss.str();
    for (size_t p; (p = s.find(name)) != std::string::npos;) s.replace(p, name.size(), "LIBRARY");
    return s;
}

}  // namespace

TEST(ScheduleRoundTrip, PastedSourceLowersToTheSameCode) {
    std::string planned = stmt_without_name(SOLDER_PLANNED_STMT, "rmsnorm_by_solder_cl");
    std::string pasted = stmt_without_name(SOLDER_PASTED_STMT, "rmsnorm_pasted_cl");
    ASSERT_NE(planned.find("block_id"), std::string::npos)
        << "expected GPU kernels (block_id) in " << SOLDER_PLANNED_STMT;
    EXPECT_EQ(planned, pasted);
}

TEST(ScheduleRoundTrip, PastedSolderScheduleMatchesThePluginsLibrary) {
    const AppSpec *app = find_app_spec("rmsnorm");
    AppIO io = app->io(AppSize::Small);  // both libraries were generated for these sizes (33x160)
    std::vector<HostBuffer> in, ref;
    for (auto &t : io.inputs) in.push_back(make_host_buffer(t));
    ref.push_back(make_host_buffer(io.outputs[0]));
    app->make_inputs(in, 11);
    app->reference(in, ref);
    for (auto &b : in) b.set_host_dirty();  // written through data(): tell the runtime to copy them over

    HostBuffer planned = run(rmsnorm_by_solder_cl, in, io.outputs[0]);
    HostBuffer pasted = run(rmsnorm_pasted_cl, in, io.outputs[0]);
    for (HostBuffer *b : {&planned, &pasted}) {
        OutputCheck c = check_output(io.outputs[0], *b, ref[0], app->default_tolerance);
        EXPECT_TRUE(c.pass) << "max abs error " << c.max_abs_err;
    }
    ASSERT_EQ(planned.size_in_bytes(), pasted.size_in_bytes());
    EXPECT_EQ(std::memcmp(planned.data(), pasted.data(), planned.size_in_bytes()), 0);
    for (auto &b : in) b.device_free();
    planned.device_free();
    pasted.device_free();
}
