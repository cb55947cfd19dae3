// The Solder plugin inside real Halide generators: (1) a library CMake built with
// add_halide_library(... AUTOSCHEDULER Solder PLUGINS autoschedule_solder), linked here and checked
// against the rmsnorm reference; (2) the generator run by hand with `-p libautoschedule_solder.so`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/app_spec.h"
#include "rmsnorm_by_solder.h"
#include "runtime/output_check.h"

using namespace solder;

TEST(Generator, CMakeBuiltWithSolderPluginMatchesReference) {
    const AppSpec *app = find_app_spec("rmsnorm");
    AppIO io = app->io(AppSize::Small);  // the library was generated for these sizes (33x160)
    std::vector<HostBuffer> in, out, ref;
    for (auto &t : io.inputs) in.push_back(make_host_buffer(t));
    for (auto &t : io.outputs) out.push_back(make_host_buffer(t)), ref.push_back(make_host_buffer(t));
    app->make_inputs(in, 5);
    poison(out[0]);
    ASSERT_EQ(rmsnorm_by_solder(in[0].raw_buffer(), in[1].raw_buffer(), out[0].raw_buffer()), 0);
    app->reference(in, ref);
    OutputCheck c = check_output(io.outputs[0], out[0], ref[0], app->default_tolerance);
    EXPECT_TRUE(c.pass) << "max abs error " << c.max_abs_err << ", " << c.worst_ratio << " of tolerance";
}

TEST(Generator, PluginLoadsWithDashP) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("solder-gen-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string cmd = std::string("'") + SOLDER_GENERATOR + "' -g rmsnorm -o '" + dir.string() +
                      "' -e static_library,h,schedule -p '" + SOLDER_PLUGIN +
                      "' target=host autoscheduler=Solder autoscheduler.remat=0 rows=64 cols=128 > '" +
                      (dir / "log").string() + "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_TRUE(fs::exists(dir / "rmsnorm.a"));
    std::ifstream s(dir / "rmsnorm.schedule.h");
    std::stringstream ss;
    ss << s.rdbuf();
    EXPECT_NE(ss.str().find("plan for pipeline: 1 kernel"), std::string::npos) << ss.str();
    // An unknown parameter is an error that names it.
    std::string bad = std::string("'") + SOLDER_GENERATOR + "' -g rmsnorm -o '" + dir.string() +
                      "' -e static_library -p '" + SOLDER_PLUGIN +
                      "' target=host autoscheduler=Solder autoscheduler.nonsense=1 > '" + (dir / "bad").string() +
                      "' 2>&1";
    EXPECT_NE(std::system(bad.c_str()), 0);
    std::ifstream b(dir / "bad");
    std::stringstream bs;
    bs << b.rdbuf();
    EXPECT_NE(bs.str().find("nonsense"), std::string::npos) << bs.str();
    fs::remove_all(dir);
}
