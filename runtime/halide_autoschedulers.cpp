#include "runtime/halide_autoschedulers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"

#ifndef SOLDER_HALIDE_LIB_DIR
#error "SOLDER_HALIDE_LIB_DIR must name the folder with Halide's autoscheduler plugins"
#endif

namespace solder {
using namespace Halide;

const std::vector<HalideAutoscheduler> &halide_autoschedulers() {
    // Support as documented in Halide 21: Adams2019 is CPU only, Anderson2021 GPU only, Mullapudi2016
    // makes GPU schedules only with experimental_gpu_schedule=1, Li2018 does both.
    static const std::vector<HalideAutoscheduler> all = {
        {"li2018", "Li2018", "libautoschedule_li2018.so", true, true},
        {"mullapudi2016", "Mullapudi2016", "libautoschedule_mullapudi2016.so", true, true},
        {"adams2019", "Adams2019", "libautoschedule_adams2019.so", true, false},
        {"anderson2021", "Anderson2021", "libautoschedule_anderson2021.so", false, true},
    };
    return all;
}

namespace {

// Halide's plugins report some failures by throwing through code built without exception
// support, which ends the process (std::terminate). So each autoscheduler first runs in a forked
// child; only if the child survives does this process run it for real. A crash becomes an error
// that names the autoscheduler and carries its message, instead of taking Solder down.
void probe_in_child(const HalideAutoscheduler &a, const std::function<void()> &apply) {
    int fds[2];
    if (pipe(fds) != 0) return;  // no probe possible: run unprotected
    fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);  // the child's error messages go to the parent
        // An exception thrown through code without exception support arrives here.
        std::set_terminate([] {
            try {
                if (auto e = std::current_exception()) std::rethrow_exception(e);
            } catch (const Halide::Error &e) {
                fprintf(stderr, "%s\n", e.what());
            } catch (const std::exception &e) {
                fprintf(stderr, "%s\n", e.what());
            } catch (...) {}
            fflush(stderr);
            _exit(4);
        });
        int code = 0;
        try {
            apply();
        } catch (const Halide::Error &e) {
            fprintf(stderr, "%s\n", e.what());
            code = 3;
        } catch (const std::exception &e) {
            fprintf(stderr, "%s\n", e.what());
            code = 3;
        }
        fflush(nullptr);
        _exit(code);
    }
    close(fds[1]);
    std::string msg;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, size_t(n));
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    std::string how = WIFSIGNALED(st) ? std::string("crashed (") + strsignal(WTERMSIG(st)) + ")" : "failed";
    throw std::runtime_error("Halide's " + a.halide_name + " auto-scheduler " + how + " on this pipeline" +
                             (msg.empty() ? std::string() : ": " + msg));
}

}  // namespace

std::string apply_halide_autoscheduler(const HalideAutoscheduler &a, const std::vector<Func> &outputs,
                                       const Target &target) {
    static std::mutex mu;
    static std::set<std::string> loaded;
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!loaded.count(a.plugin)) {
            load_plugin(std::string(SOLDER_HALIDE_LIB_DIR) + "/" + a.plugin);
            loaded.insert(a.plugin);
        }
    }
    bool gpu = is_gpu_target(target);
    std::map<std::string, std::string> params;
    // The H100 has 132 SMs; on the host, 16 threads' worth of parallelism.
    params["parallelism"] = gpu ? "132" : "16";
    if (a.name == "mullapudi2016" && gpu) params["experimental_gpu_schedule"] = "1";
    auto run = [&] {
        Pipeline p(outputs);
        return p.apply_autoscheduler(target, AutoschedulerParams(a.halide_name, params)).schedule_source;
    };
    probe_in_child(a, [&] { run(); });
    return run();
}

}  // namespace solder
