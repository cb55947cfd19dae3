// The plan is data: which Funcs are kernel roots (written to global memory), which are inlined
// (recomputed where used) or computed at a root's block (on chip), how each kernel is tiled, and
// why each fusion that was not made was not made. Printable, serializable, testable; applied to the
// Funcs only afterwards (autosched/apply_plan.h).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "autosched/model/device_limits.h"
#include "autosched/model/kernel_params.h"

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
    // The kernel root it is computed in (compute_at), or, for a root, the kernel that writes it
    // beside its own root (a side output); empty otherwise.
    std::string anchor;
    int64_t block_points = 0;  // points one block computes (compute_at in a row kernel)
    // Row kernels whose blocks own several rows: this Func's pure var that follows the root's rows
    // (empty: none, or one row per block).
    std::string row_dim;
    // A Func computed per block whose points there lie along another of its pure vars than its
    // first (an inline reduction's vars follow the order its expression names them): that var,
    // which the block's threads cover. Empty: its first.
    std::string thread_dim;
    // Its extent along that var in one block (0: not a row kernel's): the block's threads over it.
    int64_t thread_extent = 0;
};

// A pipeline output that a row or pointwise kernel writes beside its root (`KernelPlan::side`,
// schedules/row/side_outputs.h): at a row kernel's rows, from the reductions it computes per block
// (int8 quantization's scales, a normalization's saved means), or at a pointwise root's points. Its
// readers in the kernel read a copy of it (Func::clone_in), so that it and the root share the block
// loop (row) or the thread loop (pointwise) through compute_with.
//
// Or, `shared`, a reduction other kernels read (schedules/row/shared_reductions.h): computed per
// block by the row kernel, which writes it for them; `readers` are then the other kernels' Funcs
// that read it, which read copies of the Funcs they read it through, and a wrapper of it.
struct SideOutput {
    std::string func;
    // The Funcs that call it in the pipeline as written, each computed in this kernel (the plan's
    // record: the copy is made for the Funcs that call it when it is applied, after any rfactor).
    std::vector<std::string> readers;
    bool shared = false;
};

struct KernelPlan {
    std::string name;
    std::string root;                  // the Func this kernel writes
    std::vector<std::string> with;     // further roots launched in the same kernel (horizontal fusion)
    std::vector<SideOutput> side;      // outputs it writes beside the root (row and pointwise kernels)
    std::vector<std::string> funcs;    // every Func computed in it, root first
    std::vector<std::string> outputs;  // pipeline outputs among them
    TemplateParams params;             // the template and its parameters (autosched/model/kernel_params.h)
    std::optional<SplitK> split;       // split-K launches for one heavy reduction, if any
    int64_t blocks = 0;
    int launches = 1;  // GPU launches this kernel takes (3 with split-K)
    int64_t bytes_read = 0, bytes_written = 0;
    double est_us = 0;
    // Every block dim of its stages fused into grid x: a y or z extent at the planned size is above
    // the device's 65535 (Plan::grid_map).
    bool grid_in_x = false;
    // Its launches at the planning estimates, as its template lays them out (GPU plans only): what
    // the device's limits are checked against (autosched/model/device_limits.h). Not printed.
    std::vector<LaunchShape> launch_shapes;

    TemplateKind kind() const { return TemplateKind(params.index()); }
    std::string template_name() const { return autosched::template_name(kind()); }
    template<typename P> const P *get() const { return std::get_if<P>(&params); }
    template<typename P> P *get() { return std::get_if<P>(&params); }
    // Parameters several templates have, as the plan prints them (1 / 0 where a template has none).
    int vector_width() const;
    int rows_per_block() const;
    int row_threads() const;
    const std::vector<StagedInput> &staged() const;
    const std::string &split_func() const;  // empty without split-K
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
    // any size: every split of the schedule guards its tail, and every kernel's block dims over
    // whole points (rows, channels, batches: extents known only at run time, which may exceed the
    // 65535 blocks of grid y or z) are fused into grid x (schedules/writer/schedule_writer.h).
    bool fixed_sizes = true;

    const FuncPlan *find(const std::string &func) const;
    // How kernel `k`'s block dims map to the grid (KernelPlan::grid_in_x, fixed_sizes).
    GridMap grid_map(const KernelPlan &k) const {
        return k.grid_in_x ? GridMap::AllInX : fixed_sizes ? GridMap::Three : GridMap::OuterInX;
    }
    std::string to_text() const;
    std::string to_json() const;
};

// Removes the kernels at `drop` (merged into others) from `plan`, and their entries from
// `kernel_root` (each kernel's root, in the plan's order), as the plan's merge steps do.
void drop_kernels(Plan &plan, std::vector<int> &kernel_root, const std::set<size_t> &drop);

}  // namespace solder::autosched
