#include "runtime/event_timer.h"

#include <dlfcn.h>

namespace solder {

namespace {
template<typename F>
F sym(void *lib, const char *name) {
    return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}
// Runs `body` with the primary context current.
template<typename F>
void in_context(void *lib, void *ctx, F body) {
    auto push = sym<int (*)(void *)>(lib, "cuCtxPushCurrent_v2");
    auto pop = sym<int (*)(void **)>(lib, "cuCtxPopCurrent_v2");
    push(ctx);
    body();
    void *old;
    pop(&old);
}
}  // namespace

EventTimer::EventTimer() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto init = sym<int (*)(unsigned)>(lib_, "cuInit");
    auto get = sym<int (*)(int *, int)>(lib_, "cuDeviceGet");
    auto retain = sym<int (*)(void **, int)>(lib_, "cuDevicePrimaryCtxRetain");
    auto create = sym<int (*)(void **, unsigned)>(lib_, "cuEventCreate");
    int dev = 0;
    if (!init || !get || !retain || !create || init(0) || get(&dev, 0) || retain(&ctx_, dev)) return;
    in_context(lib_, ctx_, [&] {
        if (create(&start_, 0) || create(&end_, 0)) start_ = end_ = nullptr;
    });
}

EventTimer::~EventTimer() {
    if (!start_) return;
    auto destroy = sym<int (*)(void *)>(lib_, "cuEventDestroy_v2");
    in_context(lib_, ctx_, [&] {
        destroy(start_);
        destroy(end_);
    });
}

void EventTimer::start() {
    if (!start_) return;
    auto record = sym<int (*)(void *, void *)>(lib_, "cuEventRecord");
    in_context(lib_, ctx_, [&] { record(start_, nullptr); });
}

double EventTimer::stop_us() {
    if (!start_) return -1;
    auto record = sym<int (*)(void *, void *)>(lib_, "cuEventRecord");
    auto wait = sym<int (*)(void *)>(lib_, "cuEventSynchronize");
    auto elapsed = sym<int (*)(float *, void *, void *)>(lib_, "cuEventElapsedTime");
    float ms = -1;
    in_context(lib_, ctx_, [&] {
        if (record(end_, nullptr) || wait(end_) || elapsed(&ms, start_, end_)) ms = -1;
    });
    return ms < 0 ? -1 : double(ms) * 1e3;
}

}  // namespace solder
