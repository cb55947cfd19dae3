// `solder-soak N [--start S] [--target host|opencl] [--batch B] [--unfused]`: runs N random planner tests
// (tests/support/random_graphs.h) with a progress line, and prints the seeds that failed. --unfused also
// compares each batch with the unfused schedule (use small batches: it compiles slowly).
#include <cstdio>
#include <string>

#include "cli/args.h"
#include "runtime/app_build.h"
#include "tests/support/random_graphs.h"

int main(int argc, char **argv) {
    using namespace solder;
    try {
        Args a = Args::parse(argc, argv, 1, {"start", "target", "batch"}, {"unfused"});
        if (a.positional.size() != 1) {
            std::fprintf(stderr, "usage: solder-soak N [--start S] [--target host|opencl] [--batch B] [--unfused]\n");
            return 2;
        }
        uint64_t n = std::stoull(a.positional[0]), start = std::stoull(a.get("start", "1"));
        uint64_t batch = std::stoull(a.get("batch", "50"));
        std::string target = a.get("target", "host");
        std::vector<uint64_t> failed;
        double max_ms = 0;
        for (uint64_t s = start; s < start + n; s += batch) {
            std::vector<uint64_t> seeds;
            for (uint64_t k = s; k < std::min(start + n, s + batch); k++) seeds.push_back(k);
            auto r = testing::run_random_batch(seeds, target, default_out_dir(), a.has("unfused"));
            for (auto &m : r.messages) std::fprintf(stderr, "FAIL %s\n", m.c_str());
            failed.insert(failed.end(), r.failed_seeds.begin(), r.failed_seeds.end());
            max_ms = std::max(max_ms, r.max_plan_ms);
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
