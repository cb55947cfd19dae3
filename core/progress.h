// A notice on stderr for work that turns out long: constructed when a step starts, it prints
// "solder: <what>..." only once the step has run `after_s` seconds, and then "solder: <what>: done in
// N s" when it ends, so quick steps stay silent. SOLDER_QUIET=1 silences it. Halide-free.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace solder {

// SOLDER_QUIET=1: no notices or warnings on stderr.
inline bool quiet_requested() {
    const char *q = std::getenv("SOLDER_QUIET");
    return q && std::string(q) == "1";
}

class SlowStepNotice {
public:
    explicit SlowStepNotice(std::string what, double after_s = 2.0) : what_(std::move(what)) {
        if (quiet_requested()) return;
        start_ = std::chrono::steady_clock::now();
        watcher_ = std::thread([this, after_s] {
            std::unique_lock<std::mutex> l(mu_);
            if (cv_.wait_for(l, std::chrono::duration<double>(after_s), [this] { return done_; })) return;
            std::fprintf(stderr, "solder: %s...\n", what_.c_str());
            std::fflush(stderr);
            announced_ = true;
        });
    }
    ~SlowStepNotice() {
        if (!watcher_.joinable()) return;
        {
            std::lock_guard<std::mutex> l(mu_);
            done_ = true;
        }
        cv_.notify_all();
        watcher_.join();
        if (announced_) {
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
            std::fprintf(stderr, "solder: %s: done in %.1f s\n", what_.c_str(), s);
        }
    }
    SlowStepNotice(const SlowStepNotice &) = delete;
    SlowStepNotice &operator=(const SlowStepNotice &) = delete;

private:
    std::string what_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false, announced_ = false;
    std::thread watcher_;
};

}  // namespace solder
