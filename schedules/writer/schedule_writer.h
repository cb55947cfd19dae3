// Applies schedule directives to Funcs and writes the same directives down as C++ schedule source
// (Halide's `schedule_source`) that a user can paste into a generator's schedule(). Solder's
// templates schedule only through a writer, so the source cannot drift from what was applied.
//
// The source follows the form of Halide's .schedule.h files: Funcs are fetched with
// `pipeline.get_func(i)` (Halide's schedule-independent topological order), Vars and RVars are
// declared by name (Halide matches loop variables by name), directives follow in applied order.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/device_limits.h"

namespace solder {

// One stage of a Func: the pure definition (update = -1) or update `update`.
struct StageRef {
    Halide::Func func;
    int update = -1;
    // > 0: the pure definition's specialization for an output at least spans_x x spans_y points
    // in its dims 0 and `spans_dim_y` (Func::specialize on its output buffer's extents): a branch
    // whose splits keep the tails they ask for (ShiftInwards, where a tile is no wider than the
    // output), beside the general schedule of the same Func.
    int spans_x = 0, spans_y = 0, spans_dim_y = 1;
    // >= 0: the pure definition's specialization for an output whose dim `whole_dim` starts at 0
    // and has exactly `whole_extent` points (an image's channels): a branch whose split of that dim
    // by `whole_extent` has no tail, its other tails guarded as the general schedule's are.
    int whole_dim = -1, whole_extent = 0;
    // Defined: the stage's (pure definition's or update's) specialization on this condition, given
    // as C++ in `branch_source` (schedules/writer/aligned_vectors.h: inputs' rows at whole vectors).
    Halide::Expr branch;
    std::string branch_source;
    std::string branch_name = "aligned";  // what the source calls the condition (`aligned_out`)
    Halide::Stage stage() const;
    bool specialized() const { return spans_x > 0 || whole_dim >= 0 || branch.defined(); }  // a branch Solder makes
    bool whole_tiles() const { return spans_x > 0; }
    // The branch's condition (specialized() only).
    Halide::Expr condition() const;
};

class ScheduleWriter {
public:
    explicit ScheduleWriter(const std::vector<Halide::Func> &outputs);

    // What guard_every_tail leaves to the target.
    struct TailGuards {
        bool vectors = true;            // vectorize under guarded tails; false: the loop stays serial
        bool wide_vectors = true;       // likewise for stages with 64-bit values
        bool aligned_branches = false;  // give each vectorized output its aligned branch (finish())
    };
    // From now on every split, tile and unroll guards its tail (TailStrategy::GuardWithIf whatever
    // the template asked), so that the schedule is correct at any size, not only the planned one;
    // vectorize too, or, without `vectors`, is left out (the loop stays serial). Stages of a
    // specialization whose condition guarantees whole tiles (StageRef::spans_x) are left as asked.
    // Without `wide_vectors`, vectors of 64-bit values are left out likewise (CUDA: Halide 21 fails
    // an LLVM assertion on a masked load of float64, int64 or uint64 lanes). `aligned_branches`
    // matters where alignment does (CUDA: 16-byte accesses only where Halide proves them aligned);
    // on the host it would compile every vectorized output twice for nothing.
    void guard_every_tail(const TailGuards &g);
    // From now on the stages of these Funcs are never vectorized (vectorize leaves their loops
    // serial in each thread), whatever a template asks: CUDA, Funcs that convert to float16 there
    // or inline a Func that does (Halide 21's PTX backend drops the conversion of a vector to f16
    // and stores the f32 bits' halves).
    void refuse_vectors(const std::set<std::string> &funcs) { no_vectors_ = funcs; }
    bool guards_every_tail() const { return guard_tails_; }

    // How every stage's GPU block dims map to the grid from now on (gpu_blocks_over; the kernel's,
    // Plan::grid_map).
    void set_grid_map(autosched::GridMap m) { grid_map_ = m; }
    autosched::GridMap grid_map() const { return grid_map_; }

    // Stage `s`'s specialization on `condition` (Stage::specialize), written in the source over
    // the pipeline's parameters and its inputs' and outputs' buffer fields as `<name>_<Func>`;
    // std::invalid_argument where the condition cannot be written. Schedule the branch before the
    // stage itself: Halide copies into a specialization the schedule made so far.
    StageRef branch(const StageRef &s, const Halide::Expr &condition, const std::string &name);

    void compute_root(Halide::Func f);
    void compute_at(Halide::Func f, Halide::Func at, const Halide::VarOrRVar &v);
    void align_storage(Halide::Func f, const Halide::Var &dim, int alignment);
    void reorder_storage(Halide::Func f, const std::vector<Halide::Var> &innermost_first);
    // `f`'s allocation holds `extent` points of `dim` whatever its computed region (at most that
    // many): a constant size, which a Func computed per GPU thread needs to live in registers.
    void bound_storage(Halide::Func f, const Halide::Var &dim, int extent);
    void bound(Halide::Func f, const Halide::Var &v, int64_t min, int64_t extent);
    // The same over a span known at run time (a scalar parameter's, an input's extent), written in
    // the source as expr_source writes it (schedules/writer/expr_source.h); std::invalid_argument
    // where it cannot be.
    void bound(Halide::Func f, const Halide::Var &v, const Halide::Expr &min, const Halide::Expr &extent);
    // Output `f`'s buffer spans, in its dim `dim`, what output `other`'s buffer spans in `other_dim`
    // (OutputImageParam::Dimension::set_bounds): Halide checks it when the pipeline runs.
    void same_output_bounds(Halide::Func f, int dim, Halide::Func other, int other_dim);
    // The same for `f` that is no output: it is computed over that span in its pure var `dim`
    // (Func::bound), which Halide checks covers what its readers need.
    void bound_to_output(Halide::Func f, int dim, Halide::Func other, int other_dim);
    void split(const StageRef &s, const Halide::VarOrRVar &old, const Halide::VarOrRVar &outer,
               const Halide::VarOrRVar &inner, int factor, Halide::TailStrategy tail);
    void fuse(const StageRef &s, const Halide::VarOrRVar &a, const Halide::VarOrRVar &b,
              const Halide::VarOrRVar &fused);
    void gpu_blocks(const StageRef &s, const Halide::VarOrRVar &v);
    void gpu_threads(const StageRef &s, const Halide::VarOrRVar &v);
    void gpu_threads(const StageRef &s, const Halide::VarOrRVar &x, const Halide::VarOrRVar &y);
    // The lanes of a warp (thread x, at most 32): Halide (CUDA only) keeps a Func computed inside a
    // thread loop, around a lanes loop, in registers, and turns reads across lanes into shuffles.
    void gpu_lanes(const StageRef &s, const Halide::VarOrRVar &v);
    void gpu_single_thread(const StageRef &s);
    // Stage::atomic: the update's loops over its RDom may run in parallel, its read-modify-writes
    // made atomic.
    void atomic(const StageRef &s);
    // Stage::allow_race_conditions: the update's loops over its RDom may run in parallel, the planner
    // having proved that its points write points of their own (autosched::distinct_points_update).
    void allow_race_conditions(const StageRef &s);
    // Stage::unscheduled: the stage keeps Halide's default loops, on purpose (no warning).
    void unscheduled(const StageRef &s);
    // A stage with no pure dims of a Func computed inside a GPU block: one thread of that block.
    // (gpu_single_thread would open a block loop of its own inside the block, which Halide rejects
    // once anything is stored between the two block loops.)
    void one_thread_of_block(const StageRef &s);
    void gpu_tile(const StageRef &s, const Halide::VarOrRVar &x, const Halide::Var &bx, const Halide::Var &tx,
                  int factor, Halide::TailStrategy tail);
    void gpu_tile(const StageRef &s, const Halide::VarOrRVar &x, const Halide::VarOrRVar &y, const Halide::Var &xo,
                  const Halide::Var &yo, const Halide::Var &xi, const Halide::Var &yi, int fx, int fy,
                  Halide::TailStrategy tail);
    void tile(const StageRef &s, const Halide::VarOrRVar &x, const Halide::VarOrRVar &y, const Halide::Var &xo,
              const Halide::Var &yo, const Halide::Var &xi, const Halide::Var &yi, int fx, int fy,
              Halide::TailStrategy tail);
    void parallel(const StageRef &s, const Halide::VarOrRVar &v);
    void reorder(const StageRef &s, const std::vector<Halide::VarOrRVar> &innermost_first);
    void vectorize(const StageRef &s, const Halide::VarOrRVar &v, int width, Halide::TailStrategy tail);
    // Splits off `factor` iterations of `v` and unrolls them (Stage::unroll with a factor).
    void unroll(const StageRef &s, const Halide::VarOrRVar &v, int factor, Halide::TailStrategy tail);
    // Unrolls the whole loop over `v` (Stage::unroll without a factor): its extent must be a
    // constant (the inner loop of a split).
    void unroll(const StageRef &s, const Halide::VarOrRVar &v);
    // Stage::never_partition_all: no loop of the stage is split into prologue, steady state and
    // epilogue (which, on fused GPU block loops, puts an `if` between block loops: a compile error).
    void never_partition_all(const StageRef &s);
    // Stage::always_partition: the loop over `v` is split into a steady state without its tail's
    // guards (Halide reports an error where it cannot).
    void always_partition(const StageRef &s, const Halide::VarOrRVar &v);
    void compute_with(const StageRef &s, const StageRef &with, const Halide::VarOrRVar &v);
    // Splits off the reduction's intermediate over `r` (as Stage::rfactor); the new Func is named
    // in the source from the statement that creates it.
    Halide::Func rfactor(const StageRef &s, const Halide::RVar &r, const Halide::Var &v);
    // The same over several RVars at once, each becoming the paired pure var of the intermediate.
    Halide::Func rfactor(const StageRef &s, const std::vector<std::pair<Halide::RVar, Halide::Var>> &preserved);
    // Renames a loop of the stage (Stage::rename): fused loops (compute_with) must share names.
    void rename(const StageRef &s, const Halide::VarOrRVar &old_name, const Halide::VarOrRVar &new_name);
    // A wrapper of `f` that `readers` call instead of `f` (Func::in), named in the source like rfactor's;
    // where `f` has a global wrapper already (a copy every caller reads), a wrapper of that copy.
    Halide::Func in(Halide::Func f, const std::vector<Halide::Func> &readers);
    // A copy of `f`'s definitions that `readers` call instead of `f` (Func::clone_in), named in the
    // source likewise: `f` itself may then be fused with them (compute_with), which Halide refuses
    // between a Func and its readers.
    Halide::Func clone_in(Halide::Func f, const std::vector<Halide::Func> &readers);

    // The pipeline's outputs, as the writer was made with.
    const std::vector<Halide::Func> &outputs() const { return outputs_; }
    // Whether `f` is one of them.
    bool is_output(const Halide::Func &f) const;
    // Whether `f` was last placed at root (compute_root) by this writer.
    bool computed_at_root(const Halide::Func &f) const { return roots_.count(f.name()) > 0; }
    // A comment line in the source, in order with the directives.
    void note(const std::string &text) { emit("// " + text); }
    // A step that needs every kernel's schedule in place (the Funcs each kernel's stages call, after
    // every template's rfactor): kept, and run by finish() in the order given.
    void after_all(std::function<void(ScheduleWriter &)> step) { after_all_.push_back(std::move(step)); }
    // Runs those steps, then (TailGuards::aligned_branches) gives each output vectorized under
    // guarded tails a branch for aligned buffers (schedules/writer/aligned_vectors.h) where nothing
    // stops it: no compute_with with another Func (Halide fuses no specialized Func), no
    // specializations of its own or its author's, no updates.
    void finish();

    // Declarations first (Funcs, Vars, RVars), then the directives in the order they were applied.
    std::string source(const std::string &header_comment) const;
    // The stage and the specializations its pipeline's author made of it (Func::specialize): every
    // directive on a stage reaches them too, so a compute_at into any of its loops is legal in each
    // branch.
    std::vector<Halide::Stage> stages(const StageRef &s) const;

private:
    // Func::in (or, with `clone`, Func::clone_in) for `readers`, named in the source.
    Halide::Func wrap(Halide::Func f, const std::vector<Halide::Func> &readers, bool clone);
    std::string func_id(const Halide::Func &f);
    std::string stage_expr(const StageRef &s);
    // The source defines kInputFieldHelper (once, before its first use).
    void declare_input_helper();
    // `e` as C++, declaring the helpers it calls; std::invalid_argument where it cannot be written.
    std::string expr_text(const Halide::Expr &e);
    std::string var_id(const Halide::VarOrRVar &v);
    std::string identifier(const std::string &name);
    void emit(const std::string &line) { lines_.push_back(line); }
    // (A specialization for whole tiles keeps the tails it asks for, and one for a dim's exact
    // extent those of splits of that dim (`split_var`): its condition makes them safe.)
    Halide::TailStrategy tail_for(Halide::TailStrategy asked, const StageRef &s,
                                  const std::string &split_var = "") const;

    std::vector<Halide::Func> outputs_;
    std::vector<std::function<void(ScheduleWriter &)>> after_all_;
    bool guard_tails_ = false;
    TailGuards guards_;
    autosched::GridMap grid_map_ = autosched::GridMap::Three;

    std::map<std::string, size_t> topo_index_;                         // Func name -> pipeline.get_func index
    std::map<std::string, std::vector<size_t>> user_specializations_;  // Func name -> per stage
    std::map<std::string, std::string> func_ids_;                      // Func name -> C++ identifier
    std::map<std::string, std::string> var_ids_;                       // Var/RVar name -> C++ identifier
    std::map<std::string, bool> ids_taken_;
    std::vector<std::string> func_decls_, var_decls_, lines_;
    std::set<std::string> roots_;            // Funcs last placed by compute_root
    std::set<std::string> no_vectors_;       // refuse_vectors
    std::map<std::string, int> vectorized_;  // pure stages vectorized under guarded tails: widest width
    std::map<std::string, bool> fused_;      // Funcs in a compute_with
    std::map<std::string, std::vector<StageRef>> exact_branches_;  // Func name -> its whole_dim branches
    bool input_helper_ = false;                                    // the source defines kInputFieldHelper
    bool param_helper_ = false;                                    // ... and kParamHelper
    std::map<std::string, std::string> branch_ids_;                // StageRef::branch_source -> its Expr's name
};

std::string tail_strategy_source(Halide::TailStrategy t);

// Outputs fused with `root` (compute_with) in root's kernel, where Funcs of that kernel read them:
// those readers read a copy of each (ScheduleWriter::clone_in), since Halide fuses no Func with one
// that reads it. The readers are the Funcs that call it now, so this comes after any rewrite
// (rfactor) of them: a wrapper is substituted when the pipeline is lowered and must name the Funcs
// that call it then. And before the outputs are scheduled: a copy takes its Func's schedule. An
// output read by another is copied after that one, so that the other's copy reads a copy too
// (else the root would read the output it is fused with, through that copy).
void clone_for_readers(ScheduleWriter &w, std::vector<Halide::Func> outputs, Halide::Func root);

// Fuses dims[2], dims[3], ... into one dim (a CUDA grid has three dims), without a split: a guarded
// split of a fused dim makes Halide lose the bounds of the dims inside it. Returns at most 3 dims.
std::vector<Halide::VarOrRVar> fold_into_three(ScheduleWriter &w, const StageRef &s,
                                               std::vector<Halide::VarOrRVar> dims, const std::string &tag);

// Marks `blocks` (innermost first, each already split off what its threads take; the first
// `tile_dims` of them count tiles of a split dim, the rest run over whole points) as the stage's GPU
// block dims, as the writer's grid map says (autosched/model/device_limits.h):
//   Three     each a grid dim of its own up to three (fold_into_three);
//   OuterInX  the whole-point dims fused into grid x, the tile counts after it (y, z): sizes known
//             only at run time, where a row count or a batch may exceed the 65535 blocks of y or z.
//             The tile counts stay apart: fused with a tile count, whose extent Halide cannot prove
//             positive, a loop's bounds widen (a Func's rows inferred from 573 rows before its first).
//   AllInX    all fused into grid x (2^31 - 1 blocks): a planned y or z extent above 65535.
// Returns the innermost block loop as it is named then: where Funcs computed per block go.
Halide::VarOrRVar gpu_blocks_over(ScheduleWriter &w, const StageRef &s, std::vector<Halide::VarOrRVar> blocks,
                                  const std::string &tag, int tile_dims = 0);
// A stage's pure dims (`dims`, innermost first) but the last `grid_dims` fused into one along
// `threads` GPU threads per block (tail guarded; loops tag_fN, tag_bx, tag_tx), the count of those
// blocks and the last `grid_dims` dims block dims (gpu_blocks_over, one tile dim). Only for stages
// inside which nothing is computed: Halide loses the bounds of the dims inside a split fused dim.
void gpu_flat_over(ScheduleWriter &w, const StageRef &s, const std::vector<std::string> &dims, int grid_dims,
                   int threads, const std::string &tag);
// Tiles a stage's two innermost pure dims (`pure`, innermost first) over `tx` x `ty` GPU threads,
// tails guarded (loops tag_bx, tag_by, tag_tx, tag_ty), and marks the tile counts and the outer
// pure dims as block dims (gpu_blocks_over). The `serial_outer` outermost pure dims (at most all
// but three) instead loop serially inside each thread.
void gpu_tile_over_blocks(ScheduleWriter &w, const StageRef &s, std::vector<Halide::VarOrRVar> pure, int tx, int ty,
                          const std::string &tag, int serial_outer = 0);
// Whether the writer's grid map lays out `blocks` block dims (the first `tile_dims` tile counts)
// otherwise than as three grid dims: templates keep their own directives (gpu_tile) where not.
bool grid_changes(const ScheduleWriter &w, size_t blocks, int tile_dims);

}  // namespace solder
