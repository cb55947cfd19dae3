// Machine constants the cost model uses, and the limits every launch must respect
// (autosched/model/device_limits.h). Defaults are the H100 as measured here (3.0 TB/s for a
// device-to-device copy, 132 SMs, 48 KB of static shared memory per block under Halide 21).
#pragma once
#include <algorithm>
#include <cstdint>

namespace solder::autosched {

struct DeviceProfile {
    double bandwidth_bytes_per_s = 3.0e12;
    double flops_per_s = 60e12;  // f32 FMA-pipe peak, no tensor cores
    double launch_us = 2.5;      // one kernel launch, back to back
    int sms = 132;
    // Blocks (of 256 threads) a memory-bound kernel needs to draw full bandwidth: threads that each
    // walk rows serially keep one load in flight, so one block per SM is far from enough (one
    // block of nvfuser's column sum drew 8 GB/s on the H100).
    int blocks_per_sm_to_fill = 4;
    int64_t shared_memory_bytes = 48 * 1024;
    // Shared memory one block may use when its launch opts in (cuFuncSetAttribute): the H100's
    // 227 KB. Solder's pipeline libraries opt in for every launch above 48 KB
    // (runtime/launch_hooks.cpp); Halide's own runtime does not, so the plugin sets 0 (no opt-in)
    // unless asked. Only the inner-outer kernels use it (schedules/inner_outer/inner_outer_plan.h).
    int64_t shared_memory_optin_bytes = 227 * 1024;
    int64_t shared_memory_per_sm = 228 * 1024;  // what the blocks resident on one SM share
    int64_t max_threads_per_sm = 2048;          // resident threads per SM (sm_80 and later)
    int64_t l2_bytes = 50 * 1024 * 1024;
    // Reads L2 serves per second, where blocks read again what it holds (a leaf every block reads
    // whole): taken as twice DRAM's, an assumption not measured here (it only has to make a
    // reduction recomputed in each of thousands of blocks cost what it does: far more than once).
    double l2_bandwidth_bytes_per_s = 6.0e12;
    int64_t l1_bytes_per_sm = 256 * 1024;  // L1 and shared memory together, per SM

    // Launch limits: a launch beyond any of them fails (cuLaunchKernel's CUDA_ERROR_INVALID_VALUE).
    // Every compute capability since 3.0 has the same ones.
    int64_t max_threads_per_block = 1024;
    int64_t max_grid_x = 2147483647;  // 2^31 - 1 blocks along x
    int64_t max_grid_yz = 65535;      // along y, and along z
    // Registers: Halide compiles its kernels at most 64 registers per thread (spilling beyond), so
    // a block needs at most 64 x its threads of the 64K registers one block may hold.
    int64_t registers_per_thread_cap = 64;
    int64_t registers_per_block = 64 * 1024;

    // Shared memory one block may use: the opt-in size where launches opt in, else the default.
    int64_t shared_memory_limit() const { return std::max(shared_memory_bytes, shared_memory_optin_bytes); }
};

}  // namespace solder::autosched
