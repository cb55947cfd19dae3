// Builds random pipelines of the narrow-type family (tests/support/random_typed_pipelines.h) or the
// tensor family (tests/support/random_tensor_pipelines.h) ahead of time, for checking Solder's CUDA
// schedules on a GPU where Halide is not installed:
//   gen DIR runtime                the Halide runtime for the host and CUDA (DIR/runtime.o)
//   gen DIR typed|tensor SEED...   for each seed, DIR/FAMILY_SEED_solder.a (Solder's CUDA plan) and
//                                  DIR/FAMILY_SEED_ref.a (every Func at root, on the host); tensor
//                                  seeds stored channels-last are listed in DIR/nhwc.txt, and each
//                                  tensor seed's tolerances (one per output buffer) are in
//                                  DIR/tensor_SEED_tolerances.txt
// Each library is built with no runtime of its own (runtime.o holds it) and every argument the
// family lists, used or not.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "Halide.h"
#include "runtime/targets.h"
#include "tests/support/random_tensor_pipelines.h"
#include "tests/support/random_typed_pipelines.h"

int main(int argc, char **argv) {
    using namespace Halide;
    if (argc < 3) {
        std::fprintf(stderr, "usage: gen DIR runtime | gen DIR typed|tensor SEED...\n");
        return 2;
    }
    const std::string dir = argv[1];
    const Target cuda = solder::make_target("cuda"), host = get_host_target();
    if (std::string(argv[2]) == "runtime") {
        compile_standalone_runtime(dir + "/runtime.o", cuda);
        return 0;
    }
    const std::string family = argv[2];
    if (family != "typed" && family != "tensor") {
        std::fprintf(stderr, "gen: the family must be typed or tensor, got '%s'\n", family.c_str());
        return 2;
    }
    std::ofstream nhwc(dir + "/nhwc.txt", std::ios::app);
    int failed = 0;
    for (int i = 3; i < argc; i++) {
        const uint64_t seed = std::strtoull(argv[i], nullptr, 10);
        const std::string name = family + "_" + std::to_string(seed);
        try {
            std::vector<Func> ours, ref;
            std::vector<Argument> args, ref_args;
            if (family == "typed") {
                auto o = solder::testing::random_typed_pipeline(seed, "cuda");
                auto r = solder::testing::random_typed_pipeline(seed, "");
                ours = o.outputs, args = o.args, ref = r.outputs, ref_args = r.args;
            } else {
                auto o = solder::testing::random_tensor_pipeline(seed, "cuda");
                auto r = solder::testing::random_tensor_pipeline(seed, "");
                ours = o.outputs, args = o.args, ref = r.outputs, ref_args = r.args;
                if (o.nhwc) nhwc << seed << "\n";
                std::ofstream tol(dir + "/" + name + "_tolerances.txt");
                for (double t : o.tolerances) tol << t << "\n";
            }
            Pipeline(ours).compile_to_static_library(dir + "/" + name + "_solder", args, name + "_solder",
                                                     cuda.with_feature(Target::NoRuntime));
            Pipeline(ref).compile_to_static_library(dir + "/" + name + "_ref", ref_args, name + "_ref",
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
