// What a kernel of the plan is built with: which template (TemplateKind) and that template's own
// parameters (one struct each, held in KernelPlan::params), plus the split-K launches some kernels
// add for a heavy reduction. The templates themselves live in schedules/<template>/; this header
// is the vocabulary the plan, the cost model and the dumps share.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace solder::autosched {

// In the order of TemplateParams' alternatives.
enum class TemplateKind {
    Pointwise,
    Single,
    BlockReduction,
    StencilTile,
    Row,
    InnerOuter,
    Generic,
    ReductionTile,
    TotalReduction
};
// The name the plan prints (`"template": "row"`).
const char *template_name(TemplateKind k);

// A kernel input a row kernel loads once per block into shared memory (schedules/row/row_staging.h):
// `readers` are the Funcs in the kernel that read it directly.
struct StagedInput {
    std::string func;
    std::vector<std::string> readers;
    int64_t bytes_per_block = 0;
    int64_t row_extent = 0;  // its innermost extent one block needs
};

// Blocks of 256 along the innermost dim (schedules/pointwise).
struct PointwiseParams {
    int vector_width = 1;  // innermost elements per thread access
    // The block: threads_x accesses along the innermost dim by threads_y rows of the next one. Rows
    // share a block where the innermost dim is shorter than 256 accesses (a 64-wide plane: 16 x 16),
    // which one row per block would leave mostly idle.
    int threads_x = 256, threads_y = 1;
    // A split-K root alone in its kernel whose dim 0 is narrower than a warp at the estimates (a
    // weight gradient's 3 taps): every dim but the last fused along the threads, threads_x each,
    // for both of its stages (the initial values, the partials' sums), the last dim a grid dim.
    // Along dim 0 alone, 253 of a block's 256 threads were idle (a weight gradient's 392 partials
    // per result took 173 us to add on the H200).
    bool flat = false;
    // Points of the next dim each thread computes, unrolled (1: one). For gathers: each point's
    // index is loaded before the point it names, so one point per thread has one load in flight at
    // a time; several have theirs in flight together.
    int unroll_rows = 1;
    // A dim of the root (above the innermost) each thread walks serially, -1 none: a fused reduction
    // that does not vary along it (a weighted sum over an input's channels, read by every channel of
    // the output) is then computed once per thread for all the points it walks.
    int serial_dim = -1;
    // The serial dim's walk unrolled by this many points (1: not), where the walk shares costly
    // math rather than reductions (schedules/pointwise/pointwise_reads.h: invariant_math_dim), so
    // that the loads of several points are in flight together.
    int serial_unroll = 1;
    // A root that reduces at each point, computed in each thread's registers: per update, the steps
    // of its innermost RVar unrolled (its extent at the estimates, at most 8; 1: none).
    std::vector<int> root_unroll;
    // A dim of the root (2 or above, -1 none) whose points each thread computes together, unrolled
    // just outside its vector, where it has `unroll_extent` points (2 to 4 at the estimates: an
    // image's channels) and the kernel reads some Func at several constant points of a dim (a
    // pixel's red, green and blue): what those reads feed is then computed once per thread for
    // all the points instead of once for each. At sizes known only at run time, in a branch where
    // the output's dim starts at 0 and has that many points, beside the general schedule.
    // Dim 0 (an interleaved image's channels, innermost in memory, 2 to 4 at the estimates): each
    // thread computes its pixel's points of it, unrolled in that branch (walked serially beside
    // it), and the threads tile dims 1 and 2 instead.
    int unroll_dim = -1, unroll_extent = 0;
    // The unrolled dim's points a vector instead (unroll_dim 2 or above): the output's buffer
    // declares that dim innermost in memory (schedules/pointwise/pointwise_reads.h:
    // memory_inner_dim), so each thread loads and stores its pixel's channels as one access.
    bool unroll_vector = false;
    // A producer the root reads transposed (schedules/pointwise/transposed_tile.h), empty none: the
    // root in square tiles over its dims 0 and `transposed_root_dim`, the producer's tile loaded
    // into shared memory along its own dims 0 and `transposed_source_dim`.
    std::string transposed_source;
    std::vector<std::string> transposed_readers;  // the kernel's Funcs that call it
    int transposed_root_dim = -1, transposed_source_dim = -1;
    bool transposed_staged = true;  // false: read in place as well, the tiles alone (TransposedRead::staged)
    // Members reducing at each point over a small window that each thread computes for
    // `register_rows` rows of the root at once, constant steps unrolled (schedules/pointwise/
    // register_tile.h); empty none.
    std::vector<std::string> register_members;
    int register_rows = 0;
    // Above 1: the members (or the root) are contractions, each thread computing `register_cols`
    // points of dim 0 by `register_rows` of dim 1 (schedules/pointwise/register_tile.h).
    int register_cols = 1;
    // With register_cols: the root's dim its rows lie along (1, or a channel dim: a 1 x 1
    // convolution's), and each member's dims that are the root's dims 0 and that one.
    int register_dim_y = 1;
    std::vector<std::pair<int, int>> register_dims;
    // With register_cols, for each member: whether it loads the inputs it reads along its steps a
    // vector of `vector_steps` steps at a time (schedules/pointwise/operand_vectors.h), and those
    // inputs' names.
    std::vector<bool> register_vectors;
    std::vector<std::string> vector_inputs;
    int vector_steps = 0;
    // The root, an output, is itself such a reduction: its window goes to an intermediate computed
    // so (schedules/pointwise/register_tile.h: register_tile_root).
    bool register_root = false;
    // With register_root: a small dim of the root whose `register_shared_points` points each thread
    // computes as well (unrolled), where part of the window's work does not depend on it (a
    // weighted sum's weights, the same for every channel): register_shared_dim. -1: none.
    int register_shared_dim = -1, register_shared_points = 0;
    // Members refined in place (FuncNode::generic_per_point, not reductions: `f(x, y) = f(x, y) *
    // 2` after its pure definition), each computed in each thread at the root's point, every stage's
    // loop over a dim unrolled by `refined_extents` (the member's points there per point of the
    // root, at the estimates; 1: the loop stays), so that its points live in registers.
    std::vector<std::string> refined_members;
    std::vector<std::vector<int>> refined_extents;
};
// A 0-d root: one point (schedules/single).
struct SingleParams {};
// A reduction alone in its kernel, one block per result (schedules/block_reduction).
struct BlockReductionParams {
    int lanes = 256;  // threads per result: fewer where the reduction has fewer points (a 7 x 7 window)
    // 0: the RVars fused into one walk, dealt to `lanes` threads in strides. Otherwise (several
    // RVars, some extent known only at run time) the innermost RVar split over `lanes_x` threads
    // and the next over lanes / lanes_x: a fused walk would find each point's RVars by dividing by
    // run-time extents.
    int lanes_x = 0;
    // With lanes_x: each thread's walk unrolled along the innermost RVar (rows of several strides
    // of lanes_x), else along the next.
    bool unroll_inner = false;
};
// A reduction to few results over many points each (schedules/total_reduction): its outermost RVar
// cut into `slices` slices of `slice_rows` steps per result at the estimates, each reduced by one
// block as a block reduction of its lanes (`slice`), the partials added by one block per result.
// With `lane_results` (results few, and read along the input's innermost dim, as the channel means
// of an interleaved image are): each slice is one block for every result (or a few blocks, of
// `threads` each), its threads along the results and then `lanes` steps of the innermost RVar, so
// that neighbouring threads read neighbouring elements; their partials are added by one block per
// result.
struct TotalReductionParams {
    int64_t slice_rows = 1, slices = 1;
    // The RVar cut into slices (innermost first): the outermost, or an inner one with more steps
    // where the outermost has too few (a volume's 16 planes), the RVars outside it walked in each
    // slice; its name where it is not the outermost (for the plan's text).
    int sliced_rvar = 0;
    std::string sliced_rvar_name;
    BlockReductionParams slice;
    bool lane_results = false;
    int lanes = 0, threads = 0;
    // In the lane-results layout, where the cut RVar has fewer steps than the slices wanted (a
    // channels-last feature map's 56 rows): another RVar (innermost first; -1 none) cut too, into
    // `slices2` of `slice_rows2` steps, each slice of the first cut a block for each of those.
    int sliced_rvar2 = -1;
    std::string sliced_rvar2_name;
    int64_t slice_rows2 = 1, slices2 = 1;
};
// 2-D tiles with producers computed per tile (schedules/stencil_tile).
struct StencilTileParams {
    int inner_dims = 2;  // dims of the root inside one tile (2, or all: channels loop in the tile)
    // The root spans at least one tile in both tiled dims, so edge tiles shift inwards (every
    // tile, and so every producer's region per tile, has one constant shape).
    bool whole_tiles = false;
    // Why edge tiles stay guarded where the output would span a tile (empty: it does not, or sizes
    // are fixed): a reason shown in the plan.
    std::string guarded_because;
    // Producers per tile read through a resampling (a pyramid level's 2y - 1 .. 2y + 1, clamped to
    // a run-time extent): their per-tile regions have run-time extents, and they are dealt to the
    // block's threads by rows and columns, not as one flattened walk (stencil_schedule.cpp).
    std::vector<std::string> resampled;
    // Reductions fused into the tiles and not computed per tile (a separable blur's column pass, an
    // inline `sum` read one to one): each computed at every point of its reader, in the thread's
    // registers (schedules/stencil_tile/stencil_reductions.h).
    std::vector<std::string> per_point;
    // Of those, the ones read at the root's points only (`out(x, y) = sum(...) / 25`), each with one
    // update over a small window of constant extent: computed per thread for the thread's rows
    // together, the rows' overlapping taps loaded once (schedules/writer/window_steps.h).
    std::vector<std::string> rows_per_thread;
};
// A block owns rows; fused reductions live in shared memory or registers (schedules/row).
struct RowParams {
    int inner_dims = 1;  // dims of the root kept inside one block
    int vector_width = 1;
    int rows_per_block = 1;  // rows one block owns (each by 256 / rows threads)
    int row_threads = 0;     // threads along a short row (0: 256 / rows_per_block)
    // Warps along each row, whose reductions are summed by each warp in registers with shuffles
    // (CUDA; other GPU APIs keep the shared-memory tree), then across the warps in shared memory
    // (schedules/row/warp_rows.h). 0: the shared-memory tree.
    int warps = 0;
    int64_t row_extent = 0;  // with warps: the row's length (the template's walk follows it)
    // Inner dims of the root each thread unrolls, with their extents.
    std::vector<std::pair<int, int64_t>> unrolled_dims;
    std::vector<StagedInput> staged;  // inputs read once per block into shared memory
};
// A row kernel whose blocks also sum other kernels' column sums over their rows
// (schedules/inner_outer): `rows` rows of `lanes` threads, `vector` neighbours each.
struct InnerOuterParams {
    int rows = 1;
    int lanes = 0;
    int vector_width = 1;
    int64_t row_extent = 0;
    std::vector<std::string> column_sums;  // the reductions whose partials its blocks write
    int dim = 1;                           // the domain position the rows are cut along
    int64_t slices = 0;                    // partials per column (the row slices)
    std::vector<StagedInput> staged;       // the rows each block loads into shared memory
};
// Whatever no fused template fits: each stage tiled on its own (schedules/generic).
struct GenericParams {
    // Threads per block of each stage whose loops over its pure vars are one-dimensional (0: the
    // template's 256). Fewer where the stage has few parallel points (a scan over 2160 rows), so
    // that its blocks spread over the SMs.
    std::vector<int> stage_threads;
    // Per update stage whose RVars each thread walks serially (a scan): the steps unrolled (0: the
    // template's 8). More where the scan reads other Funcs and its walk is long; 1, not unrolled,
    // where its predicate loads at its pure vars (a CSR segment's length) (schedules/generic).
    std::vector<int> stage_unroll;
    // Per update stage with few points of the pure vars it writes as they are (each a thread
    // walking its RDom) whose innermost RVar's steps may run at once, one step of the outer RVars at
    // a time (innermost_rvar_parallel_per_step): those steps and the innermost pure var over the
    // block's threads, a launch per step of the outer RVars. A max filter's column windows over 6
    // power-of-two heights, 1920 x 3 walks of 1144 x 5 steps each, took 2.13 ms on the H200.
    std::vector<bool> stage_rvar_threads;
    // Per update stage that writes no pure var and runs on no atomics (a recurrence over an RDom of
    // two dims or more: a seam's cumulative cost, `cost(r.x, r.y) = e(r.x, r.y) + min(cost(r.x - 1,
    // r.y - 1), ...)`) whose innermost RVar's steps may run at once, one step of its outer RVars at a
    // time (innermost_rvar_parallel_per_step): the stage in one block of this many threads over the
    // innermost RVar, the outer RVars a walk in the block with a barrier between steps. 0: one thread
    // walks the RDom. A 512 x 512 seam cost on one thread took 15 ms on the H200.
    std::vector<int> stage_step_threads;
    // Per such update stage whose innermost RVar's points are independent walks at any steps of the
    // outer RVars (innermost_rvar_independent: a recursive filter down each column, written over
    // an RDom of both dims): that RVar over blocks of this many threads, each thread walking the
    // outer RVars, as a scan over a pure var does. 0: not so.
    std::vector<int> stage_walk_threads;
    // Per update stage over its RDom's points with atomic adds in global memory (no pure var, no
    // bins in shared memory): the launch's blocks taken this many apart (a prime), grid x then y;
    // 0: in order. The blocks resident at once then add from all over the RDom, at no regular
    // stride of its dims, not from one stretch of it whose neighbouring points mostly add into the
    // same bins: a Hough transform's votes over 1024 x 1024 pixels by 180 angles took 67.2 ms in
    // order on the H200, 9.0 ms with its blocks 331 apart (and 64.8 ms 720 apart: one image row,
    // each resident block at the same pixel column, whose votes at an angle meet again).
    std::vector<int> stage_spread_blocks;
    // Per update stage whose RDom predicate loads at its pure vars (predicate_loads_at_pure_vars):
    // 2, each thread two neighbouring points of its one pure var inside its walk; -1 (more pure
    // vars), a block per point of them, the innermost over the block's threads where the predicate
    // does not load at it (innermost_over_threads_in_walk); 0: neither
    // (schedules/generic/generic_schedule.cpp).
    std::vector<int> stage_points_in_walk;
    // Per stage of four pure dims or more, on a GPU: how many of its outermost pure dims each
    // thread loops over serially, so that the rest fit the grid's three dims unfused. Fused into
    // one grid dim, each thread found its block's point of them by a division and a remainder by
    // their run-time extents (max_filter's 4-D table: about 100 instructions for each store).
    std::vector<int> stage_serial_outer;
    // A point scan (autosched/model/generic_reason.h) read by other kernels, on a GPU: all its
    // stages computed per 32 x scan_tile_rows tile of a copy of it in shared memory, the copy
    // written once (one launch), instead of a launch per stage each writing the whole Func.
    // 0: not so. A reduction at each point (no scan dim: a Tuple argmin along rows) is computed at
    // each point of the copy, in the thread's registers, instead (`in_registers`).
    int scan_tile_rows = 0;
    bool in_registers = false;
    // A scatter in chunks of rows (a histogram) whose bins fit kSharedBinsBytes at the estimates:
    // each chunk's bins in its block's shared memory, with shared atomics, written out once by a
    // copy (one launch for the chunks, none to zero them). Larger bins take each increment
    // atomically in the Func's own bins.
    bool shared_bins = false;
    // Where those bins fit only at some sizes (a parameter's count of bins, the output's extent):
    // the condition, as printed, under which the chunks run (a specialization); elsewhere each
    // increment is atomic in the Func's own bins. Empty: they fit at any size.
    std::string shared_bins_when;
    // Per stage: an update that writes pure vars as they are beside a data-dependent one (a
    // histogram per channel, `hist(in(r.x, r.y, c), c) += 1`) that runs over its RDom's points
    // atomically (or in chunks of rows, `shared_bins`), its pure vars' few points a grid dim,
    // instead of a thread per point of them walking the whole RDom.
    std::vector<bool> stage_over_rdom;
    // Per such stage: threads along the Func's innermost dim, where the update writes that dim as
    // it is over a warp of points or more (a row scatter, an embedding table's gradient:
    // `table(d, ids(r)) += grad(d, r)`), a block per point of its RDom; 0: its RDom's points over
    // the threads. A warp's loads and atomic adds are then neighbours in memory: over the RDom,
    // a user's table gradient (1024 channels, 16384 tokens) took 307 us on the H200, each warp's
    // 32 adds in 32 rows.
    std::vector<int> stage_row_lanes;
    // A small 1-D Func whose updates each run on one GPU thread (a cumulative table): all its stages
    // in one block, the Func in that block's shared memory, written out by a copy that its readers
    // read (one launch), instead of a launch per stage with each step's load and store in global
    // memory.
    bool one_block = false;
    // A scatter over a small RDom at each of many points of the pure vars it writes as they are
    // (oriented-gradient histograms, 9 bins per 8 x 8 cell): a block per such point (a cell),
    // its bins in shared memory, the RDom's points over `cell_lanes` threads adding to them
    // atomically, written out by a copy that the Func's readers read (one launch). A thread per
    // cell walking its RDom made each increment wait on the previous one's store to global memory.
    int cell_lanes = 0;
    // The same scatter at many cells, with PlannerOptions::cell_threads: a thread per cell walking
    // the cell's RDom, `cell_threads` cells along the innermost cell dim per block, their bins in
    // the block's shared memory (no atomics: each thread owns its cell's bins), written out by a
    // copy (one launch). A bilateral grid's 8 x 8 tiles, whose pixels mostly fall in one or two
    // bins, serialized a block per cell's shared atomics: 1.99 ms on the H200.
    int cell_threads = 0;
};

// Tiles stepping through a fused reduction's RVar (schedules/reduction_tile): `reduction` per tile,
// `per_tile` Funcs staged once per tile, `per_step` staged per tile at each step of `rvar` (empty:
// none, where the Func is also inlined into another kernel).
struct ReductionTileParams {
    std::string reduction, rvar, per_step;
    std::vector<std::string> per_tile;
};

using TemplateParams = std::variant<PointwiseParams, SingleParams, BlockReductionParams, StencilTileParams, RowParams,
                                    InnerOuterParams, GenericParams, ReductionTileParams, TotalReductionParams>;
// How many kinds there are: one per alternative of TemplateParams.
constexpr int kTemplateKinds = int(std::variant_size_v<TemplateParams>);

// Split-K (schedules/split_k): `func` is summed in `slices` slices into the partials Func `partials`
// by launches of `blocks` blocks (zeroing, sums); the root's blocks add the partials. Shared
// split-K (schedules/shared_split_k): reductions over one iteration domain, split in several
// kernels, have their partials summed in one pair of launches, this kernel's: `group` lists them
// all, this kernel's `func` first, each cut along domain position `dim` into slices of `rows`
// points. Each other kernel of the group names this one's func in `launched_with` and launches
// only its root.
struct SplitK {
    std::string func, partials;
    int64_t slices = 0, blocks = 0;
    int64_t slice_rows = 0;  // points each slice of a split-K of its own sums (slices at the planned extents)
    std::vector<std::string> group;
    std::string launched_with;
    int dim = -1;
    int64_t rows = 0;
    int vector = 1;  // neighbours along the domain's position 0 each thread of those launches takes
    // The partials laid out as a contraction's tiles over the reduction's dims contraction_dx and
    // contraction_dy (KernelChoice::split_contraction_dx, _dy); -1: one result per thread.
    int contraction_dx = -1, contraction_dy = -1;
    // The partials' threads along the reduction's dims 0 and 1 fused (KernelChoice::split_interleaved).
    bool interleaved = false;
};

}  // namespace solder::autosched
