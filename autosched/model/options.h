// Solder's options, one value made by one parser for every way in: the words of SOLDER_DISABLE /
// --disable (flags turned off) and SOLDER_ENABLE / --enable (flags turned on), SOLDER_KEEP_UNFUSED,
// and the plugin's autoscheduler.KEY=VALUE parameters. One table of knobs (`solder knobs` prints
// it) is the list of valid words; every value is checked where it enters, and a bad one is an
// error naming the knob, the value and what is allowed, never a fallback. The value is then passed
// down explicitly (CLI -> build request -> schedule -> planner, and into the compile cache's key):
// nothing below the program's entry reads the environment for it.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "autosched/model/device_profile.h"
#include "core/number_arg.h"

namespace solder::autosched {

// What the planner may do, and the device it plans for: the planner's part of SolderOptions. A new
// field goes into SolderOptions::canonical_text too (as a knob or beside them), or the compile
// cache would hand out a library planned with another value of it.
struct PlannerOptions {
    bool horizontal = true;  // merge independent 1-D pointwise kernels into one launch
    bool remat = true;       // recompute cheap Funcs in every kernel that uses them
    bool compute_at = true;  // fuse reductions and stencil producers into their consumer's blocks
    bool gpu = true;         // plan for a GPU (blocks) or the host (parallel loops)
    // Atomic updates of shared memory (a histogram's bins per chunk of rows). Off on OpenCL, where
    // Halide 21 can leave one in a loop that never ends (docs/halide-21-notes.md). Set from the
    // target with `gpu` (plan_for_target).
    bool shared_atomics = true;
    // Atomic adds of floats in global memory (a scatter of sums: k-means' centroids). CUDA has
    // them; OpenCL 1.2 does not. Set from the target with `gpu` (plan_for_target).
    bool float_atomics = true;
    bool exact_search = true;  // branch and bound after the greedy pass (autosched/search.h)
    // Row kernels load inputs that several stages read once per block into shared memory
    // (schedules/row/row_staging.h). Off by default: on the H100 the re-reads it saves hit in L1, and
    // rmsnorm, layernorm and softmax ran 0-4% slower with it (bench/RESULTS.md).
    bool stage_rows = false;
    int exact_max_free = 30;                 // optional roots the exact search takes; beyond: local search
    int64_t search_max_evaluations = 20000;  // partitions the search may cost in full
    // The local search's budget: the Funcs of every partition it evaluates plus every region its
    // kernels ask of the graph (deterministic, unlike time). About 1 s on two cores for a
    // 1,000-Func chain (docs/planner-search.md).
    int64_t search_max_work = 4000000;
    int time_budget_ms = 10000;  // a safety net over the evaluation and work budgets
    // A kernel that computes one Func alone, a reduction along the innermost dim of what it reads
    // (a row sum stored because several kernels use it), may take the block-reduction template: one
    // block per result, the reduction split across its threads, read coalesced. One thread per result
    // would walk the row alone, strided across the warp (a layer-norm backward's row means: 47 against
    // 741 us modelled). No bundled app's plan takes it.
    bool single_kernel_groups = true;
    // That block reduction may compute the pure Funcs it reads inline (a 4-bit weight dequantized,
    // a row's statistics in a column sum): one kernel instead of the pointwise template's thread per
    // result. Beyond the exact search's size the local search also starts from the plan found
    // without it (autosched/search.cpp).
    bool reduction_members = true;
    // Kernels whose inlined Funcs' copies pass this many operations per point are refused
    // (autosched/model/inline_copies.h); 0: none. Not a knob: the search sets it where its plan
    // has such a kernel, and searches again.
    double max_inline_ops = 0;
    // Take a fusion that moves fewer bytes even where the cost model expects it to be slower
    // (SOLDER_ENABLE=fewest_bytes, `solder plan --enable fewest_bytes`): today only the inner-outer
    // kernel (schedules/inner_outer/inner_outer_plan.h), which read nvfuser_2146's inputs once but ran slower on
    // the H100 than the two passes it replaces (bench/RESULTS.md).
    bool fewest_bytes = false;
    // A pipeline output that another of its Funcs reads, at the points of a row kernel's rows and
    // computed from that kernel's per-row reductions (int8 quantization's scales), or at a pointwise
    // kernel's points, may be written by that kernel beside its root instead of a kernel of its own
    // (schedules/row/side_outputs.h).
    bool side_outputs = true;
    // A reduction that several kernels read (a layer norm backward's row means, which its dx kernel
    // and its weight gradient's column sums both need) may be computed per block by the row kernel
    // whose rows it lies at and written there beside its root for the others, instead of by a kernel
    // of its own that reads the rows once more (schedules/row/shared_reductions.h).
    bool shared_reductions = true;
    // A variance written as two sums over the same many points (the mean's, then the squared
    // deviations from it) is summed in chunks, each chunk's two sums in one walk, then merged, so
    // the points are read once (autosched/deviation_sums.h). GPU targets.
    bool one_pass_deviations = true;
    // Reductions over the same RDom and pure vars that read a common input (a layer norm's weight and
    // bias gradients) are walked together as one Tuple Func, so what they share is read once
    // (autosched/sibling_sums.h). GPU targets.
    bool sibling_reductions = true;
    // A reduction of few steps per point (an arg-max over a 2 x 2 window) that several outputs read
    // point for point is copied for each, so that each output's kernel can compute it
    // (autosched/cloned_reductions.h). GPU targets.
    bool cloned_reductions = true;
    // An atomic scatter's bin computed from its RDom's points alone moves into a Func of its own,
    // computed at each point, so that Halide emits atomic adds (autosched/computed_bins.h). GPU
    // targets.
    bool computed_bins = true;
    // A pure kernel root that reads a producer transposed (`out(x, y) = in(y, x)`, NCHW -> NHWC)
    // is laid out in square tiles with the producer's tile in shared memory, instead of vectors
    // whose lanes each load from another row (schedules/pointwise/transposed_tile.h).
    bool transposed_tiles = true;
    // A pure kernel root reading, one to one, a Func that reduces a small window of constant extent
    // at each point (a convolution) computes several rows per thread, the windows together in
    // registers with its constant steps unrolled (schedules/pointwise/register_tile.h).
    bool register_tiles = true;
    // Reductions over windows of neighbouring points (an inline `sum` of a Func's taps: a separable
    // blur's passes) fused into stencil tiles, a Func they read computed per tile
    // (schedules/stencil_tile); off, such a kernel takes the pointwise or row template, or the
    // windowed Func is stored.
    bool window_tiles = true;
    // Contractions (a matrix product) in 4 x 4 points per thread (schedules/pointwise/register_tile.h).
    bool contraction_tiles = true;
    // A scatter over a small RDom at each of many cells (a bilateral grid's bins per 8 x 8 tile) is
    // walked by one thread per cell, the bins of a block's cells in its shared memory, with no
    // atomics; off, a block per cell adds its RDom's points atomically (schedules/generic).
    bool cell_threads = true;
    std::set<std::string> keep_unfused;  // Funcs always materialized (a debugging knob)
    // Funcs their author computed at root before auto-scheduling (autosched/author_schedule.h):
    // stored like keep_unfused's, with their own reason. Not a knob: autoschedule() fills it.
    std::set<std::string> author_roots;
    DeviceProfile device;
};

}  // namespace solder::autosched

namespace solder {

struct SolderOptions {
    autosched::PlannerOptions planner;  // `gpu` is set from the target where a plan is made
    // The runtime's flags, words of the same list (Solder's own builds only, not plugin parameters):
    bool fallback = true;   // a failing Solder schedule is replaced by the unfused one (runtime/fallback_run.h)
    bool fast_math = true;  // CUDA builds approximate exp and tanh (runtime/fast_device_math.h)

    // SOLDER_DISABLE, then SOLDER_ENABLE, then SOLDER_KEEP_UNFUSED on top of the defaults. The only
    // place Solder reads them: each program entry calls it once and passes the value on.
    static SolderOptions from_environment();
    // A comma-separated list of flag words turned off (SOLDER_DISABLE, --disable) or on
    // (SOLDER_ENABLE, --enable). Throws UnknownNameError (core/unknown_name_error.h) naming the
    // word and listing the flags.
    void disable(const std::string &words);
    void enable(const std::string &words);
    // One knob from its text, as the plugin's autoscheduler.KEY=VALUE (every knob but the
    // runtime's). `where` is the name the user wrote, for messages (default "autoscheduler.KEY").
    // Throws UnknownNameError for an unknown key (listing the valid ones) and std::invalid_argument
    // for a bad value.
    void set(const std::string &key, const std::string &value, const std::string &where = "");
    // Every knob as KEY=VALUE, one a line in the table's order, then the planner's fields that no
    // knob sets: equal for equal options whatever words made them (order, repeats), different for
    // any difference. The compile cache keys on it (runtime/compile_cache.h).
    std::string canonical_text() const;
};

struct Knob {
    std::string name;
    std::string kind;  // "flag" (0/1), "integer", "names" (comma-separated Func names)
    std::string default_text;
    std::string help;
    bool runtime = false;  // a flag of Solder's own builds (solder run/build), not a plugin parameter
};
// Every knob, in the order the README lists them: the one list of valid words.
const std::vector<Knob> &solder_knobs();

}  // namespace solder
