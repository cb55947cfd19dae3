// One kernel launch as seen by runtime/launch_hooks.cpp (C layout: it crosses a dlopen boundary).
#pragma once
#include <stdint.h>

enum { SOLDER_API_OPENCL = 1, SOLDER_API_CUDA = 2 };

// solder_hooks_set_timing's modes (the bandwidth dump). READY makes OpenCL queues with profiling on
// (Halide creates its queue on the first call) but times nothing; ON also times every launch.
enum { SOLDER_TIMING_OFF = 0, SOLDER_TIMING_READY = 1, SOLDER_TIMING_ON = 2 };

struct solder_launch_record {
    int api;
    char kernel[96];
    uint32_t grid[3];   // blocks (work-groups) per dimension
    uint32_t block[3];  // threads (work-items) per block
    uint32_t shared_bytes;
};
