// The generic template: one Func in a kernel (a loop nest on the host) of its own, correct for any
// definition Halide accepts and any size the pipeline runs at. Every split guards its tail.
//  - The pure definition, on a GPU: 2-D tiles of 32 x 8 threads over the two innermost dims (256
//    threads along a 1-D Func), outer dims as grid dims (those beyond the grid's third looped
//    serially in each thread where that leaves threads enough, else fused into it). On the host:
//    the outermost dim in parallel, the innermost vectorized.
//  - Each update: the same over the pure vars it writes as they are (scans keep their RVars serial
//    inside each thread, unrolled by 8 on a GPU). An update without such vars runs on all its RDom's points at once with
//    atomic read-modify-writes where Halide proves that legal (histograms, scatters of sums), else
//    on one GPU thread (or serially on the host); so does a scatter that writes pure vars too, where
//    `stage_over_rdom` says (those vars a grid dim, or a loop in each chunk, below). A 32-bit
//    integer scatter over rows (a histogram)
//    goes in chunks of rows, each into bins of its own (rfactor; in the block's shared memory
//    where they fit), then blocks of kScatterMergeChunks chunks add theirs into the bins atomically.
//  - An extern stage: computed at root by its own code.
#pragma once
#include "Halide.h"
#include "autosched/model/kernel_params.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Its GPU tiles (threads per block along x and y), and the rows each chunk of a scatter takes.
constexpr int kGenericTileX = 32, kGenericTileY = 8;
// Threads per block of a stage laid out over one dim (its pure var, or its RDom's points at once).
constexpr int kGenericThreads1D = 256;
constexpr int kScatterRowsPerChunk = 8;
// The points each chunk of a scatter over a 1-D RDom takes, and the chunk's points of a scatter
// over an RDom of `rvars` dims (its outermost RVar's). Measured on the H200, a k-means step's sums
// and counts over 2^20 points scattered into 16 labels: 259 us in chunks of 8192 points (128
// chunks), 378 in chunks of 2048, 1928 in chunks of 512; each increment atomic in global memory,
// 861.
constexpr int kScatterPointsPerChunk = 8192;
inline int scatter_chunk(size_t rvars) { return rvars >= 2 ? kScatterRowsPerChunk : kScatterPointsPerChunk; }
// Chunks whose bins each block of the scatter's final sum adds (atomically, into the bins).
constexpr int kScatterMergeChunks = 8;
// A scatter that writes pure vars as they are (a histogram per channel) runs over its RDom's
// points, its pure vars' points a grid dim (GenericParams::stage_over_rdom), where its RDom has at
// least this many points for each of theirs (and they are too few to fill the device).
constexpr int64_t kScatterPointsPerBin = 16;
// A scatter over an RDom of kCellScatterMinPoints to kCellScatterMaxPoints points at each point of
// the pure vars it writes as they are, with at most kCellBinsBytes of bins there, takes a block per
// such point (GenericParams::cell_lanes). (Fewer points: a thread walks them as fast.)
constexpr int64_t kCellScatterMinPoints = 16, kCellScatterMaxPoints = 16384, kCellBinsBytes = 4096;
// Such a scatter at this many cells or more takes a thread per cell instead, at most
// kCellThreadsMax cells per block (GenericParams::cell_threads).
constexpr int64_t kCellThreadsMinCells = 16384;
constexpr int kCellThreadsMax = 128;
// The most bytes of bins a chunked scatter keeps in each block's shared memory (GenericParams::
// shared_bins), at the estimates: 8192 32-bit bins. Measured on the H100, a user's 4096-bin
// histogram of a 3840 x 2160 u16 image took 156.4 us with 8 KB here (its chunks' bins in global
// memory), 60.6 us with 32 KB. The bins take their run-time count: a histogram run with 1.5 times
// more bins than its estimate would pass the 48 KB a launch gets without opting in.
constexpr int64_t kSharedBinsBytes = 32768;
// Lanes of each chunk's block walking its points where its bins are in shared memory: measured on
// the H100 (hist_equalize, 270 chunks), 256 lanes 106.2 us for the app, 512 79.7, 1024 80.0.
constexpr int kSharedBinsLanes = 512;

// A GPU thread loops serially over the pure dims of a stage beyond the grid's three (its outermost)
// where the other dims still have at least this many points, and the points it loops over are at
// most kGenericSerialPoints; else they are fused into the grid's third dim.
constexpr int64_t kGenericMinThreads = 1 << 20;
constexpr int64_t kGenericSerialPoints = 64;

// Each stage laid out as `p` says (autosched::GenericParams: threads per block, outer dims looped
// in each thread, scatters over their RDom or in chunks with shared bins, scans' unrolled walks,
// an innermost RVar over the threads with a launch per step or, with no pure var, every step in
// one block).
void schedule_generic_kernel(ScheduleWriter &w, Halide::Func f, const Halide::Target &target,
                             const autosched::GenericParams &p);

// An atomic scatter's blocks are spread (GenericParams::stage_spread_blocks) where it has at least
// kSpreadMinBlocks of kGenericThreads1D threads: apart by the largest of kSpreadStrides at most
// its blocks over kSpreadResident (about the blocks resident on a device at once), so that those
// cover the RDom.
// Primes: a stride that divides an image's rows would put every resident block at one column.
constexpr int64_t kSpreadMinBlocks = 4096, kSpreadResident = 1024;
constexpr int kSpreadStrides[] = {31, 61, 127, 251, 509, 1021, 2039, 4093, 8191, 16381, 32749, 65521};

// The most threads of an update whose steps run in one block (GenericParams::stage_step_threads).
constexpr int kMaxStepThreads = 512;

// A scan's walks run over the threads where they are fewer than this many threads per SM (a
// launch per step of its outer RVars, at most kMaxStepLaunches of them).
constexpr int64_t kRvarThreadsBelowPerSm = 1024;
constexpr int64_t kMaxStepLaunches = 64;

// Whether update `update` of `fn`, whose predicate loads at its pure vars (two or more of them),
// takes a block per point of those vars with its innermost pure var over the block's threads, each
// thread walking the RDom: where the predicate does not load at that var (an embedding bag's
// channels, `bag(d, b)` with `r < off(b + 1) - off(b)`). Else a block of one thread per point.
bool innermost_over_threads_in_walk(const Halide::Internal::Function &fn, int update);

// A scan's steps unrolled in each thread by default; where it reads other Funcs than itself and its
// walk is long, up to kMaxScanUnroll, as many as keep kScanLoadsInFlight of those reads in flight
// with kMinUnrolledWalks unrolled walks or more at the estimates (GenericParams::stage_unroll).
constexpr int kScanUnroll = 8, kMaxScanUnroll = 32, kScanLoadsInFlight = 64;
constexpr int64_t kMinUnrolledWalks = 16;

// The most bytes of a 1-D Func computed in one block's shared memory (GenericParams::one_block).
constexpr int64_t kOneBlockBytes = 8192;

// GenericParams::one_block: `f`'s readers read a copy of it, computed by one block of 256 threads,
// `f` in that block's shared memory: its pure definition over the threads, each update on one
// thread, its innermost RVar unrolled by 8.
void schedule_one_block(ScheduleWriter &w, Halide::Func f);

// GenericParams::cell_lanes: `f` (one update, a scatter beside pure vars written as they are)
// computed per block of a copy, one block per point of those pure vars, its bins in shared memory:
// its pure stage over the bins and its update over its RDom's points, `lanes` threads each,
// atomically. Its readers read the copy.
void schedule_cell_scatter(ScheduleWriter &w, Halide::Func f, int lanes);

// GenericParams::cell_threads: the same `f` computed per block of a copy, the block `threads`
// cells along the innermost dim the update writes as it is (and one point of the others), its
// cells' bins in shared memory: each thread zeroes its cell's bins and walks its cell's RDom (the
// innermost RVar unrolled by kScanUnroll), adding to them with no atomics. Its readers read the copy.
void schedule_cell_threads(ScheduleWriter &w, Halide::Func f, int threads);

// A point scan (autosched/model/generic_reason.h) that other kernels read, on a GPU: they read a
// copy of it (Func::in) instead, tiled kGenericTileX x `rows` over its dims other than the scan's,
// which each thread loops; the scan itself is computed per tile of the copy, in shared
// memory, every stage dealt to the tile's threads alike, so that each thread walks its own points'
// steps; the copy then writes each point once. At root, each stage is a launch over the whole
// Func: the pure definition writes every step's first value, and each update reads the table
// back and writes it again (max_filter's 14-step column windows, 1.4 GB, crossed DRAM four times).
// Measured on the H100 (max_filter, the disc's kernel unchanged at 845 us): 2663 -> 2339 us.
// The scan's steps unrolled by 8, as the generic template's own scans are, took 2955 us (56
// registers; 3970 with the loops partitioned, 64 registers and spills), and the scan computed
// per tile of the disc's own kernel (no copy; tiles of 32 x 8 up to 256 x 1 points) 2757-3061 us,
// bound by instruction issue: every tile recomputes its halo's column windows.
// A point scan with no scan dim (a reduction at each point: a Tuple argmin along rows) is computed
// at each point of the copy instead, in the thread's registers.
void schedule_point_scan_tiles(ScheduleWriter &w, Halide::Func f, int rows);

}  // namespace solder
