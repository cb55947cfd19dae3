// Pipelines written the way Halide users write them, none of them a bundled app: ImageParams whose
// extents drive the RDoms, boundary conditions, inline reductions (`sum`, `minimum`), scans, a
// histogram, a gather, a scalar Param in the index math. Each is scheduled through an
// auto-scheduler's plugin (Solder's, or Halide's Anderson2021, Li2018, Mullapudi2016) with its
// estimates, as a user's generator would be, and compiled ahead of time for CUDA; `ref` compiles
// it for the host with every Func at root (or, where a Func cannot be stored, Halide's default
// schedule), the reference the runner checks every GPU output with.
//   user_pipelines_gen OUT_DIR SCHEDULER [PIPELINE]
// SCHEDULER: ref, runtime (the Halide runtime for the host and CUDA, once), solder, anderson2021,
// li2018, mullapudi2016; soldercl and runtime_cl: Solder's plan for OpenCL and the host-and-OpenCL
// runtime, for check_opencl.sh. Plugins are loaded from $SOLDER_PLUGIN and $HALIDE_PLUGIN_DIR. Writes
// OUT_DIR/PIPELINE_SCHEDULER.{a,h} and, for the auto-schedulers, the schedule's source (.sched.txt).
// $SOLDER_KNOB=KEY=VALUE passes one more parameter to Solder's plugin (`register_tiles=0`), and
// $SOLDER_TAG names the libraries instead of SCHEDULER (letters and digits only); $SOLDER_ALIGN
// declares every input and output buffer 16-byte aligned first. With $SOLDER_STMT
// set, each auto-scheduled library's lowered statement (its kernels' PTX included) is written too
// (.stmt), to read what a kernel's loop became.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace {

using user_pipelines::P;

// Every Func of the pipeline computed at root: the reference schedule.
void all_at_root(const std::vector<Func> &outs) {
    std::map<std::string, Internal::Function> env;
    for (auto &o : outs) {
        auto calls = Internal::find_transitive_calls(o.function());
        env.insert(calls.begin(), calls.end());
        env.emplace(o.name(), o.function());
    }
    for (auto &[name, f] : env) Func(f).compute_root();
}

// Every input and output buffer declared 16-byte aligned, as a user may declare them
// (set_host_alignment): $SOLDER_ALIGN, to measure what that declaration gives.
void declare_aligned(const std::vector<Func> &outs) {
    struct Inputs : Internal::IRVisitor {
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *c) override {
            if (c->call_type == Internal::Call::Image && c->param.defined()) {
                Parameter p = c->param;  // (a handle: the ImageParam's own)
                p.set_host_alignment(16);
            }
            Internal::IRVisitor::visit(c);
        }
    } inputs;
    for (auto &o : outs) {
        for (auto &b : o.output_buffers()) b.set_host_alignment(16);
        for (auto &[name, fn] : Internal::find_transitive_calls(o.function())) fn.accept(&inputs);
    }
}

std::string env_or(const char *name, const std::string &fallback) {
    const char *v = std::getenv(name);
    return v ? v : fallback;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT_DIR ref|runtime|solder|anderson2021|li2018|mullapudi2016 [PIPELINE]\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1], which = argv[2], only = argc > 3 ? argv[3] : "";
    const Target gpu("host-cuda-cuda_capability_86-no_runtime");
    if (which == "runtime") {
        compile_standalone_runtime(dir + "/runtime.o", Target("host-cuda-cuda_capability_86"));
        return 0;
    }
    if (which == "runtime_cl") {  // (check_opencl.sh's runner: the host and OpenCL runtime)
        compile_standalone_runtime(dir + "/runtime.o", Target("host-opencl"));
        return 0;
    }
    // soldercl: Solder's plan for OpenCL, compiled for it (check_opencl.sh runs it on PoCL).
    const bool opencl = which == "soldercl";
    const Target target = opencl ? Target("host-opencl-no_runtime") : gpu;
    std::string scheduler;
    if (which == "solder" || opencl) {
        load_plugin(env_or("SOLDER_PLUGIN", "build/lib/libautoschedule_solder.so"));
        scheduler = "Solder";
    } else if (which != "ref") {
        const std::map<std::string, std::string> names = {
            {"anderson2021", "Anderson2021"}, {"li2018", "Li2018"}, {"mullapudi2016", "Mullapudi2016"}};
        if (!names.count(which)) {
            fprintf(stderr, "unknown scheduler '%s'\n", which.c_str());
            return 2;
        }
        load_plugin(env_or("HALIDE_PLUGIN_DIR", ".") + "/libautoschedule_" + which + ".so");
        scheduler = names.at(which);
    }
    int failed = 0;
    user_pipelines::Registry pipelines;
    user_pipelines::add_pipelines_a(pipelines);
    user_pipelines::add_pipelines_b(pipelines);
    user_pipelines::add_pipelines_c(pipelines);
    user_pipelines::add_pipelines_d(pipelines);
    user_pipelines::add_pipelines_e(pipelines);
    user_pipelines::add_pipelines_f(pipelines);
    user_pipelines::add_pipelines_g(pipelines);
    user_pipelines::add_pipelines_h(pipelines);
    user_pipelines::add_pipelines_i(pipelines);
    user_pipelines::add_pipelines_j(pipelines);
    user_pipelines::add_pipelines_k(pipelines);
    user_pipelines::add_pipelines_l(pipelines);
    user_pipelines::add_pipelines_m(pipelines);
    user_pipelines::add_pipelines_n(pipelines);
    user_pipelines::add_pipelines_o(pipelines);
    user_pipelines::add_pipelines_p(pipelines);
    user_pipelines::add_pipelines_q(pipelines);
    user_pipelines::add_pipelines_r(pipelines);
    user_pipelines::add_pipelines_s(pipelines);
    user_pipelines::add_pipelines_t(pipelines);
    user_pipelines::add_pipelines_u(pipelines);
    user_pipelines::add_pipelines_v(pipelines);
    user_pipelines::add_pipelines_w(pipelines);
    user_pipelines::add_pipelines_x(pipelines);
    user_pipelines::add_pipelines_y(pipelines);
    user_pipelines::add_pipelines_z(pipelines);
    user_pipelines::add_pipelines_aa(pipelines);
    user_pipelines::add_pipelines_ab(pipelines);
    user_pipelines::add_pipelines_ac(pipelines);
    user_pipelines::add_pipelines_ad(pipelines);
    user_pipelines::add_pipelines_ae(pipelines);
    user_pipelines::add_pipelines_af(pipelines);
    user_pipelines::add_pipelines_ag(pipelines);
    user_pipelines::add_pipelines_ah(pipelines);
    user_pipelines::add_pipelines_ai(pipelines);
    user_pipelines::add_pipelines_aj(pipelines);
    user_pipelines::add_pipelines_ak(pipelines);
    user_pipelines::add_pipelines_al(pipelines);
    user_pipelines::add_pipelines_am(pipelines);
    user_pipelines::add_pipelines_an(pipelines);
    user_pipelines::add_pipelines_ao(pipelines);
    user_pipelines::add_pipelines_ap(pipelines);
    user_pipelines::add_pipelines_aq(pipelines);
    user_pipelines::add_pipelines_ar(pipelines);
    for (auto &[name, make] : pipelines) {
        if (!only.empty() && only != name) continue;
        const std::string fn = name + "_" + env_or("SOLDER_TAG", which);
        try {
            P p = make();
            Pipeline pipeline(p.outs);
            if (which == "ref") {
                all_at_root(p.outs);
                try {
                    pipeline.compile_to_static_library(dir + "/" + fn, p.args, fn, Target("host-no_runtime"));
                } catch (const Halide::Error &) {
                    // A Func read at points nothing bounds (a boundary condition sampled at a flow
                    // field's offsets) cannot be stored: Halide's default schedule, every Func but
                    // the outputs inlined.
                    P q = make();
                    Pipeline(q.outs).compile_to_static_library(dir + "/" + fn, q.args, fn, Target("host-no_runtime"));
                }
            } else {
                if (std::getenv("SOLDER_ALIGN")) declare_aligned(p.outs);
                std::map<std::string, std::string> params{{"parallelism", "132"}};
                if (which == "solder" && std::getenv("SOLDER_KNOB")) {
                    const std::string knob = std::getenv("SOLDER_KNOB");  // KEY=VALUE
                    params[knob.substr(0, knob.find('='))] = knob.substr(knob.find('=') + 1);
                }
                auto r = pipeline.apply_autoscheduler(target, AutoschedulerParams(scheduler, params));
                if (FILE *f = fopen((dir + "/" + fn + ".sched.txt").c_str(), "w")) {
                    fputs(r.schedule_source.c_str(), f);
                    fclose(f);
                }
                // SOLDER_SCHEDULE_ONLY: the schedule's source only (comparing plans), no library.
                if (!std::getenv("SOLDER_SCHEDULE_ONLY"))
                    pipeline.compile_to_static_library(dir + "/" + fn, p.args, fn, target);
                if (std::getenv("SOLDER_STMT"))
                    pipeline.compile_to_lowered_stmt(dir + "/" + fn + ".stmt", p.args, Text, target);
            }
            printf("built %s\n", fn.c_str());
        } catch (const Halide::Error &e) {  // (not a std::exception in Halide 21)
            printf("FAILED %s: %s\n", fn.c_str(), e.what());
            failed++;
        } catch (const std::exception &e) {
            printf("FAILED %s: %s\n", fn.c_str(), e.what());
            failed++;
        }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}
