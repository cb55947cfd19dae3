// `solder-soak N [--start S] [--target host|opencl] [--batch B] [--family graphs|user|typed|tensor|siblings|fixed]
// [--unfused]
// [--timeout SECONDS]`: runs N random planner tests with a progress line, and prints the seeds that
// failed. Families: the tensor layer's random graphs (tests/support/random_graphs.h; --unfused also
// compares each batch with the unfused schedule, use small batches: it compiles slowly), or Halide
// pipelines written as users write them (tests/support/random_user_pipelines.h), or such pipelines
// over 8- and 16-bit images (tests/support/random_typed_pipelines.h), or 4-D tensor pipelines as
// network layers are written (tests/support/random_tensor_pipelines.h), or groups of reductions
// over the same points sharing a load (tests/support/random_sibling_reductions.h), or fixed-point
// chains of Halide's integer intrinsics (tests/support/random_fixed_point.h). With --timeout each batch
// runs in a child process: a seed that hangs a compiler or crashes the process is reported as failed
// and the soak goes on.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>

#include "cli/args.h"
#include "runtime/app_build.h"
#include "tests/support/random_graphs.h"
#include "tests/support/random_tensor_pipelines.h"
#include "tests/support/random_fixed_point.h"
#include "tests/support/random_sibling_reductions.h"
#include "tests/support/random_typed_pipelines.h"
#include "tests/support/random_user_pipelines.h"

namespace {

using namespace solder;

struct BatchResult {
    std::vector<uint64_t> failed;
    std::vector<std::string> messages;
    double max_plan_ms = 0;
};

BatchResult run_batch(const std::string &family, const std::vector<uint64_t> &seeds, const std::string &target,
                      bool unfused) {
    BatchResult b;
    if (family == "user") {
        auto r = testing::run_random_user_pipelines(seeds, target);
        b.failed = r.failed_seeds, b.messages = r.messages;
    } else if (family == "typed") {
        auto r = testing::run_random_typed_pipelines(seeds, target);
        b.failed = r.failed_seeds, b.messages = r.messages;
    } else if (family == "tensor") {
        auto r = testing::run_random_tensor_pipelines(seeds, target);
        b.failed = r.failed_seeds, b.messages = r.messages;
    } else if (family == "siblings") {
        auto r = testing::run_random_sibling_reductions(seeds, target);
        b.failed = r.failed_seeds, b.messages = r.messages;
    } else if (family == "fixed") {
        auto r = testing::run_random_fixed_point(seeds, target);
        b.failed = r.failed_seeds, b.messages = r.messages;
    } else {
        auto r = testing::run_random_batch(seeds, target, default_out_dir(), unfused);
        b.failed = r.failed_seeds, b.messages = r.messages;
        b.max_plan_ms = r.max_plan_ms;
    }
    return b;
}

// The result as the child writes it to the parent: the plan time, the failed seeds, then each
// message after its length.
std::string serialize(const BatchResult &b) {
    std::ostringstream o;
    o << b.max_plan_ms << "\n" << b.failed.size();
    for (uint64_t s : b.failed) o << " " << s;
    o << "\n";
    for (const std::string &m : b.messages) o << m.size() << "\n" << m;
    return o.str();
}

BatchResult deserialize(const std::string &text) {
    BatchResult b;
    std::istringstream in(text);
    size_t n = 0;
    in >> b.max_plan_ms >> n;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = 0;
        in >> s;
        b.failed.push_back(s);
    }
    size_t len = 0;
    while (in >> len) {
        in.get();  // the newline after the length
        std::string m(len, '\0');
        in.read(m.data(), std::streamsize(len));
        b.messages.push_back(m);
    }
    if (!in.eof() && in.fail() && b.failed.empty()) throw std::runtime_error("unreadable result from the child");
    return b;
}

// SOLDER_SOAK_FAULT=hang:SEED or crash:SEED: a child whose batch holds SEED sleeps forever or
// aborts instead of running it (how the tests check --timeout).
void injected_fault(const std::vector<uint64_t> &seeds) {
    const char *e = std::getenv("SOLDER_SOAK_FAULT");
    if (e == nullptr) return;
    const std::string v = e;
    const size_t colon = v.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("SOLDER_SOAK_FAULT must be hang:SEED or crash:SEED");
    const std::string kind = v.substr(0, colon);
    const uint64_t seed = uint64_t(parse_integer("SOLDER_SOAK_FAULT's seed", v.substr(colon + 1), 0, INT64_MAX));
    if (kind != "hang" && kind != "crash")
        throw std::invalid_argument("SOLDER_SOAK_FAULT must be hang:SEED or crash:SEED, got '" + v + "'");
    if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end()) return;
    if (kind == "crash") std::abort();
    for (;;) pause();
}

// A batch running in a child process: a hang (a device compiler that never returns) or a crash (an
// assertion in LLVM) fails the batch's seeds instead of the soak.
struct Child {
    pid_t pid = -1;
    int fd = -1;
    std::vector<uint64_t> seeds;
    int seconds = 0;  // 0: no limit
    std::chrono::steady_clock::time_point deadline;
    std::string text;  // what it wrote so far
};

Child start_child(const std::string &family, const std::vector<uint64_t> &seeds, const std::string &target,
                  bool unfused, int seconds) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        int code = 0;
        std::string out;
        try {
            injected_fault(seeds);
            out = serialize(run_batch(family, seeds, target, unfused));
        } catch (const std::exception &e) {
            BatchResult b;
            b.failed = seeds;
            b.messages.push_back(std::string("the batch threw: ") + e.what());
            out = serialize(b);
        }
        for (size_t done = 0; done < out.size();) {
            const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
            if (n <= 0) {
                code = 3;
                break;
            }
            done += size_t(n);
        }
        close(fds[1]);
        std::fflush(nullptr);
        _exit(code);
    }
    close(fds[1]);
    Child c;
    c.pid = pid;
    c.fd = fds[0];
    c.seeds = seeds;
    c.seconds = seconds;
    c.deadline = seconds > 0 ? std::chrono::steady_clock::now() + std::chrono::seconds(seconds)
                             : std::chrono::steady_clock::time_point::max();
    return c;
}

// Reaps a child whose output ended (or that ran out of time) and reads its result.
BatchResult finish_child(Child &c, bool timed_out) {
    close(c.fd);
    if (timed_out) kill(c.pid, SIGKILL);
    int status = 0;
    waitpid(c.pid, &status, 0);
    std::string why;
    if (timed_out) {
        why = "timed out after " + std::to_string(c.seconds) + " s";
    } else if (WIFSIGNALED(status)) {
        why =
            "the process died of signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        why = "the process exited with status " + std::to_string(WEXITSTATUS(status));
    } else {
        return deserialize(c.text);
    }
    BatchResult b;
    b.failed = c.seeds;
    std::string names;
    for (uint64_t s : c.seeds) names += (names.empty() ? "" : ", ") + std::to_string(s);
    b.messages.push_back("seed" + std::string(c.seeds.size() > 1 ? "s " : " ") + names + ": " + why);
    return b;
}

// Runs `batches` in up to `jobs` child processes at once, each stopped after `seconds_per_seed`
// per seed in it (0: no limit); `done` gets each batch's result as it ends.
void run_isolated(const std::vector<std::vector<uint64_t>> &batches, const std::string &family,
                  const std::string &target, bool unfused, int seconds_per_seed, int jobs,
                  const std::function<void(const BatchResult &, const std::vector<uint64_t> &)> &done) {
    std::vector<Child> running;
    size_t next = 0;
    while (next < batches.size() || !running.empty()) {
        while (next < batches.size() && int(running.size()) < jobs) {
            const auto &b = batches[next++];
            running.push_back(start_child(family, b, target, unfused, seconds_per_seed * int(b.size())));
        }
        std::vector<pollfd> fds;
        auto soonest = std::chrono::steady_clock::time_point::max();
        for (const Child &c : running) {
            fds.push_back({c.fd, POLLIN, 0});
            soonest = std::min(soonest, c.deadline);
        }
        int wait_ms = 1000;
        if (soonest != std::chrono::steady_clock::time_point::max()) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(soonest - std::chrono::steady_clock::now());
            wait_ms = int(std::clamp<int64_t>(left.count(), 0, 1000));
        }
        const int r = poll(fds.data(), fds.size(), wait_ms);
        if (r < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        const auto now = std::chrono::steady_clock::now();
        for (size_t k = running.size(); k-- > 0;) {
            Child &c = running[k];
            bool ended = false, timed_out = false;
            if (r > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
                char buf[65536];
                const ssize_t n = read(c.fd, buf, sizeof(buf));
                if (n <= 0)
                    ended = true;  // end of the child's output
                else
                    c.text.append(buf, size_t(n));
            }
            if (!ended && now >= c.deadline) ended = timed_out = true;
            if (!ended) continue;
            const std::vector<uint64_t> seeds = c.seeds;
            const BatchResult res = finish_child(c, timed_out);
            running.erase(running.begin() + long(k));
            done(res, seeds);
        }
    }
}

}  // namespace

int main(int argc, char **argv) {
    // (PoCL's work-groups capped at CUDA's 1024 threads per block, as in the tests: a kernel that
    // would launch more on a GPU fails here too.)
    setenv("POCL_MAX_WORK_GROUP_SIZE", "1024", 0);
    try {
        Args a = Args::parse(argc, argv, 1, {"start", "target", "batch", "family", "timeout", "jobs"}, {"unfused"});
        const char *usage =
            "usage: solder-soak N [--start S (default 1)] [--target host|opencl (default host)] [--batch B (default "
            "50)]\n"
            "                   [--family graphs|user|typed|tensor|siblings|fixed (default graphs)] [--unfused]\n"
            "                   [--timeout SECONDS]\n"
            "                   [--jobs J (default 1)]\n"
            "plans, compiles and runs N random pipelines against their reference; prints the seeds that failed.\n"
            "  graphs: tensor-layer graphs against an eager reference (--unfused also compares the unfused schedule)\n"
            "  user:   Halide pipelines written as users write them (scans, histograms, Tuples, parameter RDoms,\n"
            "          boundary conditions, resampling) against every Func at root, at several sizes\n"
            "  typed:  such pipelines over uint8, uint16, int16 and float16 images (lookup tables, equalization,\n"
            "          IIR scans in the narrow type, wrapping arithmetic), integer ones matched exactly\n"
            "  tensor: 4-D layers over float32, float64 and bfloat16 tensors, channels first or last (channel\n"
            "          mixing, softmax, normalizations, pooling, gathers, an extern stage, scalar outputs)\n"
            "  siblings: sums, maxima and minima over the same row, column or parameter window sharing a load\n"
            "  fixed:  8- and 16-bit chains of Halide's integer intrinsics (widening, rounding and saturating\n"
            "          arithmetic, halving adds, absd, mul_shift_right, leading zeros), matched exactly\n"
            "--timeout: each batch runs in a child process, stopped after SECONDS per seed in it; a seed that\n"
            "  hangs or crashes the process fails (with --batch 1, that seed alone) and the soak goes on\n"
            "--jobs: that many batches' child processes at once (without --timeout: no time limit)\n";
        if (a.has("help")) {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a.positional.size() != 1) {
            std::fputs(usage, stderr);
            return 2;
        }
        const uint64_t n = uint64_t(parse_integer("N", a.positional[0], 1, INT64_MAX));
        const uint64_t start = uint64_t(a.integer("start", 1, 0, INT64_MAX));
        const uint64_t batch = uint64_t(a.integer("batch", 50, 1, 100000));
        const int timeout = int(a.integer("timeout", 0, 0, 86400));
        const int jobs = int(a.integer("jobs", 1, 1, 256));
        const std::string target = a.get("target", "host");
        const std::string family = a.get("family", "graphs");
        if (family != "graphs" && family != "user" && family != "typed" && family != "tensor" && family != "siblings" &&
            family != "fixed")
            throw std::invalid_argument("--family must be graphs, user, typed, tensor, siblings or fixed, got '" +
                                        family + "'");
        const char *what = family == "graphs" ? "graphs" : "pipelines";
        std::vector<uint64_t> failed;
        double max_ms = 0;
        uint64_t finished = 0;
        auto report = [&](const BatchResult &r, const std::vector<uint64_t> &seeds) {
            for (auto &m : r.messages) std::fprintf(stderr, "FAIL %s\n", m.c_str());
            failed.insert(failed.end(), r.failed.begin(), r.failed.end());
            max_ms = std::max(max_ms, r.max_plan_ms);
            finished += seeds.size();
            std::fprintf(stderr, "\r[soak] %llu/%llu %s, %zu failed", (unsigned long long)finished,
                         (unsigned long long)n, what, failed.size());
            if (family == "graphs") std::fprintf(stderr, ", max plan %.1f ms", max_ms);
            std::fprintf(stderr, "   ");
        };
        std::vector<std::vector<uint64_t>> batches;
        for (uint64_t s = start; s < start + n; s += batch) {
            batches.emplace_back();
            for (uint64_t k = s; k < std::min(start + n, s + batch); k++) batches.back().push_back(k);
        }
        if (timeout > 0 || jobs > 1) {
            run_isolated(batches, family, target, a.has("unfused"), timeout, jobs, report);
        } else {
            for (const auto &seeds : batches) report(run_batch(family, seeds, target, a.has("unfused")), seeds);
        }
        std::sort(failed.begin(), failed.end());
        std::fprintf(stderr, "\n");
        std::printf("%llu %s, %zu failed\n", (unsigned long long)n, what, failed.size());
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
