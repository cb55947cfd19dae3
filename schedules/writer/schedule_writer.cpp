#include "schedules/writer/schedule_writer.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/aligned_vectors.h"
#include "schedules/writer/expr_source.h"

namespace solder {
using namespace Halide;

Expr StageRef::condition() const {
    if (branch.defined()) return branch;
    Func f = func;
    const auto &b = f.output_buffer();
    if (whole_dim >= 0) return b.dim(whole_dim).extent() == whole_extent && b.dim(whole_dim).min() == 0;
    return b.dim(0).extent() >= spans_x && b.dim(spans_dim_y).extent() >= spans_y;
}

Stage StageRef::stage() const {
    Func f = func;  // Func's stage accessors are non-const
    // (Halide returns the existing specialization for a condition it already has.)
    if (branch.defined()) return (update < 0 ? Stage(f) : f.update(update)).specialize(branch);
    if (specialized()) return f.specialize(condition());
    return update < 0 ? Stage(f) : f.update(update);
}

TailStrategy ScheduleWriter::tail_for(TailStrategy asked, const StageRef &s, const std::string &split_var) const {
    if (!guard_tails_ || s.whole_tiles()) return asked;
    if (s.whole_dim >= 0 && !split_var.empty() && split_var == s.func.function().args()[size_t(s.whole_dim)])
        return asked;
    return TailStrategy::GuardWithIf;
}

namespace {

// A specialization the pipeline's author made, and the ones made inside it: each stage a schedule
// directive must reach too (Halide gives each its own copy of the schedule at specialize()).
void add_specialization(Stage parent, const Internal::Specialization &sp, std::vector<Stage> &out) {
    Stage st = parent.specialize(sp.condition);  // the existing one, for the same condition
    out.push_back(st);
    for (const auto &inner : sp.definition.specializations()) add_specialization(st, inner, out);
}

}  // namespace

std::vector<Stage> ScheduleWriter::stages(const StageRef &s) const {
    std::vector<Stage> out{s.stage()};
    if (s.specialized()) return out;
    auto it = user_specializations_.find(s.func.name());
    if (it == user_specializations_.end()) return out;
    const size_t stage = size_t(s.update + 1);
    if (stage >= it->second.size()) return out;
    Internal::Function fn = s.func.function();
    const Internal::Definition &def = s.update < 0 ? fn.definition() : fn.update(s.update);
    const auto &specs = def.specializations();
    for (size_t i = 0; i < it->second[stage] && i < specs.size(); i++) add_specialization(out[0], specs[i], out);
    return out;
}

std::string tail_strategy_source(TailStrategy t) {
    switch (t) {
    case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
    case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
    case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
    default: return "TailStrategy::Auto";
    }
}

ScheduleWriter::ScheduleWriter(const std::vector<Func> &outputs) : outputs_(outputs) {
    // The same environment and order Pipeline::get_func uses, so the indices mean the same there.
    std::vector<Internal::Function> outs;
    std::map<std::string, Internal::Function> env;
    for (auto &f : outputs) {
        outs.push_back(f.function());
        auto calls = Internal::find_transitive_calls(f.function());
        env.insert(calls.begin(), calls.end());
    }
    auto order = Internal::topological_order(outs, env);
    for (size_t i = 0; i < order.size(); i++) topo_index_[order[i]] = i;
    // The author's specializations, counted before this writer adds any of its own.
    for (auto &[name, fn] : env)
        if (has_specializations(fn)) user_specializations_[name] = specialization_counts(fn);
}

std::string ScheduleWriter::identifier(const std::string &name) {
    std::string id;
    for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "v_" + id;
    std::string base = id;
    for (int n = 2; ids_taken_.count(id); n++) id = base + "_" + std::to_string(n);
    ids_taken_[id] = true;
    return id;
}

std::string ScheduleWriter::func_id(const Func &f) {
    auto it = func_ids_.find(f.name());
    if (it != func_ids_.end()) return it->second;
    std::string id = identifier(f.name());
    func_ids_[f.name()] = id;
    auto idx = topo_index_.find(f.name());
    if (idx == topo_index_.end())
        throw std::runtime_error("ScheduleWriter: Func '" + f.name() + "' is not part of the pipeline");
    func_decls_.push_back("Func " + id + " = pipeline.get_func(" + std::to_string(idx->second) + ");  // " + f.name());
    return id;
}

std::string ScheduleWriter::var_id(const VarOrRVar &v) {
    const std::string name = v.name();
    if (!v.is_rvar && name == Var::outermost().name()) return "Var::outermost()";
    auto it = var_ids_.find(name);
    if (it != var_ids_.end()) return it->second;
    std::string id = identifier(name);
    var_ids_[name] = id;
    var_decls_.push_back(std::string(v.is_rvar ? "RVar " : "Var ") + id + "(\"" + name + "\");");
    return id;
}

void ScheduleWriter::declare_input_helper() {
    if (input_helper_) return;
    input_helper_ = true;
    func_decls_.push_back(kInputFieldHelper);
}

std::string ScheduleWriter::expr_text(const Expr &e) {
    // (An output's buffer: its Func's output_buffer(), or the Tuple element's of output_buffers().)
    auto output_buffer = [&](const std::string &buffer) -> std::string {
        for (const Func &o : outputs_) {
            const auto &bufs = o.function().output_buffers();
            for (size_t i = 0; i < bufs.size(); i++)
                if (bufs[i].name() == buffer)
                    return func_id(o) +
                           (bufs.size() == 1 ? ".output_buffer()" : ".output_buffers()[" + std::to_string(i) + "]");
        }
        return "";
    };
    const ExprSource s = expr_source(e, output_buffer);
    if (s.text.empty()) {
        std::ostringstream o;
        o << e;
        throw std::invalid_argument("ScheduleWriter: the schedule source cannot name " + o.str());
    }
    if (s.names_inputs) declare_input_helper();
    if (s.names_params && !param_helper_) {
        param_helper_ = true;
        func_decls_.push_back(kParamHelper);
    }
    return s.text;
}

std::string ScheduleWriter::stage_expr(const StageRef &s) {
    std::string f = func_id(s.func);
    if (s.branch.defined()) {
        // (The condition declared once, as an Expr, where the branch is first named.)
        auto it = branch_ids_.find(s.branch_source);
        if (it == branch_ids_.end()) {
            if (s.branch_source.find(kInputFieldHelperName) != std::string::npos) declare_input_helper();
            const std::string id = identifier(s.branch_name + "_" + s.func.name());
            func_decls_.push_back("Halide::Expr " + id + " = " + s.branch_source + ";");
            it = branch_ids_.emplace(s.branch_source, id).first;
        }
        return (s.update < 0 ? f : f + ".update(" + std::to_string(s.update) + ")") + ".specialize(" + it->second + ")";
    }
    if (s.whole_dim >= 0) {
        auto &branches = exact_branches_[s.func.name()];
        bool known = false;
        for (auto &b : branches) known |= b.whole_dim == s.whole_dim && b.whole_extent == s.whole_extent;
        if (!known) branches.push_back(s);
        const std::string d = f + ".output_buffer().dim(" + std::to_string(s.whole_dim) + ")";
        return f + ".specialize(" + d + ".extent() == " + std::to_string(s.whole_extent) + " && " + d + ".min() == 0)";
    }
    if (s.specialized())
        return f + ".specialize(" + f + ".output_buffer().dim(0).extent() >= " + std::to_string(s.spans_x) + " && " +
               f + ".output_buffer().dim(" + std::to_string(s.spans_dim_y) +
               ").extent() >= " + std::to_string(s.spans_y) + ")";
    return s.update < 0 ? f : f + ".update(" + std::to_string(s.update) + ")";
}

StageRef ScheduleWriter::branch(const StageRef &s, const Expr &condition, const std::string &name) {
    StageRef b{s.func, s.update};
    // (Halide takes no let in a specialization's condition: the values they name.)
    b.branch = substitute_in_all_lets(condition);
    b.branch_source = expr_text(condition);
    b.branch_name = name;
    return b;
}

void ScheduleWriter::guard_every_tail(const TailGuards &g) {
    guard_tails_ = true;
    guards_ = g;
}

void ScheduleWriter::compute_root(Func f) {
    f.compute_root();
    roots_.insert(f.name());
    emit(func_id(f) + ".compute_root();");
}

void ScheduleWriter::compute_at(Func f, Func at, const VarOrRVar &v) {
    roots_.erase(f.name());
    if (v.is_rvar)
        f.compute_at(at, v.rvar);
    else
        f.compute_at(at, v.var);
    emit(func_id(f) + ".compute_at(" + func_id(at) + ", " + var_id(v) + ");");
}

void ScheduleWriter::align_storage(Func f, const Var &dim, int alignment) {
    f.align_storage(dim, alignment);
    emit(func_id(f) + ".align_storage(" + var_id(dim) + ", " + std::to_string(alignment) + ");");
}

void ScheduleWriter::bound_storage(Func f, const Var &dim, int extent) {
    f.bound_storage(dim, extent);
    emit(func_id(f) + ".bound_storage(" + var_id(dim) + ", " + std::to_string(extent) + ");");
}

void ScheduleWriter::bound(Func f, const Var &v, int64_t min, int64_t extent) {
    f.bound(v, Expr(int(min)), Expr(int(extent)));
    emit(func_id(f) + ".bound(" + var_id(v) + ", " + std::to_string(min) + ", " + std::to_string(extent) + ");");
}

void ScheduleWriter::bound(Func f, const Var &v, const Expr &min, const Expr &extent) {
    const std::string text =
        func_id(f) + ".bound(" + var_id(v) + ", " + expr_text(min) + ", " + expr_text(extent) + ");";
    f.bound(v, min, extent);
    emit(text);
}

void ScheduleWriter::same_output_bounds(Func f, int dim, Func other, int other_dim) {
    auto o = other.output_buffer().dim(other_dim);
    f.output_buffer().dim(dim).set_bounds(o.min(), o.extent());
    const std::string od = func_id(other) + ".output_buffer().dim(" + std::to_string(other_dim) + ")";
    emit(func_id(f) + ".output_buffer().dim(" + std::to_string(dim) + ").set_bounds(" + od + ".min(), " + od +
         ".extent());");
}

void ScheduleWriter::bound_to_output(Func f, int dim, Func other, int other_dim) {
    auto o = other.output_buffer().dim(other_dim);
    const Var v = pure_vars(f)[size_t(dim)];
    f.bound(v, o.min(), o.extent());
    const std::string od = func_id(other) + ".output_buffer().dim(" + std::to_string(other_dim) + ")";
    emit(func_id(f) + ".bound(" + var_id(v) + ", " + od + ".min(), " + od + ".extent());");
}

void ScheduleWriter::reorder_storage(Func f, const std::vector<Var> &innermost_first) {
    f.reorder_storage(innermost_first);
    std::string args;
    for (auto &v : innermost_first) args += (args.empty() ? "" : ", ") + var_id(v);
    emit(func_id(f) + ".reorder_storage(" + args + ");");
}

void ScheduleWriter::split(const StageRef &s, const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                           int factor, TailStrategy tail) {
    tail = tail_for(tail, s, old.name());
    for (Stage st : stages(s)) st.split(old, outer, inner, factor, tail);
    emit(stage_expr(s) + ".split(" + var_id(old) + ", " + var_id(outer) + ", " + var_id(inner) + ", " +
         std::to_string(factor) + ", " + tail_strategy_source(tail) + ");");
}

void ScheduleWriter::fuse(const StageRef &s, const VarOrRVar &a, const VarOrRVar &b, const VarOrRVar &fused) {
    for (Stage st : stages(s)) st.fuse(a, b, fused);
    emit(stage_expr(s) + ".fuse(" + var_id(a) + ", " + var_id(b) + ", " + var_id(fused) + ");");
}

void ScheduleWriter::gpu_blocks(const StageRef &s, const VarOrRVar &v) {
    for (Stage st : stages(s)) st.gpu_blocks(v);
    emit(stage_expr(s) + ".gpu_blocks(" + var_id(v) + ");");
}

void ScheduleWriter::gpu_threads(const StageRef &s, const VarOrRVar &v) {
    for (Stage st : stages(s)) st.gpu_threads(v);
    emit(stage_expr(s) + ".gpu_threads(" + var_id(v) + ");");
}

void ScheduleWriter::gpu_lanes(const StageRef &s, const VarOrRVar &v) {
    for (Stage st : stages(s)) st.gpu_lanes(v);
    emit(stage_expr(s) + ".gpu_lanes(" + var_id(v) + ");");
}

void ScheduleWriter::gpu_threads(const StageRef &s, const VarOrRVar &x, const VarOrRVar &y) {
    for (Stage st : stages(s)) st.gpu_threads(x, y);
    emit(stage_expr(s) + ".gpu_threads(" + var_id(x) + ", " + var_id(y) + ");");
}

void ScheduleWriter::gpu_single_thread(const StageRef &s) {
    for (Stage st : stages(s)) st.gpu_single_thread();
    emit(stage_expr(s) + ".gpu_single_thread();");
}

void ScheduleWriter::unscheduled(const StageRef &s) {
    for (Stage st : stages(s)) st.unscheduled();
    emit(stage_expr(s) + ".unscheduled();");
}

void ScheduleWriter::atomic(const StageRef &s) {
    for (Stage st : stages(s)) st.atomic();
    emit(stage_expr(s) + ".atomic();");
}

void ScheduleWriter::allow_race_conditions(const StageRef &s) {
    for (Stage st : stages(s)) st.allow_race_conditions();
    emit(stage_expr(s) + ".allow_race_conditions();");
}

void ScheduleWriter::one_thread_of_block(const StageRef &s) {
    Var t(s.func.name() + (s.update < 0 ? std::string("_s0") : "_s" + std::to_string(s.update + 1)) + "_thread");
    for (Stage st : stages(s)) st.split(Var::outermost(), Var::outermost(), t, 1).gpu_threads(t);
    emit(stage_expr(s) + ".split(Var::outermost(), Var::outermost(), " + var_id(t) + ", 1).gpu_threads(" + var_id(t) +
         ");");
}

void ScheduleWriter::gpu_tile(const StageRef &s, const VarOrRVar &x, const Var &bx, const Var &tx, int factor,
                              TailStrategy tail) {
    tail = tail_for(tail, s);
    for (Stage st : stages(s)) st.gpu_tile(x, bx, tx, factor, tail);
    emit(stage_expr(s) + ".gpu_tile(" + var_id(x) + ", " + var_id(bx) + ", " + var_id(tx) + ", " +
         std::to_string(factor) + ", " + tail_strategy_source(tail) + ");");
}

void ScheduleWriter::gpu_tile(const StageRef &s, const VarOrRVar &x, const VarOrRVar &y, const Var &xo, const Var &yo,
                              const Var &xi, const Var &yi, int fx, int fy, TailStrategy tail) {
    tail = tail_for(tail, s);
    for (Stage st : stages(s)) st.gpu_tile(x, y, xo, yo, xi, yi, fx, fy, tail);
    emit(stage_expr(s) + ".gpu_tile(" + var_id(x) + ", " + var_id(y) + ", " + var_id(xo) + ", " + var_id(yo) + ", " +
         var_id(xi) + ", " + var_id(yi) + ", " + std::to_string(fx) + ", " + std::to_string(fy) + ", " +
         tail_strategy_source(tail) + ");");
}

void ScheduleWriter::tile(const StageRef &s, const VarOrRVar &x, const VarOrRVar &y, const Var &xo, const Var &yo,
                          const Var &xi, const Var &yi, int fx, int fy, TailStrategy tail) {
    tail = tail_for(tail, s);
    for (Stage st : stages(s)) st.tile(x, y, xo, yo, xi, yi, fx, fy, tail);
    emit(stage_expr(s) + ".tile(" + var_id(x) + ", " + var_id(y) + ", " + var_id(xo) + ", " + var_id(yo) + ", " +
         var_id(xi) + ", " + var_id(yi) + ", " + std::to_string(fx) + ", " + std::to_string(fy) + ", " +
         tail_strategy_source(tail) + ");");
}

void ScheduleWriter::parallel(const StageRef &s, const VarOrRVar &v) {
    for (Stage st : stages(s)) st.parallel(v);
    emit(stage_expr(s) + ".parallel(" + var_id(v) + ");");
}

void ScheduleWriter::reorder(const StageRef &s, const std::vector<VarOrRVar> &innermost_first) {
    for (Stage st : stages(s)) st.reorder(innermost_first);
    std::string args;
    for (auto &v : innermost_first) args += (args.empty() ? "" : ", ") + var_id(v);
    emit(stage_expr(s) + ".reorder(" + args + ");");
}

namespace {

// Whether any value `f` computes or loads is 64 bits wide (float64, int64, uint64).
bool has_64_bit_values(const Func &f) {
    return has_value_of_type(f.function(), [](const Type &t) { return t.bits() == 64; });
}

}  // namespace

void ScheduleWriter::vectorize(const StageRef &s, const VarOrRVar &v, int width, TailStrategy tail) {
    if (guard_tails_ && !guards_.vectors && !s.whole_tiles()) return;
    if (no_vectors_.count(s.func.name())) return;
    // (Halide 21's CUDA backend fails an LLVM assertion on a guarded vector of 64-bit values.)
    if (guard_tails_ && !guards_.wide_vectors && !s.whole_tiles() && has_64_bit_values(s.func)) return;
    tail = tail_for(tail, s);
    if (guard_tails_ && guards_.aligned_branches && !s.specialized() && s.update < 0 && width > 1)
        vectorized_[s.func.name()] = std::max(vectorized_[s.func.name()], width);
    for (Stage st : stages(s)) st.vectorize(v, width, tail);
    emit(stage_expr(s) + ".vectorize(" + var_id(v) + ", " + std::to_string(width) + ", " + tail_strategy_source(tail) +
         ");");
}

void ScheduleWriter::unroll(const StageRef &s, const VarOrRVar &v, int factor, TailStrategy tail) {
    tail = tail_for(tail, s);
    for (Stage st : stages(s)) st.unroll(v, factor, tail);
    emit(stage_expr(s) + ".unroll(" + var_id(v) + ", " + std::to_string(factor) + ", " + tail_strategy_source(tail) +
         ");");
}

void ScheduleWriter::unroll(const StageRef &s, const VarOrRVar &v) {
    for (Stage st : stages(s)) st.unroll(v);
    emit(stage_expr(s) + ".unroll(" + var_id(v) + ");");
}

void ScheduleWriter::never_partition_all(const StageRef &s) {
    for (Stage st : stages(s)) st.never_partition_all();
    emit(stage_expr(s) + ".never_partition_all();");
}

void ScheduleWriter::always_partition(const StageRef &s, const VarOrRVar &v) {
    for (Stage st : stages(s)) st.always_partition({v});
    emit(stage_expr(s) + ".always_partition({" + var_id(v) + "});");
}

void ScheduleWriter::compute_with(const StageRef &s, const StageRef &with, const VarOrRVar &v) {
    fused_[s.func.name()] = fused_[with.func.name()] = true;
    s.stage().compute_with(with.stage(), v);
    emit(stage_expr(s) + ".compute_with(" + stage_expr(with) + ", " + var_id(v) + ");");
}

Func ScheduleWriter::rfactor(const StageRef &s, const RVar &r, const Var &v) {
    Func intm = s.stage().rfactor(r, v);
    // The intermediate is not in the pipeline's Func list: the statement that makes it names it.
    std::string id = identifier(intm.name());
    func_ids_[intm.name()] = id;
    emit("Func " + id + " = " + stage_expr(s) + ".rfactor(" + var_id(r) + ", " + var_id(v) + ");");
    return intm;
}

Func ScheduleWriter::rfactor(const StageRef &s, const std::vector<std::pair<RVar, Var>> &preserved) {
    Func intm = s.stage().rfactor(preserved);
    std::string id = identifier(intm.name());
    func_ids_[intm.name()] = id;
    std::string list;
    for (auto &[r, v] : preserved)
        list += std::string(list.empty() ? "" : ", ") + "{" + var_id(r) + ", " + var_id(v) + "}";
    emit("Func " + id + " = " + stage_expr(s) + ".rfactor({" + list + "});");
    return intm;
}

void ScheduleWriter::rename(const StageRef &s, const VarOrRVar &old_name, const VarOrRVar &new_name) {
    for (Stage st : stages(s)) st.rename(old_name, new_name);
    emit(stage_expr(s) + ".rename(" + var_id(old_name) + ", " + var_id(new_name) + ");");
}

Func ScheduleWriter::in(Func f, const std::vector<Func> &readers) { return wrap(f, readers, false); }

bool ScheduleWriter::is_output(const Func &f) const {
    return std::any_of(outputs_.begin(), outputs_.end(), [&](const Func &o) { return o.name() == f.name(); });
}

Func ScheduleWriter::clone_in(Func f, const std::vector<Func> &readers) { return wrap(f, readers, true); }

Func ScheduleWriter::wrap(Func f, const std::vector<Func> &readers, bool clone) {
    // A Func with a global wrapper (a copy every caller reads: a reduction computed in registers
    // at the copy's points) is read by `readers` through that copy: the copy is what they wrap.
    // (Wrapping the Func itself, Halide refused the schedule: the Func is computed only inside the
    // copy's kernel, and the new wrapper sat in a reader's. A random user pipeline's transposed
    // read of a stored window minimum failed so.)
    if (!clone && !readers.empty())
        if (auto g = f.function().wrappers().find(""); g != f.function().wrappers().end())
            f = Func(Internal::Function(g->second));
    std::string list;
    for (auto &r : readers) list += (list.empty() ? "" : ", ") + func_id(r);
    const std::string base = func_id(f);
    // No readers: a global wrapper (every caller, also Funcs rfactor makes later; Func::in only).
    Func wrapper = clone ? f.clone_in(readers) : readers.empty() ? f.in() : f.in(readers);
    std::string id = identifier(wrapper.name());
    func_ids_[wrapper.name()] = id;
    const std::string call = clone ? ".clone_in" : ".in";
    emit("Func " + id + " = " + base + call + (readers.empty() ? "();" : "({" + list + "});"));
    return wrapper;
}

void clone_for_readers(ScheduleWriter &w, std::vector<Func> outputs, Func root) {
    while (!outputs.empty()) {
        // (One that no other output left reads: its copy, made now, reads those others, which
        // build_environment then finds through their wrappers and gives their own copies.)
        size_t next = 0;
        for (size_t i = 0; i < outputs.size(); i++) {
            bool read = false;
            for (size_t j = 0; j < outputs.size() && !read; j++)
                read = j != i && Internal::build_environment({outputs[j].function()}).count(outputs[i].name()) > 0;
            if (!read) {
                next = i;
                break;
            }
        }
        Func f = outputs[next];
        outputs.erase(outputs.begin() + long(next));
        std::vector<Func> readers;
        for (auto &[name, fn] : Internal::build_environment({root.function()}))
            if (name != f.name() && direct_callees(fn).count(f.name())) readers.push_back(Func(fn));
        if (!readers.empty()) w.clone_in(f, readers);
    }
}

void ScheduleWriter::finish() {
    std::vector<std::function<void(ScheduleWriter &)>> steps;
    steps.swap(after_all_);
    for (auto &step : steps) step(*this);
    for (Func f : outputs_) {
        auto it = vectorized_.find(f.name());
        // (Specializations other than Solder's own branches: the author's.)
        auto branches = exact_branches_.find(f.name());
        const size_t own = branches == exact_branches_.end() ? 0 : branches->second.size();
        if (it == vectorized_.end() || fused_.count(f.name()) || f.has_update_definition() ||
            f.function().definition().specializations().size() != own)
            continue;
        const std::string id = func_id(f);
        AlignedBranch b = aligned_branch(f, it->second, outputs_, id);
        if (!b.condition.defined()) continue;
        // Halide copies the schedule so far into the new branch: every directive above holds there.
        if (b.names_inputs) declare_input_helper();
        // Solder's own branches first, each its own aligned branch inside it, then the general schedule's.
        for (size_t i = 0; i < own; i++) {
            const StageRef &br = branches->second[i];
            br.stage().specialize(b.condition);
            emit(stage_expr(br) + ".specialize(" + b.source + ");  // the same branch, its vectors whole and aligned");
        }
        f.specialize(b.condition);
        emit(id + ".specialize(" + b.source + ");  // the same schedule, its vectors whole and aligned");
    }
}

std::string ScheduleWriter::source(const std::string &header_comment) const {
    std::string out;
    if (!header_comment.empty()) out += "// " + header_comment + "\n";
    for (auto &[name, counts] : user_specializations_)
        out += "// " + name + " has specializations made before scheduling: each directive below on a stage of " +
               name + " was applied to its specializations of that stage as well\n";
    for (auto &l : func_decls_) out += l + "\n";
    // Sorted: argument evaluation order (which decides first use) varies between compilers.
    std::vector<std::string> vars = var_decls_;
    std::sort(vars.begin(), vars.end());
    for (auto &l : vars) out += l + "\n";
    for (auto &l : lines_) out += l + "\n";
    return out;
}

namespace {

// Whether `v` counts the tiles of a split of `s` (the outer var of a split by more than 1: its
// extent, a rounded-up quotient, is one Halide cannot prove positive).
bool counts_tiles(const StageRef &s, const VarOrRVar &v) {
    for (const Internal::Split &sp : s.stage().get_schedule().splits()) {
        // (A split by 1 that keeps the dim's name only adds a unit loop inside it.)
        if (sp.split_type != Internal::Split::SplitVar || Internal::is_const_one(sp.factor)) continue;
        if (sp.outer == v.name() || Internal::ends_with(sp.outer, "." + v.name())) return true;
    }
    return false;
}

// Orders dims [from, end) of `dims`, about to be fused into one (innermost first), whole-point dims
// first and tile counts after them, each group in its order. Halide rebuilds each dim of a fuse but
// the innermost by dividing by the extents of the dims inside it; where it cannot prove a divisor
// positive it bounds the quotient of a stored Func by the fused extent on both sides. A tile count
// inside a dim read unclamped widens its bounds so (an input read at batch index -4), while
// whole-point extents keep the sign test and the quotient exact. An output's region keeps a
// run-time sign test whatever the divisor: its blocks keep their order.
void tile_counts_outermost(const ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> &dims, size_t from) {
    if (from >= dims.size() || w.is_output(s.func)) return;
    // (RVars keep their order: Halide restricts reordering them past pure dims.)
    for (size_t i = from; i < dims.size(); i++)
        if (dims[i].is_rvar) return;
    std::stable_partition(dims.begin() + long(from), dims.end(),
                          [&](const VarOrRVar &v) { return !counts_tiles(s, v); });
}

}  // namespace

std::vector<VarOrRVar> fold_into_three(ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> dims,
                                       const std::string &tag) {
    tile_counts_outermost(w, s, dims, 2);
    for (size_t i = 3; i < dims.size(); i++) {
        Var next(tag + "_f" + std::to_string(i));
        w.fuse(s, dims[2], dims[i], next);
        dims[2] = next;
    }
    while (dims.size() > 3) dims.pop_back();
    return dims;
}

bool grid_changes(const ScheduleWriter &w, size_t blocks, int tile_dims) {
    using autosched::GridMap;
    return w.grid_map() == GridMap::AllInX ||
           (w.grid_map() == GridMap::OuterInX && blocks > size_t(std::max(0, tile_dims)) && blocks > 1);
}

VarOrRVar gpu_blocks_over(ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> blocks, const std::string &tag,
                          int tile_dims) {
    using autosched::GridMap;
    if (!grid_changes(w, blocks.size(), tile_dims)) {
        for (auto &d : fold_into_three(w, s, blocks, tag)) w.gpu_blocks(s, d);
        return blocks[0];
    }
    // Fused after the splits, never split after: a guarded split of a fused dim makes Halide lose
    // the bounds of the dims inside it (fold_into_three).
    const size_t tiles = w.grid_map() == GridMap::AllInX ? 0 : std::min(blocks.size(), size_t(std::max(0, tile_dims)));
    std::vector<VarOrRVar> order;
    if (tiles < blocks.size()) {
        tile_counts_outermost(w, s, blocks, tiles);
        VarOrRVar all = blocks[tiles];
        for (size_t i = tiles + 1; i < blocks.size(); i++) {
            Var next(tag + "_gx" + std::to_string(i));
            w.fuse(s, all, blocks[i], next);
            all = next;
        }
        order.push_back(all);
    }
    order.insert(order.end(), blocks.begin(), blocks.begin() + long(tiles));
    // The whole-point dims inside the tile counts: the innermost block loop is grid x.
    if (tiles > 0) w.reorder(s, order);
    for (auto &d : order) w.gpu_blocks(s, d);
    return order[0];
}

void gpu_flat_over(ScheduleWriter &w, const StageRef &s, const std::vector<std::string> &dims, int grid_dims,
                   int threads, const std::string &tag) {
    const size_t inner = dims.size() - size_t(std::clamp(grid_dims, 0, int(dims.size()) - 1));
    VarOrRVar flat = Var(dims[0]);
    for (size_t d = 1; d < inner; d++) {
        Var next(tag + "_f" + std::to_string(d));
        w.fuse(s, flat, Var(dims[d]), next);
        flat = next;
    }
    Var bx(tag + "_bx"), tx(tag + "_tx");
    w.split(s, flat, bx, tx, threads, TailStrategy::GuardWithIf);
    w.gpu_threads(s, tx);
    std::vector<VarOrRVar> blocks{bx};
    for (size_t d = inner; d < dims.size(); d++) blocks.push_back(Var(dims[d]));
    gpu_blocks_over(w, s, blocks, tag, 1);
}

void gpu_tile_over_blocks(ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> pure, int tx, int ty,
                          const std::string &tag, int serial_outer) {
    Var bx(tag + "_bx"), by(tag + "_by"), vx(tag + "_tx"), vy(tag + "_ty");
    w.tile(s, pure[0], pure[1], bx, by, vx, vy, tx, ty, TailStrategy::GuardWithIf);
    const int serial = std::min(serial_outer, int(pure.size()) - 3);
    if (serial > 0) {
        // Innermost first: the serial dims, the threads, the tile counts, the other dims.
        std::vector<VarOrRVar> order(pure.end() - serial, pure.end());
        for (const VarOrRVar &v : {VarOrRVar(vx), VarOrRVar(vy), VarOrRVar(bx), VarOrRVar(by)}) order.push_back(v);
        order.insert(order.end(), pure.begin() + 2, pure.end() - serial);
        w.reorder(s, order);
        pure.erase(pure.end() - serial, pure.end());
    }
    w.gpu_threads(s, vx, vy);
    std::vector<VarOrRVar> blocks{bx, by};
    blocks.insert(blocks.end(), pure.begin() + 2, pure.end());
    gpu_blocks_over(w, s, blocks, tag, 2);
}

}  // namespace solder
