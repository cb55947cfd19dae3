// `solder run APP`: compile with a schedule for a target, run, check against the reference, time.
#include <cstdio>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dump_flag.h"
#include "cli/options_flags.h"
#include "runtime/app_build.h"
#include "runtime/app_runner.h"
#include "runtime/build_dumps.h"
#include "runtime/device_probe.h"
#include "runtime/fallback_run.h"
#include "runtime/report_format.h"
#include "runtime/run_dumps.h"

namespace solder {

namespace {
AppSize parse_size(const Args &a) { return a.has("small") ? AppSize::Small : AppSize::Full; }
}  // namespace

int cmd_run(int argc, char **argv) {
    Args a = Args::parse(argc, argv, 2, {"target", "schedule", "iters", "seed", "out", "disable", "enable", "dump"},
                         {"small", "machine"});
    if (a.positional.size() != 1) throw UsageError("run takes exactly one APP");
    DumpOptions dumps = dumps_from_cli(a);
    // Checked here, before anything runs: a bad word or number is an error, never a fallback schedule.
    AppBuildRequest req;
    req.options = options_from_cli(a);
    (void)a.integer("iters", 10, 1, 1000000), (void)a.integer("seed", 1, 0, INT64_MAX);
    req.app = a.positional[0];
    req.size = parse_size(a);
    req.target = a.get("target", "host");
    req.schedule = a.get("schedule", "solder");  // Solder's own plan unless asked otherwise
    req.out_dir = a.get("out");
    validate_run_request(req);  // unknown names exit with 2, before any work
    if (req.target == "cuda" && !cuda_gpu_present())
        throw std::runtime_error("target cuda needs an NVIDIA GPU and none was found here; use "
                                 "`solder build " +
                                 req.app + " --target cuda ...` to compile for the GPU machine");
    if (req.target == "opencl" && !opencl_device_present())
        throw std::runtime_error("target opencl needs an OpenCL platform (PoCL here) and none was found");

    RunContext ctx{req.app, req.schedule, req.target, size_name(req.size), "", 0, 0};
    RunReport rep;
    try {
        DumpWriter dump_writer(dumps, {ctx.app, ctx.schedule, ctx.target, ctx.size});
        BuildDumps build_dumps(dump_writer, req);
        RunOptions opt;
        opt.size = req.size;
        opt.iters = int(a.integer("iters", 10, 1, 1000000));
        opt.seed = uint64_t(a.integer("seed", 1, 0, INT64_MAX));
        opt.time_kernels = dumps.on("bandwidth");
        // Through the compile cache, with the fallback to the unfused schedule (runtime/fallback_run.h).
        AppRun run = build_and_run_app(req, opt);
        if (!run.build.library_path.empty()) build_dumps.write(run.build);
        ctx.loop_nests = run.build.loop_nests;
        ctx.compile_s = run.build.schedule_s + run.build.compile_s;
        rep = run.report;
        std::fputs(format_report(ctx, rep).c_str(), stdout);
        if (run.library) write_run_dumps(dump_writer, rep, *run.library, opt.iters);
    } catch (const std::invalid_argument &) {
        throw;  // a bad knob value: exit 2 with its message (cli/solder_main.cpp)
    } catch (const std::exception &e) {
        rep.error = e.what();
        std::fputs(format_report(ctx, rep).c_str(), stdout);
    }
    if (a.has("machine")) std::printf("%s\n", result_json_line(ctx, rep).c_str());
    std::fflush(stdout);
    return rep.pass ? 0 : 1;
}

int cmd_build(int argc, char **argv) {
    Args a = Args::parse(argc, argv, 2, {"target", "schedule", "out", "dump"}, {"small"});
    if (a.positional.size() != 1) throw UsageError("build takes exactly one APP");
    DumpOptions dumps = dumps_from_cli(a);
    note_dumps_made_elsewhere(dumps, true, false, "solder build");
    AppBuildRequest req;
    req.app = a.positional[0];
    req.size = parse_size(a);
    req.target = a.get("target", "host");
    req.schedule = a.get("schedule", "solder");  // Solder's own plan unless asked otherwise
    req.out_dir = a.get("out");
    req.options = options_from_cli(a);  // the environment's: build takes no --disable / --enable
    DumpWriter dump_writer(dumps, {req.app, req.schedule, req.target, size_name(req.size)});
    BuildDumps build_dumps(dump_writer, req);
    AppBuild b = build_app_library(req);
    build_dumps.write(b);
    std::printf("%s  (%d Funcs at root, schedule %.1f s, compile %.1f s)\n", b.library_path.c_str(), b.loop_nests,
                b.schedule_s, b.compile_s);
    return 0;
}

}  // namespace solder
