#include "autosched/author_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;
using namespace Halide::Internal;

namespace {

// A locked copy of a LoopLevel (locked_copy), or false where it cannot be locked (a LoopLevel
// declared but never set).
bool locked(const LoopLevel &level, LoopLevel &copy) {
    try {
        copy = locked_copy(level);
        return copy.defined();
    } catch (const Halide::Error &) {
        return false;
    }
}

// A LoopLevel as the author would have written it, or "" where it is the default (inlined).
std::string level_text(const LoopLevel &level, const char *what) {
    LoopLevel copy;
    if (!locked(level, copy)) return std::string(what) + "(a LoopLevel not yet set)";
    if (copy.is_inlined()) return "";
    if (copy.is_root()) return std::string(what) + "_root()";
    return std::string(what) + "_at(" + copy.func() + ", " + copy.var().name() + ")";
}

bool same_level(const LoopLevel &a, const LoopLevel &b) {
    LoopLevel x, y;
    return locked(a, x) && locked(b, y) && x == y;
}

bool at_root(const LoopLevel &level) {
    LoopLevel copy;
    return locked(level, copy) && copy.is_root();
}

// "a, b, c"
std::string listed(const std::vector<std::string> &items) {
    std::string list;
    for (auto &i : items) list += (list.empty() ? "" : ", ") + i;
    return list;
}

const char *for_type_directive(ForType t) {
    switch (t) {
    case ForType::Serial: return nullptr;
    case ForType::Parallel: return "parallel";
    case ForType::Vectorized: return "vectorize";
    case ForType::Unrolled: return "unroll";
    case ForType::Extern: return "extern loop";
    case ForType::GPUBlock: return "gpu_blocks";
    case ForType::GPUThread: return "gpu_threads";
    case ForType::GPULane: return "gpu_lanes";
    }
    return "a loop type";
}

// The dims a freshly defined stage has: its RVars innermost (in the RDom's order), then its pure
// vars in the Func's order, then Halide's outermost placeholder. An RVar keeps the purity Halide
// gave it at definition: the dims split or fused from it still carry it.
std::vector<Dim> fresh_dims(const Function &f, const Definition &d, bool update) {
    const StageSchedule &s = d.schedule();
    // Which original var each current dim comes from, through the stage's splits, fuses and renames.
    std::map<std::string, std::set<std::string>> origin;
    for (auto &rv : s.rvars()) origin[rv.var] = {rv.var};
    for (const Split &sp : s.splits()) {
        if (sp.split_type == Split::FuseVars) {
            std::set<std::string> both = origin.count(sp.outer) ? origin[sp.outer] : std::set<std::string>{sp.outer};
            const auto &in = origin.count(sp.inner) ? origin[sp.inner] : std::set<std::string>{sp.inner};
            both.insert(in.begin(), in.end());
            origin[sp.old_var] = both;
        } else {
            const auto from = origin.count(sp.old_var) ? origin[sp.old_var] : std::set<std::string>{sp.old_var};
            origin[sp.outer] = from;
            if (sp.split_type == Split::SplitVar) origin[sp.inner] = from;
        }
    }
    // An RVar is pure only where every dim that came from it still says so (fused with another, it
    // may not: then the safe answer, impure).
    std::map<std::string, bool> pure_rvar;
    for (auto &rv : s.rvars()) pure_rvar[rv.var] = true;
    std::set<std::string> seen;
    for (const Dim &dim : s.dims()) {
        const auto it = origin.find(dim.var);
        const std::set<std::string> from = it == origin.end() ? std::set<std::string>{dim.var} : it->second;
        for (auto &o : from) {
            if (!pure_rvar.count(o)) continue;
            seen.insert(o);
            if (dim.dim_type != DimType::PureRVar || from.size() > 1) pure_rvar[o] = false;
        }
    }
    std::vector<Dim> dims;
    for (auto &rv : s.rvars()) {
        const bool pure = seen.count(rv.var) && pure_rvar[rv.var];
        dims.push_back({rv.var, ForType::Serial, DeviceAPI::None, pure ? DimType::PureRVar : DimType::ImpureRVar,
                        Partition::Auto});
    }
    for (size_t i = 0; i < f.args().size(); i++) {
        if (update) {
            const auto *v = i < d.args().size() ? d.args()[i].as<Variable>() : nullptr;
            if (!v || v->name != f.args()[i] || v->reduction_domain.defined()) continue;
        }
        dims.push_back({f.args()[i], ForType::Serial, DeviceAPI::None, DimType::PureVar, Partition::Auto});
    }
    dims.push_back({Var::outermost().name(), ForType::Serial, DeviceAPI::None, DimType::PureVar, Partition::Auto});
    return dims;
}

bool same_dims(const std::vector<Dim> &a, const std::vector<Dim> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++)
        if (a[i].var != b[i].var || a[i].for_type != b[i].for_type || a[i].device_api != b[i].device_api ||
            a[i].partition_policy != b[i].partition_policy)
            return false;
    return true;
}

// Clears one stage (and its specializations), noting what it carried under `prefix` ("" for the
// pure definition, "update(i)." for an update).
void clear_stage(const Function &f, Definition d, bool update, const std::string &prefix,
                 std::vector<std::string> &notes) {
    StageSchedule &s = d.schedule();
    std::set<std::string> what;
    if (!s.splits().empty()) what.insert("split");
    const std::vector<Dim> fresh = fresh_dims(f, d, update);
    if (!same_dims(s.dims(), fresh)) {
        bool loop_types = false;
        for (const Dim &dim : s.dims()) {
            if (const char *t = for_type_directive(dim.for_type)) what.insert(t), loop_types = true;
            if (dim.partition_policy != Partition::Auto) what.insert("partition");
            if (dim.device_api != DeviceAPI::None && dim.for_type == ForType::Serial) what.insert("a device API");
        }
        if (!loop_types && s.splits().empty() && what.empty()) what.insert("reorder");
    }
    if (!s.prefetches().empty()) what.insert("prefetch");
    if (!level_text(s.fuse_level().level, "compute_with").empty() || !s.fused_pairs().empty())
        what.insert("compute_with");
    if (s.atomic()) what.insert("atomic");
    if (s.allow_race_conditions()) what.insert("allow_race_conditions");
    for (auto &w : what)  // (a specialization's, once)
        if (std::find(notes.begin(), notes.end(), prefix + w) == notes.end()) notes.push_back(prefix + w);
    s.splits().clear();
    s.dims() = fresh;
    s.prefetches().clear();
    s.fuse_level() = FuseLoopLevel();
    s.fused_pairs().clear();
    s.atomic() = false;
    s.override_atomic_associativity_test() = false;
    s.allow_race_conditions() = false;
    s.touched() = false;
    for (Specialization &sp : d.specializations()) clear_stage(f, sp.definition, update, prefix, notes);
}

AuthorSchedule clear_function(Function f) {
    AuthorSchedule a;
    a.func = f.name();
    FuncSchedule &fs = f.schedule();
    const std::string compute = level_text(fs.compute_level(), "compute");
    if (!compute.empty()) a.directives.push_back(compute);
    a.computed_at_root = at_root(fs.compute_level());
    const std::string store = level_text(fs.store_level(), "store");
    if (!store.empty() && !same_level(fs.store_level(), fs.compute_level())) a.directives.push_back(store);
    const std::string hoist = level_text(fs.hoist_storage_level(), "hoist_storage");
    if (!hoist.empty()) a.directives.push_back(hoist);
    if (fs.memory_type() != MemoryType::Auto) a.directives.push_back("store_in");
    if (fs.memoized()) a.directives.push_back("memoize");
    if (fs.async()) a.directives.push_back("async");
    if (fs.ring_buffer().defined()) a.directives.push_back("ring_buffer");
    bool storage = fs.storage_dims().size() != f.args().size();
    for (size_t i = 0; !storage && i < f.args().size(); i++) {
        const StorageDim &sd = fs.storage_dims()[i];
        storage = sd.var != f.args()[i] || sd.alignment.defined() || sd.bound.defined() || sd.fold_factor.defined();
    }
    if (storage)
        a.directives.push_back("storage layout (reorder_storage, align_storage, fold_storage or bound_storage)");

    fs.compute_level() = LoopLevel::inlined();
    fs.store_level() = LoopLevel::inlined();
    fs.hoist_storage_level() = LoopLevel::inlined();
    fs.memory_type() = MemoryType::Auto;
    fs.memoized() = false;
    fs.memoize_eviction_key() = Expr();
    fs.async() = false;
    fs.ring_buffer() = Expr();
    fs.storage_dims().clear();
    for (auto &arg : f.args()) fs.storage_dims().push_back({arg, Expr(), Expr(), Expr(), true});

    if (f.has_pure_definition()) clear_stage(f, f.definition(), false, "", a.directives);
    for (size_t i = 0; i < f.updates().size(); i++)
        clear_stage(f, f.update(int(i)), true, "update(" + std::to_string(i) + ").", a.directives);
    return a;
}

}  // namespace

std::vector<AuthorSchedule> clear_author_schedules(const std::vector<Func> &outputs) {
    std::vector<Function> outs;
    for (auto &o : outputs) outs.push_back(o.function());
    std::map<std::string, Function> env = build_environment(outs);
    // Wrappers (Func::in) are Funcs the author may have scheduled too.
    std::vector<Function> todo;
    for (auto &[name, f] : env) todo.push_back(f);
    for (size_t i = 0; i < todo.size(); i++)
        for (auto &[of, ptr] : todo[i].schedule().wrappers()) {
            Function w(ptr);
            if (!env.count(w.name())) env.emplace(w.name(), w), todo.push_back(w);
        }
    std::vector<AuthorSchedule> cleared;
    for (auto &[name, f] : env) {
        if (f.has_extern_definition()) continue;
        AuthorSchedule a = clear_function(f);
        if (!a.directives.empty()) cleared.push_back(std::move(a));
    }
    return cleared;
}

std::string author_schedule_reason(const AuthorSchedule &a) {
    return "scheduled before auto-scheduling (" + listed(a.directives) + "): " +
           (a.computed_at_root ? "kept stored as compute_root() asks, the rest replaced by the plan"
                               : "replaced by the plan");
}

std::string author_schedule_warning(const std::vector<AuthorSchedule> &cleared) {
    std::string funcs;
    size_t shown = 0;
    for (auto &a : cleared) {
        if (shown++ == 8) {
            funcs += ", and " + std::to_string(cleared.size() - 8) + " more";
            break;
        }
        funcs += (funcs.empty() ? "" : "; ") + std::string("'") + a.func + "' (" + listed(a.directives) + ")";
    }
    const bool kept = std::any_of(cleared.begin(), cleared.end(), [](auto &a) { return a.computed_at_root; });
    return "Solder: " + std::to_string(cleared.size()) + (cleared.size() == 1 ? " Func was" : " Funcs were") +
           " scheduled before auto-scheduling: " + funcs + ". Solder replaced those directives with its plan" +
           (kept ? " and kept each compute_root() Func stored" : "") +
           " (a generator can schedule only `if (!using_autoscheduler())`)";
}

}  // namespace solder::autosched
