// Linked into every pipeline library Solder builds. Halide's GPU runtimes find the driver's
// functions through halide_get_library_symbol (a weak symbol); this strong definition hands them
// wrappers for the launch calls, so Solder counts kernel launches and records their geometry on
// any machine, without a profiler. It also keeps Halide's runtime errors instead of aborting. Plain C++: no Halide library, no OpenCL or CUDA headers.
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "runtime/launch_probes.h"
#include "runtime/launch_record.h"

namespace {

std::atomic<int64_t> g_launches{0};
constexpr int kMaxRecords = 4096;
solder_launch_record g_records[kMaxRecords];
std::atomic<int> g_nrecords{0};

// Returns the record's slot, or -1 once the records are full.
int record(int api, const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t shmem) {
    g_launches++;
    int i = g_nrecords.fetch_add(1);
    if (i >= kMaxRecords) return -1;
    solder_launch_record &r = g_records[i];
    r.api = api;
    std::snprintf(r.kernel, sizeof(r.kernel), "%s", kernel ? kernel : "?");  // long names cut short
    for (int k = 0; k < 3; k++) r.grid[k] = grid[k], r.block[k] = block[k];
    r.shared_bytes = shmem;
    return i;
}

// SOLDER_INJECT_FAULT=launch (runtime/fault_injection.h) turns this on in the one library being
// tried; every library has its own copy of these hooks, so a fallback library launches normally.
std::atomic<bool> g_inject_launch_fault{false};
// The kernel whose launch failed last (injected or real): Halide's message does not name it.
char g_failed_kernel[96];

void note_failed_launch(const char *kernel) {
    std::strncpy(g_failed_kernel, kernel ? kernel : "?", sizeof(g_failed_kernel) - 1);
    g_failed_kernel[sizeof(g_failed_kernel) - 1] = 0;
}

// --- OpenCL ---
using cl_enqueue_t = int (*)(void *, void *, unsigned, const size_t *, const size_t *, const size_t *, unsigned,
                             const void *, void *);
using cl_kernel_info_t = int (*)(void *, unsigned, size_t, void *, size_t *);
cl_enqueue_t real_cl_enqueue = nullptr;
cl_kernel_info_t real_cl_kernel_info = nullptr;
constexpr unsigned CL_KERNEL_FUNCTION_NAME = 0x1190;
constexpr int CL_OUT_OF_RESOURCES = -5;

int hooked_cl_enqueue(void *queue, void *kernel, unsigned dims, const size_t *offset, const size_t *global,
                      const size_t *local, unsigned nwait, const void *wait, void *event) {
    char name[96] = "?";
    if (real_cl_kernel_info) real_cl_kernel_info(kernel, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, nullptr);
    uint32_t g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
    for (unsigned k = 0; k < dims && k < 3; k++) {
        b[k] = local ? uint32_t(local[k]) : 1;
        g[k] = uint32_t(global[k] / (b[k] ? b[k] : 1));
    }
    int slot = record(SOLDER_API_OPENCL, name, g, b, probes::take_opencl_local_bytes(kernel));
    int rc = g_inject_launch_fault ? CL_OUT_OF_RESOURCES
                                   : probes::timed_cl_enqueue(slot, real_cl_enqueue, static_cast<void **>(event), queue,
                                                              kernel, dims, offset, global, local, nwait, wait);
    if (rc != 0) note_failed_launch(name);
    return rc;
}

// --- CUDA driver ---
using cu_launch_t = int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                            void **, void **);
cu_launch_t real_cu_launch = nullptr;
using cu_func_name_t = int (*)(const char **, void *);
cu_func_name_t real_cu_func_name = nullptr;  // cuFuncGetName: CUDA 12.3 and later only
using cu_func_set_attribute_t = int (*)(void *, int, int);
cu_func_set_attribute_t real_cu_func_set_attribute = nullptr;
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: a kernel may use more than 48 KB of dynamic
// shared memory only once this is raised. Halide's runtime never raises it; the planner's
// inner-outer kernels need it (schedules/inner_outer/inner_outer_plan.h), so every launch above 48 KB opts in.
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr unsigned kDefaultSharedBytes = 48 * 1024;
constexpr int CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;

int hooked_cu_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                     unsigned shmem, void *stream, void **params, void **extra) {
    uint32_t g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
    const char *name = probes::cuda_kernel_name(f);
    int slot = record(SOLDER_API_CUDA, name, g, b, shmem);
    if (shmem > kDefaultSharedBytes && real_cu_func_set_attribute) {
        int rc = real_cu_func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(shmem));
        if (rc != 0) {
            note_failed_launch(name);
            return rc;
        }
    }
    int rc = g_inject_launch_fault ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
                                   : probes::timed_cu_launch(slot, stream, real_cu_launch, f, gx, gy, gz, bx, by, bz,
                                                             shmem, stream, params, extra);
    if (rc != 0) {
        const char *driver_name = nullptr;
        if (real_cu_func_name && real_cu_func_name(&driver_name, f) == 0 && driver_name) name = driver_name;
        note_failed_launch(name);
    }
    return rc;
}

char g_last_error[4096];

}  // namespace

extern "C" {

// Halide's default handler aborts the process; Solder's keeps the message and lets the pipeline
// return its error code, so a bad schedule or bad input is reported, not a crash.
void halide_error(void *, const char *msg) {
    std::strncpy(g_last_error, msg ? msg : "", sizeof(g_last_error) - 1);
    g_last_error[sizeof(g_last_error) - 1] = 0;
}

const char *solder_hooks_last_error() { return g_last_error; }

// Halide's CUDA runtime creates a context of its own; Solder runs every pipeline library in the
// device's primary context instead, the one the CUDA runtime API, PyTorch and Solder's L2 flush
// use. Two contexts on one GPU time-slice: every switch between them costs ~150 us per call.
int halide_cuda_acquire_context(void *, void **ctx, bool create) {
    static void *primary = nullptr;
    if (!primary) {
        if (!create) {
            *ctx = nullptr;
            return 0;
        }
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return -1;
        auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuInit"));
        auto get = reinterpret_cast<int (*)(int *, int)>(dlsym(lib, "cuDeviceGet"));
        auto retain = reinterpret_cast<int (*)(void **, int)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
        int dev = 0;
        if (!init || !get || !retain || init(0) || get(&dev, 0) || retain(&primary, dev)) return -1;
    }
    *ctx = primary;
    return 0;
}

int halide_cuda_release_context(void *) { return 0; }

void *halide_get_library_symbol(void *lib, const char *name) {
    void *sym = dlsym(lib ? lib : RTLD_DEFAULT, name);
    if (!sym) return sym;
    if (void *wrapped = probes::wrap_symbol(lib, name, sym)) return wrapped;
    if (std::strcmp(name, "clEnqueueNDRangeKernel") == 0) {
        real_cl_enqueue = reinterpret_cast<cl_enqueue_t>(sym);
        real_cl_kernel_info = reinterpret_cast<cl_kernel_info_t>(dlsym(lib ? lib : RTLD_DEFAULT, "clGetKernelInfo"));
        return reinterpret_cast<void *>(&hooked_cl_enqueue);
    }
    if (std::strcmp(name, "cuLaunchKernel") == 0) {
        real_cu_launch = reinterpret_cast<cu_launch_t>(sym);
        real_cu_func_name = reinterpret_cast<cu_func_name_t>(dlsym(lib ? lib : RTLD_DEFAULT, "cuFuncGetName"));
        real_cu_func_set_attribute =
            reinterpret_cast<cu_func_set_attribute_t>(dlsym(lib ? lib : RTLD_DEFAULT, "cuFuncSetAttribute"));
        return reinterpret_cast<void *>(&hooked_cu_launch);
    }
    return sym;
}

int64_t solder_hooks_launches() { return g_launches.load(); }
int solder_hooks_records(const solder_launch_record **out) {
    *out = g_records;
    int n = g_nrecords.load();
    return n < kMaxRecords ? n : kMaxRecords;
}
void solder_hooks_inject_launch_fault(int on) { g_inject_launch_fault = on != 0; }
const char *solder_hooks_failed_kernel() { return g_failed_kernel; }
void solder_hooks_reset() {
    g_last_error[0] = 0;
    g_failed_kernel[0] = 0;
    g_launches = 0;
    g_nrecords = 0;
    probes::reset_times();
}

}  // extern "C"
