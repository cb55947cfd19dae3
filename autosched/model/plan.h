// The plan is data: which Funcs are kernel roots (written to global memory), which are inlined
// (recomputed where used) or computed at a root's block (on chip), how each kernel is tiled, and
// why each fusion that was not made was not made. Printable, serializable, testable; applied to the
// Funcs only afterwards (autosched/apply_plan.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace solder::autosched {

enum class Placement { Root, Inline, ComputeAtBlock };
const char *placement_name(Placement p);
// The name Halide's rfactor gives the intermediate of reduction `f`: split-K's partials Func.
inline std::string partials_name(const std::string &f) { return f + "_intm"; }

// Byte counts as the plan's text prints them: "12.34 MB" (10^6 bytes), "48 KB" (KiB, rounded up).
std::string mb_text(int64_t bytes);
std::string kb_text(int64_t bytes);

struct FuncPlan {
    std::string func;
    Placement placement = Placement::Inline;
    std::string anchor;  // the kernel root it is computed in (compute_at); empty otherwise
    int64_t block_points = 0;  // points one block computes (compute_at in a row kernel)
    // Row kernels whose blocks own several rows: this Func's pure var that follows the root's rows
    // (empty: none, or one row per block).
    std::string row_dim;
};

// A kernel input a row kernel loads once per block into shared memory (autosched/row_staging.h):
// `readers` are the Funcs in the kernel that read it directly.
struct StagedInput {
    std::string func;
    std::vector<std::string> readers;
    int64_t bytes_per_block = 0;
    int64_t row_extent = 0;  // its innermost extent one block needs
};

struct KernelPlan {
    std::string name;
    std::string root;                  // the Func this kernel writes
    std::vector<std::string> with;     // further roots launched in the same kernel (horizontal fusion)
    std::vector<std::string> funcs;    // every Func computed in it, root first
    std::vector<std::string> outputs;  // pipeline outputs among them
    std::string template_name;         // pointwise, row, stencil_tile, generic, ...
    int inner_dims = 1;                // dims of the root kept inside one block (row template)
    int vector_width = 1;              // innermost elements per thread access (GPU pointwise and row roots)
    int rows_per_block = 1;            // GPU row kernels: rows one block owns (each by 256 / rows threads)
    int row_threads = 0;               // GPU row kernels: threads along a short row (0: 256 / rows_per_block)
    // GPU row kernels: warps along each row, whose reductions are summed by each warp in registers
    // with shuffles (CUDA; other GPU APIs keep the shared-memory tree over the same threads), then
    // across the warps in shared memory (autosched/warp_rows.h). 0: the shared-memory tree.
    int row_warps = 0;
    int64_t row_extent = 0;            // with row_warps: the row's length (the template's walk follows it)
    // GPU stencil kernels: the root spans at least one tile in both tiled dims, so edge tiles shift
    // inwards (every tile, and so every producer's region per tile, has one constant shape).
    bool whole_tiles = false;
    // GPU row kernels: inner dims of the root each thread unrolls, with their extents.
    std::vector<std::pair<int, int64_t>> unrolled_dims;
    int64_t blocks = 0;
    // Split-K: `split_func` is summed in `split_k` slices into the partials Func `partials` by
    // launches of `split_blocks` blocks (zeroing, sums); the root's blocks add the partials.
    std::string split_func, partials;
    int64_t split_k = 0, split_blocks = 0;
    // Shared split-K (autosched/shared_split_k.h): reductions over one iteration domain, split in
    // several kernels, have their partials summed in one pair of launches, this kernel's:
    // `split_group` lists them all, this kernel's `split_func` first, each cut along domain
    // position `split_dim` into slices of `split_rows` points. Each other kernel of the group names
    // this one's split_func in `split_launched_with` and launches only its root.
    std::vector<std::string> split_group;
    std::string split_launched_with;
    int split_dim = -1;
    int64_t split_rows = 0;
    int split_vector = 1;  // neighbours along the domain's position 0 each thread of those launches takes
    int launches = 1;                  // GPU launches this kernel takes (3 with split-K)
    // Generic kernels on a GPU: threads per block of each stage whose loops over its pure vars are
    // one-dimensional (0: the template's 256). Fewer where the stage has few parallel points (a
    // scan over 2160 rows), so that its blocks spread over the SMs.
    std::vector<int> stage_threads;
    std::vector<StagedInput> staged;   // GPU row kernels: inputs read once per block into shared memory
    int64_t bytes_read = 0, bytes_written = 0;
    double est_us = 0;
};

struct MaterializedTensor {
    std::string func;
    std::vector<int64_t> shape;  // row-major (outermost first), like the apps' shapes
    std::string type;
    int64_t bytes = 0;
};

struct Explanation {
    std::string producer, consumer;  // consumer empty for kernel-level notes
    std::string reason;
};

struct Plan {
    std::string app;
    std::vector<FuncPlan> funcs;
    std::vector<KernelPlan> kernels;
    std::vector<MaterializedTensor> materialized;  // intermediates written and read back
    int64_t total_bytes = 0, min_bytes = 0;
    double est_us = 0;
    std::vector<Explanation> explanations;
    std::string search;  // how the roots were chosen (greedy, exact, budget)
    // Every input and output extent was a constant when planned. Otherwise the pipeline may run at
    // any size, and every split of the schedule guards its tail (schedules/writer/schedule_writer.h).
    bool fixed_sizes = true;

    const FuncPlan *find(const std::string &func) const;
    std::string to_text() const;
    std::string to_json() const;
};

}  // namespace solder::autosched
