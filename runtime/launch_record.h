// One kernel launch as seen by runtime/launch_hooks.cpp (C layout: it crosses a dlopen boundary).
#pragma once
#include <stdint.h>

enum { SOLDER_API_OPENCL = 1, SOLDER_API_CUDA = 2 };

struct solder_launch_record {
    int api;
    char kernel[96];
    uint32_t grid[3];   // blocks (work-groups) per dimension
    uint32_t block[3];  // threads (work-items) per block
    uint32_t shared_bytes;
};
