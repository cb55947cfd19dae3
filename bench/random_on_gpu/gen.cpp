// Builds random narrow-type pipelines (tests/support/random_typed_pipelines.h) ahead of time, for
// checking Solder's CUDA schedules on a GPU where Halide is not installed:
//   gen DIR runtime        the Halide runtime for the host and CUDA (DIR/runtime.o)
//   gen DIR SEED...        for each seed, DIR/typed_SEED_solder.a (Solder's CUDA plan) and
//                          DIR/typed_SEED_ref.a (every Func at root, on the host)
// Each library is built with no runtime of its own (runtime.o holds it) and every argument
// random_typed_pipeline lists, used or not.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Halide.h"
#include "runtime/targets.h"
#include "tests/support/random_typed_pipelines.h"

int main(int argc, char **argv) {
    using namespace Halide;
    if (argc < 3) {
        std::fprintf(stderr, "usage: gen DIR runtime | gen DIR SEED...\n");
        return 2;
    }
    const std::string dir = argv[1];
    const Target cuda = solder::make_target("cuda"), host = get_host_target();
    if (std::string(argv[2]) == "runtime") {
        compile_standalone_runtime(dir + "/runtime.o", cuda);
        return 0;
    }
    int failed = 0;
    for (int i = 2; i < argc; i++) {
        const uint64_t seed = std::strtoull(argv[i], nullptr, 10);
        const std::string name = "typed_" + std::to_string(seed);
        try {
            auto ours = solder::testing::random_typed_pipeline(seed, "cuda");
            Pipeline(ours.outputs)
                .compile_to_static_library(dir + "/" + name + "_solder", ours.args, name + "_solder",
                                           cuda.with_feature(Target::NoRuntime));
            auto ref = solder::testing::random_typed_pipeline(seed, "");
            Pipeline(ref.outputs)
                .compile_to_static_library(dir + "/" + name + "_ref", ref.args, name + "_ref",
                                           host.with_feature(Target::NoRuntime));
            std::printf("built %s\n", name.c_str());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
            failed++;
        } catch (const Halide::Error &e) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
            failed++;
        }
    }
    return failed == 0 ? 0 : 1;
}
