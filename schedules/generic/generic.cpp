#include "schedules/generic/generic.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/block_reduction/block_reduction.h"
#include "schedules/generic/generic_schedule.h"
#include "schedules/total_reduction/total_reduction.h"

namespace solder::autosched {

namespace {

// Threads for `points` points, one each: a power of two from a warp up to `most`, the fewest that
// hold them.
int threads_holding(int64_t points, int most) {
    int threads = 32;
    while (threads < most && threads < points) threads *= 2;
    return threads;
}

// Threads per block of an update's walks over `extent` points (a scan along each row): as many as
// fill the SMs (threads_filling_sms), then fewer, below a warp, while that brings the blocks nearer
// two per SM. Measured on the H200: a causal and an anticausal scan along each of 2160 rows of 4096
// took 957.5 us in 68 blocks of 32, 741.7 in 135 of 16, 601.3 in 270 of 8 (Anderson2021, a block
// of 1 or 2 rows: 594.2); a cumulative sum along each of 4096 rows 479.6 us in 128 blocks of 32,
// 477.4 in 256 of 16, 709.1 in 512 of 8.
int scan_threads(int64_t extent, const DeviceProfile &d) {
    int t = threads_filling_sms(extent, 1, d);
    auto off = [&](int threads) {
        return std::abs(std::log(double(blocks_of(extent, threads)) / (2.0 * double(d.sms))));
    };
    while (t > 1 && off(t / 2) < off(t)) t /= 2;
    return t;
}

// Threads per block for each stage of a generic root with exactly one pure var it writes as it is
// (schedules/generic/generic_schedule.h): a scan's RVar walks serially in each thread, so as many
// as fill the SMs at the estimate (threads_filling_sms).
std::vector<int> generic_stage_threads(const FuncNode &O, const DeviceProfile &d) {
    std::vector<int> threads;
    for (int s = 0; s <= O.updates; s++) {
        const auto pure = stage_pure_vars(O.function, s);
        int t = 0;
        if (pure.size() == 1) {
            const size_t dim = size_t(std::find(O.dims.begin(), O.dims.end(), pure[0].name()) - O.dims.begin());
            const int64_t extent = dim < O.region.size() ? O.region[dim].extent() : 1;
            t = s > 0 ? scan_threads(extent, d) : threads_filling_sms(extent, 1, d);
        }
        threads.push_back(t);
    }
    return threads;
}

// The target whose atomics a plan with `opt` may use (atomic_update): CUDA's, or OpenCL's, which
// has no float adds (PlannerOptions::float_atomics).
Halide::Target atomics_target(const PlannerOptions &opt) {
    return Halide::get_host_target().with_feature(opt.float_atomics ? Halide::Target::CUDA : Halide::Target::OpenCL);
}

// The product of `e`, each at least 1.
int64_t points_of(const std::vector<int64_t> &e) {
    int64_t n = 1;
    for (int64_t v : e) n *= std::max<int64_t>(1, v);
    return n;
}

// Threads along the innermost dim of `O` for update `u` over its RDom (GenericParams::
// stage_row_lanes): where the update writes that dim as it is and it has a warp of points or more
// at the estimates, a power of two up to 256; else 0.
int row_scatter_lanes(const FuncNode &O, int u) {
    const auto &args = O.function.update(u).args();
    const auto *v = args.empty() ? nullptr : args[0].as<Halide::Internal::Variable>();
    if (!v || O.dims.empty() || v->name != O.dims[0] || O.region[0].extent() < 32) return 0;
    int lanes = 32;
    while (lanes < 256 && 2 * lanes <= O.region[0].extent()) lanes *= 2;
    return lanes;
}

// Whether update `u` of `O` runs on a GPU over all its RDom's points at once (reduction_loops, a
// launch over the RDom): always where it writes no pure var as it is; where it does, only a
// scatter (scatter_update) whose pure vars have too few points to fill the device with a thread
// each and whose RDom has kScatterPointsPerBin times more points, and only where the target's
// atomics take its type (GenericParams::stage_over_rdom). Else a thread per point of its pure
// vars walks the RDom: a histogram per channel of a 4K image was 3 threads of 8.3M serial
// increments each (458 ms on the H200; Li2018 1.5 ms).
bool over_rdom(const FuncNode &O, int u, const PlannerOptions &opt) {
    const std::vector<int64_t> e = stage_extents(O, u + 1);
    if (e.empty()) return true;
    if (!opt.gpu || size_t(u) >= O.rvar_extents.size() || !scatter_update(O.function, u) ||
        !atomic_update(O.function, u, atomics_target(opt)))
        return false;
    const int64_t pure = points_of(e);
    if (pure >= 256 * int64_t(opt.device.sms)) return false;
    // A row scatter (row_scatter_lanes) at any ratio: a thread per point of its few pure vars
    // would walk every RDom point, each step a read-modify-write in global memory (a user's
    // gradient of 64 channels x 16 heads over 8192 tokens: 1024 threads of 8192 steps).
    return row_scatter_lanes(O, u) > 0 || points_of(O.rvar_extents[size_t(u)]) >= kScatterPointsPerBin * pure;
}

// The steps of update `u`'s serial walk (a scan, each thread's) unrolled, or 0 for the default
// (kScanUnroll): where the update reads other Funcs or inputs than the Func itself, as many steps
// as keep kScanLoadsInFlight of those reads in flight, up to kMaxScanUnroll, while the innermost
// RVar's walk is still kMinUnrolledWalks unrolled walks at the estimates. Measured on the H200 with
// 32 steps against 8: a running-sum box filter of a 4K image's rows 220 us against 305 (two input
// reads per step), a causal and anticausal IIR 363 against 591, the two largest values of each of
// 4096 rows 143 against 258; a prefix sum in place (no other read: each step's load waits on the
// previous step's store to the same buffer) 786 against 460, and a 63-step cumulative sum along a
// volume's outermost dim (half of it in the guarded tail) 45.7 against 22.0.
int scan_unroll(const FuncNode &O, int u) {
    struct Reads : Halide::Internal::IRVisitor {
        std::string self;
        int other = 0;
        using IRVisitor::visit;
        void visit(const Halide::Internal::Call *op) override {
            if ((op->call_type == Halide::Internal::Call::Halide || op->call_type == Halide::Internal::Call::Image) &&
                op->name != self)
                other++;
            IRVisitor::visit(op);
        }
    } reads;
    reads.self = O.name;
    for (const Halide::Expr &v : O.function.update(u).values()) v.accept(&reads);
    if (reads.other == 0 || size_t(u) >= O.rvar_extents.size() || O.rvar_extents[size_t(u)].empty()) return 0;
    const int64_t steps = O.rvar_extents[size_t(u)][0];
    int unroll = kScanUnroll;
    while (unroll < kMaxScanUnroll && 2 * unroll * reads.other <= kScanLoadsInFlight &&
           steps >= kMinUnrolledWalks * 2 * unroll)
        unroll *= 2;
    return unroll > kScanUnroll ? unroll : 0;
}

// The bytes of bins at each cell of a per-cell scatter, at the estimates, or -1 where `O` is none:
// a Func that other kernels read through a copy, on a GPU, whose one update is a scatter beside
// the pure vars it writes as they are (its cells), over an RDom of kCellScatterMinPoints to
// kCellScatterMaxPoints points, with at most kCellBinsBytes of bins at each cell.
int64_t cell_bins_bytes(const FuncNode &O, const PlannerOptions &opt) {
    if (!opt.gpu || O.is_output || O.updates != 1 || O.rvar_extents.empty() || has_specializations(O.function) ||
        O.function.has_extern_definition())
        return -1;
    const std::vector<int64_t> cells = stage_extents(O, 1);
    if (cells.empty() || !scatter_update(O.function, 0)) return -1;
    const int64_t rdom = points_of(O.rvar_extents[0]);
    if (rdom < kCellScatterMinPoints || rdom > kCellScatterMaxPoints) return -1;
    const int64_t bins_bytes = O.bytes_at_most() / std::max<int64_t>(1, points_of(cells));
    // Bins in shared memory whose count is known only at run time (a dim not among the cells that
    // grows with the run-time sizes) could outgrow it.
    std::set<std::string> cell_dims;
    for (auto &v : stage_pure_vars(O.function, 1)) cell_dims.insert(v.name());
    for (size_t d = 0; d < O.dims.size(); d++)
        if (O.grows_in(d) && !cell_dims.count(O.dims[d])) return -1;
    return bins_bytes > kCellBinsBytes ? -1 : bins_bytes;
}

// The threads of a per-cell scatter (cell_bins_bytes) taken a block per cell (GenericParams::
// cell_lanes: a block per cell, its bins in shared memory), or 0: on a GPU whose shared-memory
// atomics take its type (PlannerOptions::shared_atomics, float_atomics). A power of two from a warp
// to 256 that holds the RDom's points.
int cell_scatter_lanes(const FuncNode &O, const PlannerOptions &opt) {
    if (!opt.shared_atomics || cell_bins_bytes(O, opt) < 0 || !atomic_update(O.function, 0, atomics_target(opt)))
        return 0;
    return threads_holding(points_of(O.rvar_extents[0]), 256);
}

// Cells per block where a per-cell scatter (cell_bins_bytes), atomic or not, takes a thread per
// cell (GenericParams::cell_threads), or 0: with PlannerOptions::cell_threads, where the cells
// number at least kCellThreadsMinCells (a thread each fills the device) and their innermost dim at
// least a warp, at the estimates. A power of two from a warp to kCellThreadsMax whose cells' bins
// fit in half a block's shared memory.
int cell_scatter_threads(const FuncNode &O, const PlannerOptions &opt) {
    const int64_t bins_bytes = cell_bins_bytes(O, opt);
    if (!opt.cell_threads || bins_bytes < 0) return 0;
    const std::vector<int64_t> cells = stage_extents(O, 1);
    if (points_of(cells) < kCellThreadsMinCells || cells[0] < 32) return 0;
    int threads = 32;
    while (threads < kCellThreadsMax && 2 * threads <= cells[0] &&
           2 * threads * bins_bytes <= opt.device.shared_memory_bytes / 2)
        threads *= 2;
    return threads * bins_bytes <= opt.device.shared_memory_bytes / 2 ? threads : 0;
}

// Whether update `u` of node `n` is a scatter taken in chunks of rows (chunked_scatter) whose bins
// fit in each chunk's shared memory at the estimates (GenericParams::shared_bins); other scatters
// increment the Func's own bins directly. When the pipeline runs, the bins must fit too: where
// their region is a constant, or a condition over what the pipeline is given (a Param bin count,
// the output's extent: FuncGraph::fits_when_run) that holds at the estimates, the chunks run in
// the branch where it holds (the schedule's specialization), the direct increments elsewhere.
// Where that region cannot be told: bins whose count does not grow with the inputs and the
// parameters (FuncNode::grows), at the estimates and at any declared max.
bool scatters_in_shared_chunks(const FuncGraph &g, int n, int u, const PlannerOptions &opt) {
    const FuncNode &O = g.nodes[size_t(n)];
    if (!chunked_scatter(O.function, u) || !over_rdom(O, u, opt) || !atomic_update(O.function, u, atomics_target(opt)))
        return false;
    const Expr fits = g.fits_when_run(n, kSharedBinsBytes);
    if (!fits.defined()) return O.bytes_at_most() <= kSharedBinsBytes && !O.any_grows();
    return is_const_one(g.at_estimates(fits));
}

// Per stage, the outermost pure dims beyond the grid's three that each GPU thread loops over
// serially (GenericParams): all of them where the other dims keep kGenericMinThreads points or
// more at the estimate and the thread's serial points stay within kGenericSerialPoints, else none.
std::vector<int> generic_stage_serial_outer(const FuncNode &O) {
    std::vector<int> serial;
    for (int s = 0; s <= O.updates; s++) {
        const std::vector<int64_t> e = stage_extents(O, s);
        int64_t grid = 1, looped = 1;
        for (size_t d = 0; d < e.size(); d++) (d < 3 ? grid : looped) *= e[d];
        const bool loop = e.size() > 3 && grid >= kGenericMinThreads && looped <= kGenericSerialPoints;
        serial.push_back(loop ? int(e.size()) - 3 : 0);
    }
    return serial;
}

// The shared memory a tile of `rows` rows of a point scan's copy (GenericParams::scan_tile_rows)
// takes: kGenericTileX x rows points, every point of its scan dims, at the estimates or at the most
// a parameter's declared max takes them to (a step count declared with Param::set_range).
int64_t scan_tile_bytes(const FuncNode &O, int rows) {
    int64_t bytes = int64_t(kGenericTileX) * rows * O.elem_bytes;
    for (int d : point_scan_dims(O.function)) bytes *= O.extent_at_most(size_t(d));
    return bytes;
}

// The extents (innermost first) of a point scan's dims other than its scan dims: its copy's dims,
// which the copy's tiles are laid over (the scan dims each thread loops).
std::vector<int64_t> copy_extents(const FuncNode &O) {
    const std::vector<int> scan = point_scan_dims(O.function);
    std::vector<int64_t> e;
    for (size_t d = 0; d < O.region.size(); d++)
        if (std::find(scan.begin(), scan.end(), int(d)) == scan.end()) e.push_back(O.region[d].extent());
    return e;
}

// The tiles of kGenericTileX x `rows` points a point scan's copy is laid over at the estimates.
// (A point scan's two innermost dims are never scan dims.)
int64_t scan_tiles(const FuncNode &O, int rows) {
    const std::vector<int64_t> e = copy_extents(O);
    int64_t tiles = blocks_of(e[0], kGenericTileX) * blocks_of(e[1], rows);
    for (size_t d = 2; d < e.size(); d++) tiles *= e[d];
    return tiles;
}

// GenericParams::one_block: on a GPU, a 1-D Func of kOneBlockBytes or less, of a size known when
// planned (FuncNode::grows), no pipeline output and no specializations, with updates that each run
// on one thread (no pure var, no atomics).
bool one_block(const FuncNode &O, const PlannerOptions &opt) {
    if (!opt.gpu || O.is_output || O.dims.size() != 1 || O.updates == 0 || O.bytes_at_most() > kOneBlockBytes ||
        O.any_grows() || has_specializations(O.function))
        return false;
    const Halide::Target cuda = Halide::get_host_target().with_feature(Halide::Target::CUDA);
    for (int u = 0; u < O.updates; u++)
        if (!stage_extents(O, u + 1).empty() || atomic_update(O.function, u, cuda)) return false;
    return true;
}

// The rows of a point scan's tiles (GenericParams::scan_tile_rows), or 0 where it runs at root: a
// point scan that is no pipeline output (other kernels read the copy), on a GPU. kGenericTileY
// rows, or fewer (down to one) where the tile would take more than half the shared memory at the
// estimates; none where a scan dim's extent is known only at run time (FuncNode::grows): the tile
// holds every step of the scan, and would outgrow the shared memory at a larger size (a cumulative
// sum down 32 rows of float64 planned, 256 run: 64 KB per tile).
// Fewer rows, too, while the tiles would not give each SM four blocks (threads_filling_sms's
// rule): each thread walks its points' steps serially, so the kernel is bound by the latency of
// those walks, and an SM left without a block adds nothing. A Tuple argmin of 16384 rows of 256
// took 64 tiles of 32 x 8, on 64 of the H100's 132 SMs.
int scan_tile_rows(const FuncNode &O, const PlannerOptions &opt) {
    if (!opt.gpu || O.is_output || !point_scan(O.function)) return 0;
    for (int d : point_scan_dims(O.function))
        if (O.grows_in(size_t(d))) return 0;
    for (int rows = kGenericTileY; rows >= 1; rows /= 2) {
        if (2 * scan_tile_bytes(O, rows) > opt.device.shared_memory_bytes) continue;
        while (rows > 1 && scan_tiles(O, rows) < 4 * int64_t(opt.device.sms)) rows /= 2;
        return rows;
    }
    return 0;
}

// The threads of the per-cell scatter where the template takes it (cell_scatter_lanes), not a
// point scan's tiles or one block, which come first; 0 where it does not.
int cell_lanes_taken(const FuncNode &O, const PlannerOptions &opt) {
    if (scan_tile_rows(O, opt) > 0 || one_block(O, opt) || cell_scatter_threads(O, opt) > 0) return 0;
    return cell_scatter_lanes(O, opt);
}

// The cells per block of a scatter taken a thread per cell (cell_scatter_threads), after a point
// scan's tiles and one block; 0 where it is not.
int cell_threads_taken(const FuncNode &O, const PlannerOptions &opt) {
    return scan_tile_rows(O, opt) == 0 && !one_block(O, opt) ? cell_scatter_threads(O, opt) : 0;
}

// The steps of update `u`'s RVars other than its innermost, at the estimates: its launches where
// its innermost RVar runs over the threads (GenericParams::stage_rvar_threads).
int64_t outer_rvar_steps(const FuncNode &O, int u) {
    int64_t steps = 1;
    for (size_t i = 1; i < O.rvar_extents[size_t(u)].size(); i++) steps *= O.rvar_extents[size_t(u)][i];
    return steps;
}

// GenericParams::stage_rvar_threads for update `u`: on a GPU, an update writing 1 to 3 pure vars as
// they are, at fewer points than kRvarThreadsBelowPerSm threads per SM, whose innermost RVar (of
// kGenericTileY steps or more) may run at once at each of at most kMaxStepLaunches steps of its
// outer RVars, at the estimates.
bool rvar_threads(const FuncNode &O, int u, const PlannerOptions &opt) {
    const std::vector<int64_t> e = stage_extents(O, u + 1);
    if (!opt.gpu || e.empty() || e.size() > 3 || size_t(u) >= O.rvar_extents.size()) return false;
    const std::vector<int64_t> &rv = O.rvar_extents[size_t(u)];
    if (rv.size() < 2 || rv[0] < kGenericTileY) return false;
    if (outer_rvar_steps(O, u) > kMaxStepLaunches || points_of(e) >= kRvarThreadsBelowPerSm * opt.device.sms)
        return false;
    return innermost_rvar_parallel_per_step(O.function, u);
}

// Whether update `u` of `O`, on a GPU, writes no pure var and needs no atomics, over an RDom of two
// dims or more whose innermost has 2 steps or more at the estimates: a walk that one thread would
// take (reduction_loops) unless its innermost RVar's points may run at once.
bool rdom_walk_candidate(const FuncNode &O, int u, const PlannerOptions &opt) {
    if (!opt.gpu || size_t(u) >= O.rvar_extents.size() || !stage_pure_vars(O.function, u + 1).empty()) return false;
    const std::vector<int64_t> &rv = O.rvar_extents[size_t(u)];
    return rv.size() >= 2 && rv[0] >= 2 && !all_points_at_once(O.function, u, atomics_target(opt));
}

// GenericParams::stage_walk_threads for update `u`, a walk candidate (rdom_walk_candidate) whose
// innermost RVar's points are independent walks: threads per block as a scan's over a pure var of
// that extent; else 0.
int walk_threads(const FuncNode &O, int u, const PlannerOptions &opt) {
    if (!innermost_rvar_independent(O.function, u)) return 0;
    return scan_threads(O.rvar_extents[size_t(u)][0], opt.device);
}

// GenericParams::stage_step_threads for update `u`, a walk candidate whose innermost RVar (of 2
// steps or more at the estimates) may run at once at each step of its outer RVars: threads enough
// for that RVar's steps, a power of two from a warp to kMaxStepThreads; else 0.
int step_threads(const FuncNode &O, int u) {
    if (!innermost_rvar_parallel_per_step(O.function, u)) return 0;
    return threads_holding(O.rvar_extents[size_t(u)][0], kMaxStepThreads);
}

// GenericParams::stage_spread_blocks for update `u`: on a GPU, an update that writes no pure var,
// over its RDom's points at once with atomic adds in global memory (a scatter in chunks with bins
// in shared memory is not spread, where its kernel takes the chunks), of kSpreadMinBlocks blocks of
// kGenericThreads1D or more at the estimates: the largest of kSpreadStrides at most its blocks over
// kSpreadResident; else 0.
int spread_blocks(const FuncNode &O, int u, const PlannerOptions &opt) {
    if (!opt.gpu || size_t(u) >= O.rvar_extents.size() || O.rvar_extents[size_t(u)].empty() ||
        !stage_pure_vars(O.function, u + 1).empty() || !atomic_update(O.function, u, atomics_target(opt)) ||
        !all_points_at_once(O.function, u, atomics_target(opt)))
        return 0;
    const int64_t blocks = blocks_of(points_of(O.rvar_extents[size_t(u)]), kGenericThreads1D);
    if (blocks < kSpreadMinBlocks) return 0;
    int stride = 0;
    for (int p : kSpreadStrides)
        if (p <= blocks / kSpreadResident) stride = p;
    return stride;
}

class GenericTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::Generic; }

    // Tiles over the root's dims, members inlined; for roots that need it (FuncNode::generic).
    std::string why_not(const KernelContext &c) const override {
        if (c.root_node().generic.empty()) return "a fused template can take the root (it needs no generic reason)";
        // A reduction generic only for its RDom's predicate: the reduction templates keep the
        // predicate in each lane's walk (a causal row sum took one thread per row before).
        if (c.root_node().predicated_reduction &&
            (total_reduction_template().why_not(c).empty() || block_reduction_template().why_not(c).empty()))
            return "a reduction template takes it, its RDom's predicate evaluated at each point of each lane's walk";
        // A reduction whose later updates refine each point in place: the block reduction, those
        // updates a launch each (a thread per row walked a 2048-point row sum serially before).
        if (reduction_then_refinements(c.root_node().function) && block_reduction_template().why_not(c).empty())
            return "the block reduction template takes it, its later updates (refinements in place) a launch each";
        return "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!why_not(c).empty()) return std::nullopt;
        // A scatter in chunks of rows runs a block per chunk (launch_shapes): a 256-bin histogram
        // of a 4K image is 270 blocks, not the one its 256 points would make (hist_equalize's
        // histogram was estimated at 1462 us, the whole app measured 145 us on the H100).
        // Where its bins take the increments directly (too many for shared memory, or no atomics
        // there: PlannerOptions::shared_atomics), a thread per point of its RDom.
        // A scatter that writes pure vars as they are too (a histogram per channel) over its RDom
        // beside them (over_rdom), the blocks above for each of their points.
        int64_t blocks = std::max<int64_t>(1, O.points() / 256);
        for (int u = 0; c.opt.gpu && u < O.updates; u++) {
            if (size_t(u) >= O.rvar_extents.size() || O.rvar_extents[size_t(u)].empty() || !over_rdom(O, u, c.opt) ||
                !all_points_at_once(O.function, u, atomics_target(c.opt)))
                continue;
            const int64_t pure = points_of(stage_extents(O, u + 1));
            blocks = std::max(blocks, c.opt.shared_atomics && scatters_in_shared_chunks(c.g, c.root, u, c.opt)
                                          ? blocks_of(O.rvar_extents[size_t(u)].back(),
                                                      scatter_chunk(O.rvar_extents[size_t(u)].size()))
                                          : blocks_of(points_of(O.rvar_extents[size_t(u)]), 256) * pure);
        }
        // An update that walks its RDom in one block (or one thread), or in a walk per point of its
        // innermost RVar, has the kernel's time at that stage's few blocks, with each load counted
        // and each Func inlined into the walk computed wherever it is read: so priced, a Func
        // inlined there costs its work and its loads in those few blocks, not spread over the
        // device. Measured on the H200, a seam's cost over a 1080p image took 2441 us with the
        // energy inlined into its one block, 923 with the energy stored first by a launch over the
        // whole device; over a 512 x 512 image (four loads of the input per point) 320 and 204.
        bool walks = false;
        for (int u = 0; c.opt.gpu && u < O.updates; u++)
            if (rdom_walk_candidate(O, u, c.opt)) {
                const int t = walk_threads(O, u, c.opt);
                blocks = std::min(blocks, t > 0 ? blocks_of(O.rvar_extents[size_t(u)][0], t) : int64_t(1));
                walks = true;
            }
        if (cell_lanes_taken(O, c.opt) > 0) blocks = points_of(stage_extents(O, 1));  // a block per cell
        if (const int t = cell_threads_taken(O, c.opt); t > 0) {
            const std::vector<int64_t> cells = stage_extents(O, 1);
            blocks = blocks_of(cells[0], t) * (points_of(cells) / std::max<int64_t>(1, cells[0]));
        }
        return c.whole_root_choice(TemplateKind::Generic, blocks, walks);
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        GenericParams p;
        p.scan_tile_rows = scan_tile_rows(O, c.opt);
        p.one_block = p.scan_tile_rows == 0 && one_block(O, c.opt);
        p.in_registers = p.scan_tile_rows > 0 && point_scan_dims(O.function).empty();
        p.cell_lanes = cell_lanes_taken(O, c.opt);
        p.cell_threads = cell_threads_taken(O, c.opt);
        if (p.scan_tile_rows > 0 || p.one_block || p.cell_lanes > 0 || p.cell_threads > 0) {
            k.launches = 1;  // the copy's (its stage loops are the copy's, not the Func's own)
        } else if (c.opt.gpu) {
            p.stage_threads = generic_stage_threads(O, c.opt.device);
            p.stage_serial_outer = generic_stage_serial_outer(O);
            p.stage_over_rdom.assign(size_t(O.updates) + 1, false);
            p.stage_row_lanes.assign(size_t(O.updates) + 1, 0);
            p.stage_unroll.assign(size_t(O.updates) + 1, 0);
            p.stage_points_in_walk.assign(size_t(O.updates) + 1, 0);
            p.stage_rvar_threads.assign(size_t(O.updates) + 1, false);
            p.stage_step_threads.assign(size_t(O.updates) + 1, 0);
            p.stage_walk_threads.assign(size_t(O.updates) + 1, 0);
            p.stage_spread_blocks.assign(size_t(O.updates) + 1, 0);
            for (int u = 0; u < O.updates; u++) {
                p.stage_over_rdom[size_t(u) + 1] = !stage_extents(O, u + 1).empty() && over_rdom(O, u, c.opt);
                if (p.stage_over_rdom[size_t(u) + 1]) {
                    p.stage_threads[size_t(u) + 1] = 0;  // 256 over the RDom
                    p.stage_row_lanes[size_t(u) + 1] = row_scatter_lanes(O, u);
                }
                // A walk in each thread over its pure vars' points (a scan): its steps unrolled;
                // or, with few such walks, its innermost RVar's steps over the threads.
                if (!p.stage_over_rdom[size_t(u) + 1] && rvar_threads(O, u, c.opt)) {
                    p.stage_rvar_threads[size_t(u) + 1] = true;
                    k.launches += int(outer_rvar_steps(O, u)) - 1;
                    continue;
                }
                p.stage_spread_blocks[size_t(u) + 1] = spread_blocks(O, u, c.opt);
                if (rdom_walk_candidate(O, u, c.opt)) {
                    p.stage_walk_threads[size_t(u) + 1] = walk_threads(O, u, c.opt);
                    if (p.stage_walk_threads[size_t(u) + 1] == 0)
                        p.stage_step_threads[size_t(u) + 1] = step_threads(O, u);
                }
                // A walk in each thread over pure vars its predicate loads at (a CSR segment's):
                // its steps not unrolled, and (as schedule_generic_kernel lays it out) two points
                // of a 1-D var inside it, or a block per point.
                if (!stage_extents(O, u + 1).empty() && !p.stage_over_rdom[size_t(u) + 1]) {
                    const bool loads = predicate_loads_at_pure_vars(O.function, O.function.update(u));
                    p.stage_unroll[size_t(u) + 1] = loads ? 1 : scan_unroll(O, u);
                    if (loads)
                        p.stage_points_in_walk[size_t(u) + 1] =
                            stage_extents(O, u + 1).size() == 1 &&
                                    !predicate_loads_func_at_pure_vars(O.function, O.function.update(u))
                                ? 2
                                : -1;
                }
            }
        }
        // Chunks of rows with their bins in shared memory where the bins fit (measured on the H100:
        // hist_equalize's chunks took 104.3 us with each chunk's 256 bins in global memory, their
        // atomics contending in L2). Bins that do not fit take each increment directly, atomically:
        // many bins seldom contend, and a 256 x 256 joint histogram's chunks would each zero, fill
        // and merge 256 KB of bins of their own (977 us on the H200, 70 MB for 17 MB of pixels).
        bool chunks = false;
        for (int u = 0; u < O.updates; u++) chunks |= scatters_in_shared_chunks(c.g, c.root, u, c.opt);
        // (Not on OpenCL: PlannerOptions::shared_atomics.)
        p.shared_bins = c.opt.gpu && c.opt.shared_atomics && chunks;
        if (p.shared_bins) {
            const Expr fits = c.g.fits_when_run(c.root, kSharedBinsBytes);
            if (fits.defined() && !is_const(fits)) {
                std::ostringstream when;
                when << fits;
                p.shared_bins_when = when.str();
            }
        }
        // (A scatter in chunks, where the kernel takes them, adds into shared bins: not spread.)
        for (int u = 0; p.shared_bins && u < O.updates && size_t(u) + 1 < p.stage_spread_blocks.size(); u++)
            if (chunked_scatter(O.function, u)) p.stage_spread_blocks[size_t(u) + 1] = 0;
        k.params = p;
        // Scatters in chunks of rows take one launch more: the copy's.
        for (int u = 0; c.opt.gpu && u < O.updates; u++)
            k.launches += scatters_in_shared_chunks(c.g, c.root, u, c.opt) && p.shared_bins ? 1 : 0;
    }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const GenericParams &p = *k.get<GenericParams>();
        if (p.scan_tile_rows > 0 && is_gpu_target(c.target))  // (a kernel run on the host: as any other)
            schedule_point_scan_tiles(c.w, c.get(k.root), p.scan_tile_rows);
        else if (p.one_block && is_gpu_target(c.target))
            schedule_one_block(c.w, c.get(k.root));
        else if (p.cell_lanes > 0 && is_gpu_target(c.target))
            schedule_cell_scatter(c.w, c.get(k.root), p.cell_lanes);
        else if (p.cell_threads > 0 && is_gpu_target(c.target))
            schedule_cell_threads(c.w, c.get(k.root), p.cell_threads);
        else
            schedule_generic_kernel(c.w, c.get(k.root), c.target, p);
    }

    // Each stage a launch (schedules/generic/generic_schedule.cpp): pure vars as pure_loops lays
    // them out; an update without pure vars over its RDom atomically where Halide can, a scatter
    // in chunks of rows (three launches), else one thread. An extern stage launches nothing of Solder's.
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        std::vector<LaunchShape> out;
        if (O.is_input || O.function.has_extern_definition()) return out;
        if (const int rows = k.get<GenericParams>()->scan_tile_rows; rows > 0) {
            // The copy's launch: tiles over the dims other than the scan's, which each thread loops.
            LaunchShape s = tiled_stage(O.name + " (copy)", copy_extents(O), kGenericTileX, rows, 0, c.grid);
            // (A reduction at each point, no scan dim, is computed in registers instead.)
            s.shared_bytes = k.get<GenericParams>()->in_registers ? 0 : scan_tile_bytes(O, rows);
            return {s};
        }
        if (const int lanes = k.get<GenericParams>()->cell_lanes; lanes > 0) {
            // A block per cell, its bins in shared memory.
            LaunchShape s;
            s.stage = O.name + " (copy, a block per cell)";
            s.grid[0] = points_of(stage_extents(O, 1));
            s.threads[0] = lanes;
            s.shared_bytes = O.bytes() / std::max<int64_t>(1, s.grid[0]);
            return {s};
        }
        if (const int t = k.get<GenericParams>()->cell_threads; t > 0) {
            // A thread per cell, the block's cells' bins in shared memory.
            const std::vector<int64_t> cells = stage_extents(O, 1);
            LaunchShape s;
            s.stage = O.name + " (copy, a thread per cell)";
            std::vector<int64_t> e{blocks_of(cells[0], t)};
            e.insert(e.end(), cells.begin() + 1, cells.end());
            set_grid(s, e, 1, c.grid);
            s.threads[0] = t;
            s.shared_bytes = t * (O.bytes() / std::max<int64_t>(1, points_of(cells)));
            return {s};
        }
        if (k.get<GenericParams>()->one_block) {
            // One block of 256 threads, the Func in its shared memory.
            LaunchShape s;
            s.stage = O.name + " (copy, one block)";
            s.threads[0] = 256;
            s.shared_bytes = O.bytes();
            return {s};
        }
        const auto &threads = k.get<GenericParams>()->stage_threads;
        const auto &serial = k.get<GenericParams>()->stage_serial_outer;
        const Halide::Target cuda = Halide::get_host_target().with_feature(Halide::Target::CUDA);
        for (int stage = 0; stage <= O.updates; stage++) {
            const std::string name = stage_name(O, stage);
            std::vector<int64_t> e = stage_extents(O, stage);
            const int t = size_t(stage) < threads.size() ? threads[size_t(stage)] : 0;
            // Dims a thread loops over serially are no grid dims.
            if (size_t(stage) < serial.size() && serial[size_t(stage)] > 0 && e.size() > 3)
                e.resize(e.size() - size_t(std::min<int>(serial[size_t(stage)], int(e.size()) - 3)));
            const auto &rdom = k.get<GenericParams>()->stage_over_rdom;
            const bool over = size_t(stage) < rdom.size() && rdom[size_t(stage)];
            const auto &rvar_threads = k.get<GenericParams>()->stage_rvar_threads;
            if (size_t(stage) < rvar_threads.size() && rvar_threads[size_t(stage)]) {
                // The innermost pure var by the innermost RVar, the other pure vars block dims.
                std::vector<int64_t> over_threads{e[0], O.rvar_extents[size_t(stage - 1)][0]};
                over_threads.insert(over_threads.end(), e.begin() + 1, e.end());
                out.push_back(tiled_stage(name + " (a launch per step of its outer RVars)", over_threads, kGenericTileX,
                                          kGenericTileY, 0, c.grid));
                continue;
            }
            if ((!e.empty() && !over) || stage == 0) {
                const auto &in_walk = k.get<GenericParams>()->stage_points_in_walk;
                const int points = size_t(stage) < in_walk.size() ? in_walk[size_t(stage)] : 0;
                if (points != 0) {
                    // Two points per thread (the threads cover twice their number), or a block
                    // of one thread per point.
                    LaunchShape one;
                    one.stage = name;
                    if (points > 0) {
                        one.threads[0] = t > 0 ? t : 256;
                        one.grid[0] = blocks_of(e[0], 2 * int64_t(one.threads[0]));
                    } else {
                        // A block per point, of 256 threads along the innermost dim where the
                        // predicate does not load at it (schedule_generic_kernel).
                        if (innermost_over_threads_in_walk(O.function, stage - 1)) {
                            one.threads[0] = 256;
                            e[0] = blocks_of(e[0], 256);
                        }
                        set_grid(one, e, 0, c.grid);
                    }
                    out.push_back(one);
                    continue;
                }
                out.push_back(tiled_stage(name, e, kGenericTileX, kGenericTileY, t, c.grid));
                continue;
            }
            const std::vector<int64_t> &rv = O.rvar_extents[size_t(stage - 1)];
            int64_t points = 1;
            for (int64_t n : rv) points *= n;
            LaunchShape s;
            s.stage = name;
            if (chunked_scatter(O.function, stage - 1) && k.get<GenericParams>()->shared_bins) {
                // One launch: a block per chunk, its bins in shared memory, then copied out; then the
                // Func adds its chunks' bins over its own dims.
                const int64_t chunks = blocks_of(rv.empty() ? 1 : rv.back(), scatter_chunk(rv.size()));
                std::vector<int64_t> bins = stage_extents(O, 0);
                s.grid[0] = chunks;
                s.threads[0] = kSharedBinsLanes;
                s.stage = name + " (chunks, bins in shared memory)";
                s.shared_bytes = O.bytes();
                out.push_back(s);
                // The bins' sum: a block per kScatterMergeChunks chunks, a thread per bin.
                LaunchShape m;
                m.stage = name;
                m.grid[0] = blocks_of(chunks, kScatterMergeChunks);
                int64_t nbins = 1;
                for (int64_t b : bins) nbins *= b;
                m.threads[0] = std::min<int64_t>(nbins, 256);
                out.push_back(m);
                continue;
            }
            const auto &row_lanes = k.get<GenericParams>()->stage_row_lanes;
            const int lanes = size_t(stage) < row_lanes.size() ? row_lanes[size_t(stage)] : 0;
            if (over && lanes > 0) {  // a block per RDom point, the innermost dim over the threads
                s.grid[0] = points, s.threads[0] = lanes;
                s.grid[1] = blocks_of(e[0], lanes) * points_of(std::vector<int64_t>(e.begin() + 1, e.end()));
                out.push_back(s);
                continue;
            }
            const auto &step = k.get<GenericParams>()->stage_step_threads;
            const auto &walks = k.get<GenericParams>()->stage_walk_threads;
            if (size_t(stage) < step.size() && step[size_t(stage)] > 0) {
                s.stage = name + " (one block, a barrier between steps)";
                s.threads[0] = step[size_t(stage)];
            } else if (size_t(stage) < walks.size() && walks[size_t(stage)] > 0) {
                s.stage = name + " (a walk per point of its innermost RVar)";
                s.threads[0] = walks[size_t(stage)];
                s.grid[0] = blocks_of(rv[0], s.threads[0]);
            }
            if (all_points_at_once(O.function, stage - 1, cuda)) s.grid[0] = blocks_of(points, 256), s.threads[0] = 256;
            const auto &spread = k.get<GenericParams>()->stage_spread_blocks;
            if (size_t(stage) < spread.size() && spread[size_t(stage)] > 1) {
                s.grid[1] = spread[size_t(stage)];
                s.grid[0] = blocks_of(s.grid[0], s.grid[1]);
            }
            if (over) s.grid[1] = points_of(e);  // its pure vars' points (over_rdom)
            out.push_back(s);
        }
        return out;
    }
};

}  // namespace

bool adds_atomically_per_cell(const FuncNode &O, const PlannerOptions &opt) { return cell_lanes_taken(O, opt) > 0; }

const KernelTemplate &generic_template() {
    static const GenericTemplate t;
    return t;
}

}  // namespace solder::autosched
