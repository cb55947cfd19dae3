#include "runtime/cuda_driver.h"

#include <dlfcn.h>

namespace solder {

CudaDriver::CudaDriver() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto init = sym<int (*)(unsigned)>("cuInit");
    auto get = sym<int (*)(int *, int)>("cuDeviceGet");
    auto retain = sym<int (*)(void **, int)>("cuDevicePrimaryCtxRetain");
    push_ = sym<int (*)(void *)>("cuCtxPushCurrent_v2");
    pop_ = sym<int (*)(void **)>("cuCtxPopCurrent_v2");
    int dev = 0;
    void *ctx = nullptr;
    if (!init || !get || !retain || !push_ || !pop_ || init(0) || get(&dev, 0) || retain(&ctx, dev)) return;
    ctx_ = ctx;
}

void *CudaDriver::raw_sym(const char *name) const { return lib_ ? dlsym(lib_, name) : nullptr; }

}  // namespace solder
