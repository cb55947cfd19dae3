// What the launch records cannot see from the launch call alone, for the launch and bandwidth
// dumps: the names of CUDA kernels (a CUfunction is a bare handle; cuModuleGetFunction knows its
// name), OpenCL local memory (passed to clSetKernelArg as a size with a null value), and the device
// time of each launch (CUDA events around cuLaunchKernel, or OpenCL profiling events).
//
// Included by runtime/launch_hooks.cpp only: the hooks are linked into every pipeline library as
// one object file, so this half lives in a header rather than in a second object. Plain C++: no
// OpenCL or CUDA headers; the driver's functions come from the library handle Halide loaded.
//
// Timing is off unless the runner turns it on (solder_hooks_set_timing), so the default path makes
// no extra driver call besides the name and local-memory bookkeeping, and measures what it did.
#pragma once
#include <dlfcn.h>

#include <cstdint>
#include <cstring>

#include "runtime/launch_record.h"

namespace {
namespace probes {

constexpr int kMaxTimed = 4096;  // as many as the hooks keep records

void *symbol(void *lib, const char *name) { return dlsym(lib ? lib : RTLD_DEFAULT, name); }

// --- CUDA kernel names: CUfunction -> the name it was looked up by ---
// Halide looks a kernel up before every launch, so this is on the default path: a hash table keyed
// by the handle keeps it to a few nanoseconds whatever the number of kernels.
using cu_get_function_t = int (*)(void **, void *, const char *);
cu_get_function_t real_cu_get_function = nullptr;
struct NamedFunction {
    void *f;
    char name[96];
};
constexpr int kFunctionSlots = 2048;  // a power of two
NamedFunction g_functions[kFunctionSlots];
int g_nfunctions = 0;

// The slot holding `f`, or the empty slot where it goes (its home slot once the table is full).
int function_slot(void *f) {
    uint64_t h = (uint64_t(reinterpret_cast<uintptr_t>(f)) * 0x9E3779B97F4A7C15ull) >> 53;  // 11 bits
    int home = int(h) & (kFunctionSlots - 1);
    for (int i = 0; i < kFunctionSlots; i++) {
        int s = (home + i) & (kFunctionSlots - 1);
        if (g_functions[s].f == f || !g_functions[s].f) return s;
    }
    return home;
}

int hooked_cu_get_function(void **f, void *module, const char *name) {
    int rc = real_cu_get_function(f, module, name);
    if (rc != 0 || !f || !*f || !name) return rc;
    NamedFunction &e = g_functions[function_slot(*f)];
    if (e.f == *f && std::strncmp(e.name, name, sizeof(e.name) - 1) == 0) return rc;
    if (e.f != *f && g_nfunctions < kFunctionSlots) g_nfunctions++;
    e.f = *f;  // a handle that comes back for another module is renamed
    std::strncpy(e.name, name, sizeof(e.name) - 1);
    e.name[sizeof(e.name) - 1] = 0;
    return rc;
}

const char *cuda_kernel_name(void *f) {
    const NamedFunction &e = g_functions[function_slot(f)];
    return e.f == f ? e.name : "cuda_kernel";  // looked up before the hooks saw it
}

// --- OpenCL local memory: clSetKernelArg(kernel, index, bytes, NULL) before the launch ---
using cl_set_arg_t = int (*)(void *, unsigned, size_t, const void *);
cl_set_arg_t real_cl_set_arg = nullptr;
struct LocalArg {
    void *kernel;
    unsigned index;
    size_t bytes;
};
constexpr int kMaxLocalArgs = 64;
LocalArg g_local[kMaxLocalArgs];
int g_nlocal = 0;

int hooked_cl_set_arg(void *kernel, unsigned index, size_t bytes, const void *value) {
    int keep = 0;  // an argument set again replaces what it was
    for (int i = 0; i < g_nlocal; i++)
        if (g_local[i].kernel != kernel || g_local[i].index != index) g_local[keep++] = g_local[i];
    g_nlocal = keep;
    if (!value && g_nlocal < kMaxLocalArgs) g_local[g_nlocal++] = {kernel, index, bytes};
    return real_cl_set_arg(kernel, index, bytes, value);
}

// The local memory of the kernel about to be launched. Halide sets every argument before each
// launch, so the entries are dropped here: the table holds one kernel's arguments at a time.
uint32_t take_opencl_local_bytes(void *kernel) {
    size_t sum = 0;
    int keep = 0;
    for (int i = 0; i < g_nlocal; i++) {
        if (g_local[i].kernel == kernel)
            sum += g_local[i].bytes;
        else
            g_local[keep++] = g_local[i];
    }
    g_nlocal = keep;
    return uint32_t(sum);
}

// --- per-launch device time ---
int g_timing = SOLDER_TIMING_OFF;
float g_time_us[kMaxTimed];
bool g_resolved[kMaxTimed];
int g_used = 0;  // slots touched since the last reset

// OpenCL: a queue created with profiling on, and an event per launch.
using cl_create_queue_t = void *(*)(void *, void *, uint64_t, int *);
using cl_profiling_t = int (*)(void *, unsigned, size_t, void *, size_t *);
using cl_event_fn_t = int (*)(void *);
using cl_wait_t = int (*)(unsigned, void *const *);
cl_create_queue_t real_cl_create_queue = nullptr;
cl_profiling_t cl_profiling_info = nullptr;
cl_event_fn_t cl_release_event = nullptr, cl_retain_event = nullptr;
cl_wait_t cl_wait_for_events = nullptr;
constexpr uint64_t CL_QUEUE_PROFILING_ENABLE = 1 << 1;
constexpr unsigned CL_PROFILING_COMMAND_START = 0x1282, CL_PROFILING_COMMAND_END = 0x1283;
void *g_cl_events[kMaxTimed];

// Halide 21's OpenCL runtime makes its one queue with clCreateCommandQueue (its list of OpenCL
// functions has no clCreateCommandQueueWithProperties), on the first pipeline call.
void *hooked_cl_create_queue(void *context, void *device, uint64_t properties, int *err) {
    if (g_timing != SOLDER_TIMING_OFF && cl_profiling_info) properties |= CL_QUEUE_PROFILING_ENABLE;
    return real_cl_create_queue(context, device, properties, err);
}

template<typename Enqueue, typename... Args>
int timed_cl_enqueue(int slot, Enqueue enqueue, void **event, Args... args) {
    if (g_timing != SOLDER_TIMING_ON || slot < 0 || slot >= kMaxTimed || !cl_profiling_info)
        return enqueue(args..., event);
    void *own = nullptr;
    int rc = enqueue(args..., event ? event : &own);
    if (rc == 0 && event && *event && cl_retain_event) cl_retain_event(own = *event);
    if (rc == 0) g_cl_events[slot] = own;
    if (slot >= g_used) g_used = slot + 1;
    return rc;
}

// CUDA: a start and a stop event per record slot, made once and reused across runs.
using cu_event_create_t = int (*)(void **, unsigned);
using cu_event_record_t = int (*)(void *, void *);
using cu_event_sync_t = int (*)(void *);
using cu_event_elapsed_t = int (*)(float *, void *, void *);
using cu_ctx_get_t = int (*)(void **);
using cu_ctx_push_t = int (*)(void *);
cu_event_create_t cu_event_create = nullptr;
cu_event_record_t cu_event_record = nullptr;
cu_event_sync_t cu_event_sync = nullptr;
cu_event_elapsed_t cu_event_elapsed = nullptr;
cu_ctx_get_t cu_ctx_get = nullptr;
cu_ctx_push_t cu_ctx_push = nullptr;
cu_ctx_get_t cu_ctx_pop = nullptr;
void *g_cu_context = nullptr;  // the context the timed launches ran in (Halide pops it afterwards)
void *g_cu_start[kMaxTimed], *g_cu_stop[kMaxTimed];
bool g_cu_pending[kMaxTimed];

template<typename Launch, typename... Args> int timed_cu_launch(int slot, void *stream, Launch launch, Args... args) {
    bool timed = g_timing == SOLDER_TIMING_ON && slot >= 0 && slot < kMaxTimed && cu_event_record && cu_event_elapsed;
    // Made on first use, inside the context Halide launches in, so the events belong to it.
    if (timed && !g_cu_start[slot]) timed = cu_event_create(&g_cu_start[slot], 0) == 0;
    if (timed && !g_cu_stop[slot]) timed = cu_event_create(&g_cu_stop[slot], 0) == 0;
    if (timed) timed = cu_event_record(g_cu_start[slot], stream) == 0;
    if (timed && cu_ctx_get) cu_ctx_get(&g_cu_context);
    int rc = launch(args...);
    if (timed && rc == 0) g_cu_pending[slot] = cu_event_record(g_cu_stop[slot], stream) == 0;
    if (timed && slot >= g_used) g_used = slot + 1;
    return rc;
}

// Turns events into times; launches that were not timed get -1.
void resolve_times(int n) {
    // The runner asks after the pipeline returned, when Halide has popped its context: reading CUDA
    // events is done back inside the context that recorded them.
    bool pushed = false;
    for (int i = 0; i < n && i < kMaxTimed && !pushed; i++)
        if (g_cu_pending[i] && g_cu_context && cu_ctx_push && cu_ctx_pop) pushed = cu_ctx_push(g_cu_context) == 0;
    for (int i = 0; i < n && i < kMaxTimed; i++) {
        if (void *e = g_cl_events[i]) {
            uint64_t start = 0, end = 0;
            g_time_us[i] = -1;
            if ((!cl_wait_for_events || cl_wait_for_events(1, &e) == 0) &&
                cl_profiling_info(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) == 0 &&
                cl_profiling_info(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) == 0 && end >= start)
                g_time_us[i] = float(end - start) / 1000.0f;
            cl_release_event(e);
            g_cl_events[i] = nullptr;
        } else if (g_cu_pending[i]) {
            float ms = 0;
            g_time_us[i] = -1;
            if (cu_event_sync(g_cu_stop[i]) == 0 && cu_event_elapsed(&ms, g_cu_start[i], g_cu_stop[i]) == 0)
                g_time_us[i] = ms * 1000.0f;
            g_cu_pending[i] = false;
        } else if (!g_resolved[i]) {
            g_time_us[i] = -1;
        }
        g_resolved[i] = true;
    }
    if (n > g_used) g_used = n < kMaxTimed ? n : kMaxTimed;
    void *popped = nullptr;
    if (pushed) cu_ctx_pop(&popped);
}

// A new run starts: drop what the last one left unresolved.
void reset_times() {
    for (int i = 0; i < g_used; i++) {
        if (g_cl_events[i]) cl_release_event(g_cl_events[i]);
        g_cl_events[i] = nullptr;
        g_cu_pending[i] = false;
        g_resolved[i] = false;
    }
    g_used = 0;
}

// Called by halide_get_library_symbol for every driver function Halide looks up: returns a
// wrapper for the ones probed here (null for the rest), and finds the extra functions they need.
void *wrap_symbol(void *lib, const char *name, void *sym) {
    if (std::strcmp(name, "cuModuleGetFunction") == 0) {
        real_cu_get_function = reinterpret_cast<cu_get_function_t>(sym);
        cu_event_create = reinterpret_cast<cu_event_create_t>(symbol(lib, "cuEventCreate"));
        cu_event_record = reinterpret_cast<cu_event_record_t>(symbol(lib, "cuEventRecord"));
        cu_event_sync = reinterpret_cast<cu_event_sync_t>(symbol(lib, "cuEventSynchronize"));
        cu_event_elapsed = reinterpret_cast<cu_event_elapsed_t>(symbol(lib, "cuEventElapsedTime"));
        cu_ctx_get = reinterpret_cast<cu_ctx_get_t>(symbol(lib, "cuCtxGetCurrent"));
        cu_ctx_push = reinterpret_cast<cu_ctx_push_t>(symbol(lib, "cuCtxPushCurrent_v2"));
        cu_ctx_pop = reinterpret_cast<cu_ctx_get_t>(symbol(lib, "cuCtxPopCurrent_v2"));
        if (!cu_event_create || !cu_event_sync) cu_event_record = nullptr;
        return reinterpret_cast<void *>(&hooked_cu_get_function);
    }
    if (std::strcmp(name, "clSetKernelArg") == 0) {
        real_cl_set_arg = reinterpret_cast<cl_set_arg_t>(sym);
        return reinterpret_cast<void *>(&hooked_cl_set_arg);
    }
    if (std::strcmp(name, "clCreateCommandQueue") == 0) {
        real_cl_create_queue = reinterpret_cast<cl_create_queue_t>(sym);
        cl_profiling_info = reinterpret_cast<cl_profiling_t>(symbol(lib, "clGetEventProfilingInfo"));
        cl_release_event = reinterpret_cast<cl_event_fn_t>(symbol(lib, "clReleaseEvent"));
        cl_retain_event = reinterpret_cast<cl_event_fn_t>(symbol(lib, "clRetainEvent"));
        cl_wait_for_events = reinterpret_cast<cl_wait_t>(symbol(lib, "clWaitForEvents"));
        if (!cl_release_event) cl_profiling_info = nullptr;  // could not free the events
        return reinterpret_cast<void *>(&hooked_cl_create_queue);
    }
    return nullptr;
}

}  // namespace probes
}  // namespace

extern "C" {

// SOLDER_TIMING_READY before the first call (OpenCL makes its queue then), _ON to time launches.
void solder_hooks_set_timing(int mode) { probes::g_timing = mode; }

// Device time in microseconds of each recorded launch (-1: not timed); same order as the records.
int solder_hooks_times(const float **out, int n) {
    probes::resolve_times(n);
    *out = probes::g_time_us;
    return n < probes::kMaxTimed ? n : probes::kMaxTimed;
}

}  // extern "C"
