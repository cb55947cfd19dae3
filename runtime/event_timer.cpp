#include "runtime/event_timer.h"

namespace solder {

EventTimer::EventTimer() {
    auto create = cuda_.sym<int (*)(void **, unsigned)>("cuEventCreate");
    destroy_ = cuda_.sym<int (*)(void *)>("cuEventDestroy_v2");
    record_ = cuda_.sym<int (*)(void *, void *)>("cuEventRecord");
    wait_ = cuda_.sym<int (*)(void *)>("cuEventSynchronize");
    elapsed_ = cuda_.sym<int (*)(float *, void *, void *)>("cuEventElapsedTime");
    if (!cuda_.ok() || !create || !destroy_ || !record_ || !wait_ || !elapsed_) return;
    cuda_.in_context([&] {
        if (create(&start_, 0) || create(&end_, 0)) start_ = end_ = nullptr;
    });
}

EventTimer::~EventTimer() {
    if (!start_) return;
    cuda_.in_context([&] {
        destroy_(start_);
        destroy_(end_);
    });
}

void EventTimer::start() {
    if (start_) cuda_.in_context([&] { record_(start_, nullptr); });
}

double EventTimer::stop_us() {
    if (!start_) return -1;
    float ms = -1;
    cuda_.in_context([&] {
        if (record_(end_, nullptr) || wait_(end_) || elapsed_(&ms, start_, end_)) ms = -1;
    });
    return ms < 0 ? -1 : double(ms) * 1e3;
}

}  // namespace solder
