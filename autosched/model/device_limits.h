// The launch limits of the device, checked when a plan is made: each kernel's launches
// (KernelPlan::launch_shapes, worked out by its template at the planning estimates) against the
// DeviceProfile's threads per block, grid dims and shared memory per block, and the registers a
// block needs at Halide's per-thread cap. A launch beyond any of them is refused by the driver
// (CUDA_ERROR_INVALID_VALUE from cuLaunchKernel), so the planner changes or replaces a kernel that
// breaks one (autosched/planner.cpp); the violations are data, for the planner and for tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/model/device_profile.h"

namespace solder::autosched {

struct KernelPlan;
struct Plan;

// One GPU launch of a kernel, at the planning estimates.
struct LaunchShape {
    std::string stage;               // the Func (and stage) whose loops it runs: "conv", "conv.update(0)"
    int64_t grid[3] = {1, 1, 1};     // blocks along x, y, z
    int64_t threads[3] = {1, 1, 1};  // threads per block along x, y, z
    int64_t shared_bytes = 0;        // shared memory per block
    int64_t block_threads() const { return threads[0] * threads[1] * threads[2]; }
};

enum class Limit { ThreadsPerBlock, GridX, GridY, GridZ, SharedMemory, Registers };
const char *limit_name(Limit l);  // "threads per block", "grid y", ...

struct LimitViolation {
    std::string kernel;  // the plan's kernel name
    std::string stage;   // LaunchShape::stage
    Limit limit = Limit::ThreadsPerBlock;
    int64_t value = 0, max = 0;
    // "65536 blocks along grid z", "2048 threads per block", "49492 bytes of shared memory per block"
    std::string needs() const;
    // "k1_relu: relu's launch needs 65536 blocks along grid z, above the device's 65535"
    std::string text() const;
};

// The limits `s` breaks on `d`; `kernel` names it in the violations.
std::vector<LimitViolation> check_launch(const LaunchShape &s, const DeviceProfile &d, const std::string &kernel);
// Every launch of one kernel, of every kernel of a plan.
std::vector<LimitViolation> check_device_limits(const KernelPlan &k, const DeviceProfile &d);
std::vector<LimitViolation> check_device_limits(const Plan &p, const DeviceProfile &d);

// How a kernel's block dims map to the grid (schedules/writer/schedule_writer.h, gpu_blocks_over).
// Grid y and z hold 65535 blocks each, x 2^31 - 1.
enum class GridMap {
    Three,     // each its own grid dim, up to three; those beyond the third fused into z
    OuterInX,  // the dims over whole points (rows, channels, batches) fused into x, the tile counts after it
    AllInX,    // all fused into x
};
// Blocks over `extents` (innermost first; the first `tile_dims` of them count tiles of a split dim,
// the rest run over whole points) as the templates map them to the grid.
void set_grid(LaunchShape &s, const std::vector<int64_t> &extents, int tile_dims, GridMap map);
// Ceiling division, for blocks over an extent.
inline int64_t blocks_of(int64_t extent, int64_t per_block) { return (extent + per_block - 1) / per_block; }

}  // namespace solder::autosched
