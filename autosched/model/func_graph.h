// Graph analysis: one node per Func (and per pipeline input), edges with what each consumer needs
// of each producer. Sizes come from the outputs' estimates through bounds inference; every Func
// gets a constant required region. Anything that cannot be analysed is an AnalysisError that names
// the Func, never a crash.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct AnalysisError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// A missing, zero or negative estimate (of an input, an output, a scalar parameter or a Func read
// at data-dependent points): the user's to fix, so it stays an error wherever the planner runs.
// Other AnalysisErrors say the fused planner cannot take the pipeline; the generic path can
// (autosched/autoschedule.h).
struct EstimateError : AnalysisError {
    using AnalysisError::AnalysisError;
};
// An EstimateError for a Func read at data-dependent points with no estimates: `producer` names it.
// FuncGraph::build leaves such a Func out of the graph, unscheduled (inlined), where Halide can
// inline it; the error reaches the caller only where it cannot.
struct UnboundedReadError : EstimateError {
    UnboundedReadError(const std::string &what, std::string producer)
        : EstimateError(what), producer(std::move(producer)) {}
    std::string producer;
};

// How a consumer reads a producer, from cheapest to fuse to hardest.
enum class Access {
    Pointwise,      // same point: args are the consumer's vars in order
    Broadcast,      // a subset of the consumer's vars (and constants): each producer point read many times
    Remap,          // other affine index maps (slices, clamps, transposes)
    Stencil,        // var + constant offsets: neighbouring points
    Reduction,      // the consumer reduces over the producer (its RVars index it)
    DataDependent,  // an index computed from loaded values: must be materialized
};
const char *access_name(Access a);

// A Func's name as its author wrote it: Halide appends "$N" when a pipeline is built again in one
// process (the knobs that name Funcs, such as keep_unfused, match either).
inline std::string name_as_written(const std::string &func) { return func.substr(0, func.find('$')); }

struct Range64 {
    int64_t min = 0, max = -1;
    int64_t extent() const { return max - min + 1; }
};
// Halide dim order: innermost first. A rank-0 Func's region is one placeholder range {0, 0}, so
// that an empty Region always means "not needed".
using Region = std::vector<Range64>;
int64_t region_points(const Region &r);
// The same ranges, dim by dim (an iteration domain's points are a Region too).
bool same_region(const Region &a, const Region &b);
// The scalar parameters (Params, a generator's scalar Inputs) an expression names, each once.
std::vector<std::string> scalar_params_in(const Halide::Expr &e);

// The sizes a FuncGraph describes the pipeline at (FuncGraph::at_larger_sizes, at_declared_max):
// LargerAll doubles the parameters that declare a max too (where the graph cannot be analysed at
// those maxima).
enum class GraphSizes { Estimated, Larger, LargerAll, DeclaredMax };

// The most points of dim 0, at the estimates, of a Func laid out as an interleaved image (its
// channels, RGB or RGBA, innermost) or a list of small vectors (a point cloud's x, y, z).
constexpr int64_t kInterleavedPoints = 4;

struct FuncNode {
    std::string name;
    Halide::Internal::Function function;  // undefined for pipeline inputs (defined for extern stages)
    bool is_input = false, is_output = false;
    // An extern stage (define_extern): computed by its own code, at root. is_input as well: its
    // readers read it from memory as they read an input, but its region is what they need.
    bool is_extern = false;
    // A Func an extern stage reads (one of its Func arguments): a root, over the region the extern
    // stage asks for (the extern's own, at the estimates: Halide's bounds query answers it at run time).
    bool read_by_extern = false;
    // Inputs and outputs: every extent of the buffer is a constant (lang declares its buffers
    // dense), not known only when the pipeline runs. The inner-outer template needs it.
    bool fixed_extents = false;
    std::vector<std::string> dims;  // pure var names, innermost first
    Region region;                  // the region the pipeline needs
    // Per dim, whether the region's extent is larger at larger inputs and parameters
    // (FuncGraph::at_larger_sizes): known only when the pipeline runs. Empty: no dim grows.
    std::vector<bool> grows;
    int elem_bytes = 4;  // summed over Tuple elements
    std::string type;    // e.g. "float32", "uint16"
    int updates = 0;
    int64_t reduction_points = 0;                    // product of RVar extents over all updates (0: none)
    std::vector<std::vector<int64_t>> rvar_extents;  // per update, each RVar's extent (innermost first)
    std::vector<std::vector<int64_t>> rvar_mins;     // per update, each RVar's min
    int64_t ops_per_point = 0;                       // arithmetic in one point's definition (a recompute cost)
    int64_t math_calls = 0;                          // of which calls of transcendental math (sin, exp, ...)
    // What the cost model charges one point: ops_per_point, integer arithmetic on values twice
    // (integer lanes issue at half the f32 rate; func_graph.cpp's instructions_per_point).
    int64_t instrs_per_point = 0;
    // Why the fused templates cannot take this Func (autosched/model/generic_reason.h); empty when they
    // can. Such a Func is a kernel root of the generic template.
    std::string generic;
    // A generic Func that reduces at each point on its own, or is refined in place at each point
    // (autosched/model/generic_reason.h: reduces_per_point, refined_in_place): it may be fused
    // into the threads of a consumer that reads each of its points once.
    bool generic_per_point = false;
    // A reduction with a predicate, of the fused templates' shape otherwise (generic_reason.h:
    // predicated_reduction): as a kernel root, the block and total reduction templates may take it
    // (before the generic template, where the predicate makes it generic).
    bool predicated_reduction = false;
    std::vector<int> in_edges, out_edges;

    int64_t points() const { return region_points(region); }
    int64_t bytes() const { return points() * elem_bytes; }
    // What it holds with the bounded parameters at their declared maxima (FuncGraph::
    // at_declared_max, held_region there); empty where none is bounded.
    Region held_at_declared_max;
    bool grows_in(size_t d) const { return d < grows.size() && grows[d]; }
    // Its extent along dim `d` at the most any declared max takes it to.
    int64_t extent_at_most(size_t d) const {
        int64_t e = region[d].extent();
        if (d < held_at_declared_max.size()) e = std::max(e, held_at_declared_max[d].extent());
        return e;
    }
    int64_t bytes_at_most() const {
        int64_t b = elem_bytes;
        for (size_t d = 0; d < region.size(); d++) b *= std::max<int64_t>(0, extent_at_most(d));
        return b;
    }
    bool any_grows() const { return std::find(grows.begin(), grows.end(), true) != grows.end(); }
    bool is_reduction() const { return reduction_points > 0; }
    // Whether it has the shape of an interleaved image at the estimates: dim 0 of 2 to
    // kInterleavedPoints points beside a dim 1 of at least `min_dim1`.
    bool interleaved(int64_t min_dim1) const {
        return region.size() >= 2 && region[0].extent() >= 2 && region[0].extent() <= kInterleavedPoints &&
               region[1].extent() >= min_dim1;
    }
    // Whether its RDom runs once per point (its updates write its pure vars in order: a sum per
    // output, predicated or not), not once for the whole Func (a scan, a scatter).
    bool rdom_runs_per_point() const { return generic.empty() || generic_per_point; }
};

struct FuncEdge {
    int producer = -1, consumer = -1;
    Access access = Access::Pointwise;
    Region footprint;  // the region of the producer this consumer needs, over the consumer's region
    std::string detail;
    int sites = 1;  // distinct calls (distinct args) of the producer in the consumer's definition
    // A read at an index that is loaded (directly or through a let) and varies along the consumer's
    // innermost var (a trilinear lookup at each pixel's luminance): neighbouring points read
    // scattered addresses, where a gather of whole rows (table(d, id(t))) reads one row along d.
    // (`access` follows no lets, and may call such a read a remap.)
    bool scattered = false;
    // A read whose index rounds float coordinates to an integer, with no load in between (a resize
    // by the ratio of two extents: floor((x + 0.5f) * in_w / out_w)): the region a tile of the
    // reader needs varies from tile to tile. (An integer division by a run-time value, bilateral
    // grid's x / s, is not counted: staged, its grid ran faster on the H100, 407 against 458 us.)
    bool uneven = false;
    // Where every index of every read is one of the consumer's pure vars plus terms of RVars,
    // parameters and constants (or such terms alone), no load among them and no RDom predicate in
    // the stage (moved with the consumer's region, each read's region keeps its extents): for each
    // distinct read, the consumer dim each producer dim follows (-1: none). Empty otherwise. Reads
    // that follow the consumer alike keep their union's extents too (blocks_alike, block_regions.h).
    std::vector<std::vector<int>> site_vars;
    bool moves_with_consumer() const { return !site_vars.empty(); }

    // A reduction's read of a window around each of its points (FuncGraph::read_through_window):
    // the consumer reduces per point (its updates write its pure vars in order: an inline `sum`),
    // and each index of the producer is a distinct pure var of the consumer plus terms of RVars,
    // parameters and constants (in(x + k, y), a blur's row pass written with `sum`): the taps of a
    // stencil whose offsets an RDom walks.
    bool window = false;

    // A read at several points per point through a resampling (FuncGraph::read_through_resampling).
    bool resamples() const { return access == Access::Remap && sites > 1; }
    // A read at several points per point at fixed offsets, through a window or through a
    // resampling: the consumer's taps of the producer.
    bool taps() const { return access == Access::Stencil || window || resamples(); }
};

// One definition of a Func (its pure definition or an update): what it reads and over what.
struct StageExprs {
    std::vector<Halide::Expr> exprs;  // values, args, predicate
    std::vector<std::string> pure;    // the stage's pure vars
    std::vector<Halide::Internal::ReductionVariable> rvars;
    bool update = false;
    bool predicated = false;  // its RDom has a predicate (RDom::where)
};

class FuncGraph {
public:
    // Throws EstimateError (naming the Func or parameter and the dimension) on missing or
    // non-positive estimates, AnalysisError (naming the Func) on unanalysable accesses. Extents,
    // RDom bounds and regions that depend on inputs' sizes or on scalar parameters are evaluated at
    // their estimates: the graph describes the pipeline at its estimated size.
    // A pure Func read at data-dependent points, without estimates (a boundary condition sampled at
    // computed coordinates: `repeat_edge(in)(x + flow(x, y), y)`), has no region to store; it is
    // left out of the graph and inlined into its readers, as Halide's default schedule does, and
    // named in inlined_unbounded.
    static FuncGraph build(const std::vector<Halide::Func> &outputs);

    // Whether every input and output extent is a constant: the pipeline runs at the size it was
    // planned for. Otherwise a schedule must stay correct at any size (tails guarded).
    bool fixed_sizes() const;
    // The same pipeline at larger sizes: every input's extent known only when it runs and every
    // integer or float scalar parameter's estimate with no declared max (Param::set_range) doubled, the
    // outputs' regions as estimated; node i here is node i there. Null where the sizes are fixed, or
    // the pipeline cannot be analysed at the larger sizes. What a block keeps on chip that is larger
    // there than here grows with what the pipeline computes over (an RDom over an input's extent, a
    // parameter's count of steps, a read mirrored across the input): planned at one size, it would
    // outgrow the chip at another. (What grows with the outputs' own extents, a block that owns a
    // whole row, is the templates' to see: their blocks' extents are the outputs'.)
    const FuncGraph *at_larger_sizes() const;
    // The same pipeline with every integer or float parameter that declares a max above its estimate at that
    // max (the most it takes when the pipeline runs), the rest as estimated. Null where none does.
    // What a block keeps on chip must fit there too.
    const FuncGraph *at_declared_max() const;

    std::vector<FuncNode> nodes;  // topological: every producer before its consumers
    // Pure Funcs read at data-dependent points with no estimates, inlined into their readers and
    // absent from `nodes` (build).
    std::vector<std::string> inlined_unbounded;
    std::vector<FuncEdge> edges;
    int find(const std::string &name) const;  // -1 if absent
    const FuncEdge *edge(int producer, int consumer) const;
    // Whether some consumer reads node `n` through a stencil (at several points per point).
    bool read_through_stencil(int n) const;
    // Whether some consumer reads `n` through a window (FuncEdge::window).
    bool read_through_window(int n) const;
    // Whether some consumer reads `n` at taps (FuncEdge::taps: a stencil, a window or a resampling).
    bool read_at_taps(int n) const;
    // Whether some consumer reads node `n` at several points per point through a resampling (a
    // pyramid's decimation reads 2x - 1, 2x and 2x + 1 of the finer level, its upsampling two points
    // of the coarser one). Like a stencil's producer, such a Func inlined is recomputed at every tap,
    // and a chain of them (a pyramid's levels) at every tap of every tap: the expression, and
    // Halide's compile time, grow exponentially with the chain's length.
    bool read_through_resampling(int n) const;

    // The fewest bytes of input `n` any schedule reads: all of it, or, where every reader gathers
    // from it (one point per site per point of a Func that is no reduction: table[ids]), only the
    // points gathered, where those are fewer.
    int64_t least_read_bytes(int n) const;

    // The region of each node needed to compute `root` over `root_region`, following only edges
    // whose producer `inside(producer)` says belongs to the same computation (others are leaves,
    // whose footprint is still reported). Returns one Region per node (empty: not needed).
    std::vector<Region> regions_for(int root, const Region &root_region, const std::vector<bool> &inside) const;
    // How many times a region a node reads of its producers was asked for, answered from memory or
    // not: a measure of the planner's work that does not depend on the machine (autosched/search.cpp).
    int64_t region_queries() const { return region_queries_; }
    // `e` with every input's and output's size and every scalar parameter at its estimate,
    // simplified (a constant where nothing else varies).
    Halide::Expr at_estimates(const Halide::Expr &e) const;
    // The condition under which node `n` holds at most `bytes` bytes when the pipeline runs, over
    // what the pipeline is given (autosched/model/run_time_region.h, region_fits): a constant where
    // its region is one; undefined where that region cannot be told. Remembered per node and size.
    Halide::Expr fits_when_run(int n, int64_t bytes) const;
    std::string describe() const;

private:
    static FuncGraph build_growing(const std::vector<Halide::Func> &outputs, GraphSizes sizes);
    static FuncGraph build_inlining(const std::vector<Halide::Func> &outputs,
                                    const std::vector<Halide::Internal::Function> &inlined, GraphSizes sizes);
    std::shared_ptr<const FuncGraph> larger_;        // at_larger_sizes
    std::shared_ptr<const FuncGraph> declared_max_;  // at_declared_max
    bool bounded_params_ = false;                    // a parameter declares a max above its estimate
    std::unordered_map<std::string, int> lookup_;    // call name -> node (input wrappers map to inputs)
    mutable std::map<std::pair<int, int64_t>, Halide::Expr> fits_when_run_;
    std::vector<std::vector<StageExprs>> stages_;  // per node, its definitions (none for inputs)
    // Estimates by the name of the variable that stands for them: "in.min.0", "in.extent.1"
    // (inputs' and outputs' buffers), "patch_size" (scalar parameters).
    std::map<std::string, Halide::Expr> estimates_;
    // Each RVar's range, at the estimates, into `scope` (for bounds inference over a stage).
    void push_rvars_at_estimates(const std::vector<Halide::Internal::ReductionVariable> &rvars,
                                 Halide::Internal::Scope<Halide::Internal::Interval> &scope) const;
    // A Func's region when it is read at data-dependent points: its own estimates, else the points
    // its updates write (bounded by their RDoms). Empty when neither is known.
    Region natural_region(int node) const;
    // A Func's region as its author declared it: set_estimates, or Func::bound, for every dim (a
    // bound wins). Empty where a dim has neither. `kind` names it in messages ("output", "Func").
    Region declared_region(const FuncNode &n, const std::string &kind) const;
    int lookup(const std::string &call_name) const;
    // What node `i` holds: its region, and along each dim the points its updates write where their
    // RDoms bound them (a scan down an input's rows writes them all, whichever its readers read).
    Region held_region(int i) const;
    // Per arg of update `u`, the points it writes at the estimates where its RDom bounds them
    // (nothing along a pure var, or where the bounds are not constants there).
    std::vector<std::optional<Range64>> written_by(const Halide::Internal::Definition &u) const;
    // What node `c` over `region` reads of each producer: Halide's bounds inference over every
    // stage, the planner's most repeated question (each kernel a search costs asks it per member).
    // Memoized by (node, region); a pure function of the graph.
    struct ProducerRegion {
        int producer;
        Region region;
    };
    const std::vector<ProducerRegion> &producer_regions(int c, const Region &region) const;
    struct RegionKeyHash {
        size_t operator()(const std::vector<int64_t> &k) const;
    };
    mutable std::unordered_map<std::vector<int64_t>, std::vector<ProducerRegion>, RegionKeyHash> producer_regions_;
    static constexpr size_t kMaxRememberedRegions = 1 << 21;
    mutable std::vector<int64_t> region_key_;  // producer_regions' lookup key
    mutable int64_t region_queries_ = 0;
};

}  // namespace solder::autosched
