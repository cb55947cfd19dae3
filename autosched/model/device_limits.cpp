#include "autosched/model/device_limits.h"

#include <algorithm>

#include "autosched/model/plan.h"

namespace solder::autosched {

const char *limit_name(Limit l) {
    switch (l) {
    case Limit::ThreadsPerBlock: return "threads per block";
    case Limit::GridX: return "grid x";
    case Limit::GridY: return "grid y";
    case Limit::GridZ: return "grid z";
    case Limit::SharedMemory: return "shared memory per block";
    case Limit::Registers: return "registers per block";
    }
    return "?";
}

std::string LimitViolation::needs() const {
    const std::string n = std::to_string(value);
    switch (limit) {
    case Limit::ThreadsPerBlock: return n + " threads per block";
    case Limit::GridX:
    case Limit::GridY:
    case Limit::GridZ: return n + " blocks along " + limit_name(limit);
    case Limit::SharedMemory: return n + " bytes of shared memory per block";
    case Limit::Registers: return n + " registers per block (at Halide's cap per thread)";
    }
    return n;
}

std::string LimitViolation::text() const {
    return kernel + ": " + stage + "'s launch needs " + needs() + ", above the device's " + std::to_string(max);
}

std::vector<LimitViolation> check_launch(const LaunchShape &s, const DeviceProfile &d, const std::string &kernel) {
    std::vector<LimitViolation> v;
    auto over = [&](Limit l, int64_t value, int64_t max) {
        if (value > max) v.push_back({kernel, s.stage, l, value, max});
    };
    over(Limit::ThreadsPerBlock, s.block_threads(), d.max_threads_per_block);
    over(Limit::GridX, s.grid[0], d.max_grid_x);
    over(Limit::GridY, s.grid[1], d.max_grid_yz);
    over(Limit::GridZ, s.grid[2], d.max_grid_yz);
    over(Limit::SharedMemory, s.shared_bytes, d.shared_memory_limit());
    over(Limit::Registers, s.block_threads() * d.registers_per_thread_cap, d.registers_per_block);
    return v;
}

std::vector<LimitViolation> check_device_limits(const KernelPlan &k, const DeviceProfile &d) {
    std::vector<LimitViolation> all;
    for (auto &s : k.launch_shapes) {
        auto v = check_launch(s, d, k.name);
        all.insert(all.end(), v.begin(), v.end());
    }
    return all;
}

std::vector<LimitViolation> check_device_limits(const Plan &p, const DeviceProfile &d) {
    std::vector<LimitViolation> all;
    for (auto &k : p.kernels) {
        auto v = check_device_limits(k, d);
        all.insert(all.end(), v.begin(), v.end());
    }
    return all;
}

void set_grid(LaunchShape &s, const std::vector<int64_t> &extents, int tile_dims, GridMap map) {
    s.grid[0] = s.grid[1] = s.grid[2] = 1;
    const size_t tiles = std::min(size_t(std::max(0, tile_dims)), extents.size());
    for (size_t i = 0; i < extents.size(); i++) {
        size_t axis = std::min<size_t>(i, 2);
        if (map == GridMap::AllInX) axis = 0;
        // The whole-point dims, fused, first; then the tile counts, in order.
        if (map == GridMap::OuterInX) axis = i >= tiles ? 0 : std::min<size_t>(i + (extents.size() > tiles ? 1 : 0), 2);
        s.grid[axis] *= extents[i];
    }
}

}  // namespace solder::autosched
