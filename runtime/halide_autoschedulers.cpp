#include "runtime/halide_autoschedulers.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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

bool this_is_a_child = false;

}  // namespace

// Halide's plugins report some failures by throwing through code built without exception
// support, which ends the process (std::terminate). So an auto-scheduler runs first in a forked
// child: a crash there becomes an error that names it and carries its message, instead of taking
// Solder down.
ChildOutcome run_forked(const std::function<std::string()> &work) {
    ChildOutcome r;
    auto here = [&] {  // no child possible: run here, unprotected
        r.out = work();
        r.ok = true;
        return r;
    };
    int errs[2], result[2];
    if (pipe(errs) != 0) return here();
    if (pipe(result) != 0) {
        close(errs[0]);
        close(errs[1]);
        return here();
    }
    fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
        for (int fd : {errs[0], errs[1], result[0], result[1]}) close(fd);
        return here();
    }
    if (pid == 0) {
        close(errs[0]);
        close(result[0]);
        dup2(errs[1], 2);  // the child's error messages go to the parent
        this_is_a_child = true;
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
            std::string out = work();
            for (size_t at = 0; at < out.size();) {
                ssize_t n = write(result[1], out.data() + at, out.size() - at);
                if (n <= 0) break;
                at += size_t(n);
            }
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
    close(errs[1]);
    close(result[1]);
    // Both pipes are read to their ends together (a child that fills one while the parent waits on
    // the other would hang): poll them.
    pollfd fds[2] = {{errs[0], POLLIN, 0}, {result[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[4096];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                (i ? r.out : r.err).append(buf, size_t(n));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (auto &f : fds)
        if (f.fd >= 0) close(f.fd);
    int st = 0;
    waitpid(pid, &st, 0);
    while (!r.err.empty() && (r.err.back() == '\n' || r.err.back() == ' ')) r.err.pop_back();
    r.ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    r.threw = WIFEXITED(st) && WEXITSTATUS(st) == 3;
    if (!r.ok) r.how = WIFSIGNALED(st) ? std::string("crashed (") + strsignal(WTERMSIG(st)) + ")" : "failed";
    return r;
}

std::string run_in_child(const std::string &what, const std::function<std::string()> &work) {
    ChildOutcome r = run_forked(work);
    if (r.ok) return r.out;
    throw std::runtime_error(what + " " + r.how + " on this pipeline" + (r.err.empty() ? std::string() : ": " + r.err));
}

bool running_in_child() { return this_is_a_child; }

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
    // In a child already (a caller that runs the whole comparison there), once is enough.
    if (!this_is_a_child) run_in_child("Halide's " + a.halide_name + " auto-scheduler", [&] { return run(); });
    return run();
}

}  // namespace solder
