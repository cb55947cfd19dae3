// Flushes the GPU's L2 cache between timed runs (as triton's do_bench does): a 256 MB memset in the
// device's primary context, through the CUDA driver loaded at run time. Without a GPU, flush() does
// nothing.
#pragma once
#include <cstddef>

#include "runtime/cuda_driver.h"

namespace solder {

class L2Flusher {
public:
    L2Flusher();  // allocates only if a CUDA device is present
    ~L2Flusher();
    L2Flusher(const L2Flusher &) = delete;
    L2Flusher &operator=(const L2Flusher &) = delete;
    bool active() const { return ptr_ != 0; }
    void flush();  // and wait for it
    // Enqueues the flush on the default stream and returns at once (event timing, do_bench-style).
    void flush_async();

private:
    CudaDriver cuda_;
    unsigned long long ptr_ = 0;
    size_t bytes_ = size_t(256) << 20;
    int (*memset_)(unsigned long long, unsigned char, size_t) = nullptr;
    int (*memset_async_)(unsigned long long, unsigned char, size_t, void *) = nullptr;
    int (*sync_)() = nullptr;
    int (*free_)(unsigned long long) = nullptr;
};

}  // namespace solder
