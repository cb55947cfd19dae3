// Flushes the GPU's L2 cache between timed runs (as triton's do_bench does): a 256 MB memset in a
// context of our own, through the CUDA driver loaded at run time. Without a GPU, flush() does nothing.
#pragma once
#include <cstddef>

namespace solder {

class L2Flusher {
public:
    L2Flusher();  // allocates only if a CUDA device is present
    ~L2Flusher();
    bool active() const { return ptr_ != 0; }
    void flush();  // and wait for it
    // Enqueues the flush on the default stream and returns at once (event timing, do_bench-style).
    void flush_async();

private:
    void *lib_ = nullptr;
    void *ctx_ = nullptr;
    unsigned long long ptr_ = 0;
    size_t bytes_ = size_t(256) << 20;
};

}  // namespace solder
