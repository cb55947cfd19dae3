#include "runtime/l2_flush.h"

#include <dlfcn.h>

namespace solder {

namespace {
template<typename F>
F sym(void *lib, const char *name) {
    return reinterpret_cast<F>(dlsym(lib, name));
}
}  // namespace

L2Flusher::L2Flusher() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    auto init = sym<int (*)(unsigned)>(lib_, "cuInit");
    auto get = sym<int (*)(int *, int)>(lib_, "cuDeviceGet");
    auto retain = sym<int (*)(void **, int)>(lib_, "cuDevicePrimaryCtxRetain");
    auto push = sym<int (*)(void *)>(lib_, "cuCtxPushCurrent_v2");
    auto pop = sym<int (*)(void **)>(lib_, "cuCtxPopCurrent_v2");
    auto alloc = sym<int (*)(unsigned long long *, size_t)>(lib_, "cuMemAlloc_v2");
    int dev = 0;
    if (!init || !get || !retain || !push || !pop || !alloc) return;
    if (init(0) || get(&dev, 0) || retain(&ctx_, dev)) return;
    push(ctx_);
    if (alloc(&ptr_, bytes_)) ptr_ = 0;
    void *old;
    pop(&old);
}

L2Flusher::~L2Flusher() {
    if (!ptr_) return;
    auto push = sym<int (*)(void *)>(lib_, "cuCtxPushCurrent_v2");
    auto pop = sym<int (*)(void **)>(lib_, "cuCtxPopCurrent_v2");
    auto free_ = sym<int (*)(unsigned long long)>(lib_, "cuMemFree_v2");
    push(ctx_);
    free_(ptr_);
    void *old;
    pop(&old);
}

void L2Flusher::flush() {
    if (!ptr_) return;
    auto push = sym<int (*)(void *)>(lib_, "cuCtxPushCurrent_v2");
    auto pop = sym<int (*)(void **)>(lib_, "cuCtxPopCurrent_v2");
    auto memset = sym<int (*)(unsigned long long, unsigned char, size_t)>(lib_, "cuMemsetD8_v2");
    auto sync = sym<int (*)()>(lib_, "cuCtxSynchronize");
    push(ctx_);
    memset(ptr_, 0, bytes_);
    sync();
    void *old;
    pop(&old);
}

void L2Flusher::flush_async() {
    if (!ptr_) return;
    auto push = sym<int (*)(void *)>(lib_, "cuCtxPushCurrent_v2");
    auto pop = sym<int (*)(void **)>(lib_, "cuCtxPopCurrent_v2");
    auto memset = sym<int (*)(unsigned long long, unsigned char, size_t, void *)>(lib_, "cuMemsetD8Async");
    push(ctx_);
    memset(ptr_, 0, bytes_, nullptr);
    void *old;
    pop(&old);
}

}  // namespace solder
