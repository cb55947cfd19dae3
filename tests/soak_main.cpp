// `solder-soak N [--start S] [--target host|opencl] [--batch B] [--family graphs|user|typed|tensor] [--unfused]`: runs N
// random planner tests with a progress line, and prints the seeds that failed. Families: the tensor
// layer's random graphs (tests/support/random_graphs.h; --unfused also compares each batch with the
// unfused schedule, use small batches: it compiles slowly), or Halide pipelines written as users
// write them (tests/support/random_user_pipelines.h), or such pipelines over 8- and 16-bit images
// (tests/support/random_typed_pipelines.h), or 4-D tensor pipelines as network layers are written
// (tests/support/random_tensor_pipelines.h).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/args.h"
#include "runtime/app_build.h"
#include "tests/support/random_graphs.h"
#include "tests/support/random_tensor_pipelines.h"
#include "tests/support/random_typed_pipelines.h"
#include "tests/support/random_user_pipelines.h"

int main(int argc, char **argv) {
    using namespace solder;
    // (PoCL's work-groups capped at CUDA's 1024 threads per block, as in the tests: a kernel that
    // would launch more on a GPU fails here too.)
    setenv("POCL_MAX_WORK_GROUP_SIZE", "1024", 0);
    try {
        Args a = Args::parse(argc, argv, 1, {"start", "target", "batch", "family"}, {"unfused"});
        const char *usage =
            "usage: solder-soak N [--start S (default 1)] [--target host|opencl (default host)] [--batch B (default "
            "50)]\n"
            "                   [--family graphs|user|typed|tensor (default graphs)] [--unfused]\n"
            "plans, compiles and runs N random pipelines against their reference; prints the seeds that failed.\n"
            "  graphs: tensor-layer graphs against an eager reference (--unfused also compares the unfused schedule)\n"
            "  user:   Halide pipelines written as users write them (scans, histograms, Tuples, parameter RDoms,\n"
            "          boundary conditions, resampling) against every Func at root, at several sizes\n"
            "  typed:  such pipelines over uint8, uint16, int16 and float16 images (lookup tables, equalization,\n"
            "          IIR scans in the narrow type, wrapping arithmetic), integer ones matched exactly\n"
            "  tensor: 4-D layers over float32, float64 and bfloat16 tensors, channels first or last (channel\n"
            "          mixing, softmax, normalizations, pooling, gathers, an extern stage, scalar outputs)\n";
        if (a.has("help")) {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a.positional.size() != 1) {
            std::fputs(usage, stderr);
            return 2;
        }
        uint64_t n = uint64_t(parse_integer("N", a.positional[0], 1, INT64_MAX));
        uint64_t start = uint64_t(a.integer("start", 1, 0, INT64_MAX));
        uint64_t batch = uint64_t(a.integer("batch", 50, 1, 100000));
        std::string target = a.get("target", "host");
        std::vector<uint64_t> failed;
        double max_ms = 0;
        for (uint64_t s = start; s < start + n; s += batch) {
            std::vector<uint64_t> seeds;
            for (uint64_t k = s; k < std::min(start + n, s + batch); k++) seeds.push_back(k);
            const std::string family = a.get("family", "graphs");
            std::vector<uint64_t> bad;
            std::vector<std::string> messages;
            if (family == "user") {
                auto r = testing::run_random_user_pipelines(seeds, target);
                bad = r.failed_seeds, messages = r.messages;
            } else if (family == "typed") {
                auto r = testing::run_random_typed_pipelines(seeds, target);
                bad = r.failed_seeds, messages = r.messages;
            } else if (family == "tensor") {
                auto r = testing::run_random_tensor_pipelines(seeds, target);
                bad = r.failed_seeds, messages = r.messages;
            } else if (family == "graphs") {
                auto r = testing::run_random_batch(seeds, target, default_out_dir(), a.has("unfused"));
                bad = r.failed_seeds, messages = r.messages;
                max_ms = std::max(max_ms, r.max_plan_ms);
            } else {
                throw std::invalid_argument("--family must be graphs, user, typed or tensor, got '" + family + "'");
            }
            for (auto &m : messages) std::fprintf(stderr, "FAIL %s\n", m.c_str());
            failed.insert(failed.end(), bad.begin(), bad.end());
            std::fprintf(stderr, "\r[soak] %llu/%llu graphs, %zu failed, max plan %.1f ms   ",
                         (unsigned long long)(seeds.back() - start + 1), (unsigned long long)n, failed.size(), max_ms);
        }
        std::fprintf(stderr, "\n");
        std::printf("%llu graphs, %zu failed\n", (unsigned long long)n, failed.size());
        if (!failed.empty()) {
            std::printf("failed seeds:");
            for (auto s : failed) std::printf(" %llu", (unsigned long long)s);
            std::printf("\n");
        }
        return failed.empty() ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "solder-soak: %s\n", e.what());
        return 2;
    }
}
