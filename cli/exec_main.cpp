// `solder-exec LIB.so...`: runs pipeline libraries built by `solder build` (for example CUDA
// libraries on the GPU machine): makes the app's inputs, checks against the reference, times.
// Links no libHalide: the libraries carry Halide's runtime.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "apps/app_spec.h"
#include "cli/args.h"
#include "cli/dump_flag.h"
#include "runtime/app_runner.h"
#include "runtime/pipeline_library.h"
#include "runtime/report_format.h"
#include "runtime/run_dumps.h"

int main(int argc, char **argv) {
    using namespace solder;
    try {
        Args a = Args::parse(argc, argv, 1, {"iters", "seed", "warmup", "device", "dump", "size"},
                             {"machine", "no-check", "reuse-allocations"});
        const char *usage =
            "usage: solder-exec LIB.so... [--iters N (default 20)] [--warmup N (default 3)] [--seed N (default 1)]\n"
            "                   [--device NAME (recorded in the report)] [--no-check] [--machine] [--dump "
            "launch,bandwidth]\n"
            "                   [--size small|full (run at that size, not the one the library was planned at)]\n"
            "                   [--reuse-allocations (Halide's device allocation cache on: a call's intermediates\n"
            "                   are kept for the next call, not allocated and freed each time)]\n"
            "runs pipeline libraries built by `solder build`, checks each against its app's reference, and times it\n";
        if (a.has("help")) {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a.positional.empty()) {
            std::fputs(usage, stderr);
            return 2;
        }
        (void)a.integer("iters", 20, 1, 1000000), (void)a.integer("warmup", 3, 0, 1000000);
        const std::string run_size = a.get("size");
        if (!run_size.empty() && run_size != "small" && run_size != "full")
            throw std::runtime_error("--size takes small or full, not '" + run_size + "'");
        DumpOptions dumps = dumps_from_cli(a);
        note_dumps_made_elsewhere(dumps, false, true, "solder-exec");
        int failed = 0;
        for (auto &path : a.positional) {
            std::string err;
            auto lib = PipelineLibrary::open(path, &err);
            if (!lib) {
                std::fprintf(stderr, "solder-exec: %s\n", err.c_str());
                failed++;
                continue;
            }
            const AppSpec *app = find_app_spec(lib->info("app"));
            if (!app) {
                std::fprintf(stderr, "solder-exec: %s names unknown app '%s'\n", path.c_str(),
                             lib->info("app").c_str());
                failed++;
                continue;
            }
            // A library plans at its size's estimates and runs at any size its pipeline allows.
            const std::string size = run_size.empty() ? lib->info("size") : run_size;
            lib->allow_any_shape(size != lib->info("size"));
            if (a.has("reuse-allocations") && !lib->reuse_device_allocations(true))
                throw std::runtime_error(path + " does not export halide_reuse_device_allocations");
            RunOptions opt;
            opt.size = size == "small" ? AppSize::Small : AppSize::Full;
            opt.iters = int(a.integer("iters", 20, 1, 1000000));
            opt.warmup = int(a.integer("warmup", 3, 0, 1000000));
            opt.seed = uint64_t(a.integer("seed", 1, 0, INT64_MAX));
            opt.check = !a.has("no-check");
            opt.flush_l2 = lib->info("target") == "cuda";
            RunContext ctx{app->name,
                           lib->info("schedule"),
                           lib->info("target"),
                           size,
                           a.get("device"),
                           std::stoi(lib->info("loop_nests").empty() ? "0" : lib->info("loop_nests")),
                           0};
            opt.time_kernels = dumps.on("bandwidth");
            RunReport r = run_app(*app, *lib, opt);
            std::fputs(format_report(ctx, r).c_str(), stdout);
            write_run_dumps(DumpWriter(dumps, {ctx.app, ctx.schedule, ctx.target, ctx.size}), r, *lib, opt.iters);
            if (a.has("machine")) std::printf("%s\n", result_json_line(ctx, r).c_str());
            std::fflush(stdout);
            failed += !r.pass;
        }
        return failed ? 1 : 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "solder-exec: %s\n", e.what());
        return 2;
    }
}
