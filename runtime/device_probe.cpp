#include "runtime/device_probe.h"

#include <dlfcn.h>

namespace solder {

bool cuda_gpu_present() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<int (*)(int *)>(dlsym(lib, "cuDeviceGetCount"));
    int n = 0;
    bool ok = init && count && init(0) == 0 && count(&n) == 0 && n > 0;
    return ok;  // the library stays loaded: unloading a driver library can break later loads
}

bool opencl_device_present() {
    void *lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    auto platforms = reinterpret_cast<int (*)(unsigned, void **, unsigned *)>(dlsym(lib, "clGetPlatformIDs"));
    unsigned n = 0;
    return platforms && platforms(0, nullptr, &n) == 0 && n > 0;
}

std::string best_target_name() {
    if (cuda_gpu_present()) return "cuda";
    if (opencl_device_present()) return "opencl";
    return "host";
}

}  // namespace solder
