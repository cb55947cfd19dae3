// Times device work with CUDA events on the default stream (what triton's do_bench does): the
// time between two events recorded around a pipeline call, while the L2 flush enqueued before it
// still runs. The host's launch overhead overlaps that flush, as it does for torch.compile's
// numbers, so the two are measured alike. Through the CUDA driver loaded at run time, in the
// device's primary context (where Solder's launch hooks put Halide's kernels); without a GPU
// active() is false.
#pragma once

#include "runtime/cuda_driver.h"

namespace solder {

class EventTimer {
public:
    EventTimer();
    ~EventTimer();
    EventTimer(const EventTimer &) = delete;
    EventTimer &operator=(const EventTimer &) = delete;
    bool active() const { return start_ != nullptr; }
    void start();
    // Records the end, waits for it, and returns the microseconds since start() on the device
    // (negative if the driver failed).
    double stop_us();

private:
    CudaDriver cuda_;
    void *start_ = nullptr, *end_ = nullptr;
    int (*destroy_)(void *) = nullptr;
    int (*record_)(void *, void *) = nullptr;
    int (*wait_)(void *) = nullptr;
    int (*elapsed_)(float *, void *, void *) = nullptr;
};

}  // namespace solder
