// Graph analysis: one node per Func (and per pipeline input), edges with what each consumer needs
// of each producer. Sizes come from the outputs' estimates through bounds inference; every Func
// gets a constant required region. Anything that cannot be analysed is an AnalysisError that names
// the Func, never a crash.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct AnalysisError : std::runtime_error {
    using std::runtime_error::runtime_error;
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

struct FuncNode {
    std::string name;
    Halide::Internal::Function function;  // undefined for pipeline inputs
    bool is_input = false, is_output = false;
    // Inputs and outputs: every extent of the buffer is a constant (lang declares its buffers
    // dense), not known only when the pipeline runs. The inner-outer template needs it.
    bool fixed_extents = false;
    std::vector<std::string> dims;  // pure var names, innermost first
    Region region;                  // the region the pipeline needs
    int elem_bytes = 4;             // summed over Tuple elements
    std::string type;               // e.g. "float32", "uint16"
    int updates = 0;
    int64_t reduction_points = 0;   // product of RVar extents over all updates (0: none)
    int64_t ops_per_point = 0;      // arithmetic in one point's definition (a recompute cost)
    std::vector<int> in_edges, out_edges;

    int64_t points() const { return region_points(region); }
    int64_t bytes() const { return points() * elem_bytes; }
    bool is_reduction() const { return reduction_points > 0; }
};

struct FuncEdge {
    int producer = -1, consumer = -1;
    Access access = Access::Pointwise;
    Region footprint;  // the region of the producer this consumer needs, over the consumer's region
    std::string detail;
};

class FuncGraph {
public:
    // Throws AnalysisError (naming the Func) on missing estimates or unanalysable accesses.
    static FuncGraph build(const std::vector<Halide::Func> &outputs);

    std::vector<FuncNode> nodes;  // topological: every producer before its consumers
    std::vector<FuncEdge> edges;
    int find(const std::string &name) const;  // -1 if absent
    const FuncEdge *edge(int producer, int consumer) const;
    // Whether some consumer reads node `n` through a stencil (at several points per point).
    bool read_through_stencil(int n) const;

    // The region of each node needed to compute `root` over `root_region`, following only edges
    // whose producer `inside(producer)` says belongs to the same computation (others are leaves,
    // whose footprint is still reported). Returns one Region per node (empty: not needed).
    std::vector<Region> regions_for(int root, const Region &root_region,
                                    const std::vector<bool> &inside) const;
    std::string describe() const;

private:
    std::vector<std::string> lookup_names_;  // call name -> node (input wrappers map to inputs)
    std::vector<int> lookup_nodes_;
    std::map<std::string, Halide::Expr> input_bounds_;  // "x.min.0" -> estimate
    int lookup(const std::string &call_name) const;
};

}  // namespace solder::autosched
