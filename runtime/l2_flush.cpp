#include "runtime/l2_flush.h"

namespace solder {

L2Flusher::L2Flusher() {
    auto alloc = cuda_.sym<int (*)(unsigned long long *, size_t)>("cuMemAlloc_v2");
    memset_ = cuda_.sym<int (*)(unsigned long long, unsigned char, size_t)>("cuMemsetD8_v2");
    memset_async_ = cuda_.sym<int (*)(unsigned long long, unsigned char, size_t, void *)>("cuMemsetD8Async");
    sync_ = cuda_.sym<int (*)()>("cuCtxSynchronize");
    free_ = cuda_.sym<int (*)(unsigned long long)>("cuMemFree_v2");
    if (!cuda_.ok() || !alloc || !memset_ || !memset_async_ || !sync_ || !free_) return;
    cuda_.in_context([&] {
        if (alloc(&ptr_, bytes_)) ptr_ = 0;
    });
}

L2Flusher::~L2Flusher() {
    if (ptr_) cuda_.in_context([&] { free_(ptr_); });
}

void L2Flusher::flush() {
    if (!ptr_) return;
    cuda_.in_context([&] {
        memset_(ptr_, 0, bytes_);
        sync_();
    });
}

void L2Flusher::flush_async() {
    if (ptr_) cuda_.in_context([&] { memset_async_(ptr_, 0, bytes_, nullptr); });
}

}  // namespace solder
