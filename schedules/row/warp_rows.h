// Whether a GPU row kernel reduces its rows with warp shuffles (schedules/writer/warp_reduction.h), and
// with how many warps per row: the planner's choice, recorded in KernelPlan::row_warps.
#pragma once
#include "autosched/model/func_graph.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// Each lane of a warp-reduced row takes this many of its elements per pass, with 2 to 8 warps per
// row. Measured on the H100: rmsnorm (bf16 8192 x 4096), 128 threads of 32 elements each (8-byte
// accesses) 50.4 us; 256 of 16, 53.8 us; 64 of 64, 61.0 us; 512 of 8, 79 us; the shared-memory
// tree over 256 threads, 58.8 us. nvfuser_2146's output kernel (rows of 1024, four row sums):
// 32 threads of 32 elements 143 us (80 registers), 64 of 16, 115 us, 128 of 8, 125 us.
constexpr int64_t kWarpRowElementsPerLane = 32;
// Shorter rows keep the shared-memory tree (and several rows per block).
constexpr int64_t kMinWarpRow = 1024;
// The access width (bytes) of both passes over a warp-reduced row: 8-byte accesses (4 bf16) beat
// 16-byte ones there, 50.4 against 51.9 us.
constexpr int kWarpRowAccessBytes = 8;

struct WarpRowShape {
    int warps = 0;         // 0: the kernel keeps the shared-memory tree
    int vector_width = 1;  // elements per access, root and reductions alike
    std::string why_not;   // when warps == 0 for a row of kMinWarpRow or more: the reason, for the plan
};

// One block per row (`k.rows_per_block` 1, the inner dims between the row and the rows unrolled,
// nothing staged), at least kMinWarpRow elements per block, every Func computed per
// block one value per block, and each of those that reduces does so over one RVar whose constant
// extent the block's lanes divide evenly, into one value of at most 32 bits (a warp shuffle moves 32).
WarpRowShape warp_row_shape(const FuncGraph &g, const Plan &plan, const RowParams &k, int root);

}  // namespace solder::autosched
