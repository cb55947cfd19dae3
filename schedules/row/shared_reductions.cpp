#include "schedules/row/shared_reductions.h"

#include <algorithm>
#include <functional>
#include <set>

#include "autosched/model/block_regions.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/row/row_blocks.h"
#include "schedules/row/side_outputs.h"
#include "schedules/row/row_schedule.h"

namespace solder {
using namespace Halide;

namespace autosched {

bool shares_reductions(const PlannerOptions &opt) { return opt.gpu && opt.compute_at && opt.shared_reductions; }

std::string shared_reduction_why_not(const FuncGraph &g, const std::map<int, KernelChoice> &choice, int host, int s) {
    const FuncNode &H = g.nodes[size_t(host)], &S = g.nodes[size_t(s)];
    auto it = choice.find(host);
    if (it == choice.end() || it->second.kind != TemplateKind::Row)
        return H.name + "'s kernel, the one whose rows it lies at, is no row kernel";
    const KernelChoice &kc = it->second;
    if (kc.split_func >= 0) return H.name + "'s row kernel sums a reduction in split-K partials";
    // An output's rows are the caller's window, which need not hold every row the other kernels
    // read it at (a column sum over every row, the output asked for a window of them).
    if (H.is_output) return H.name + ", whose row kernel would compute it, is an output: its rows are the caller's";
    const int inner = kc.inner_dims;
    if (int(H.dims.size()) - inner != int(S.dims.size()))
        return "its dims are not the rows of " + H.name + "'s row kernel";
    // A block computes it where the block's Funcs need it: written by the block, that must be the
    // block's own rows, no more.
    if (std::string why = needed_beyond_own_rows(g, host, kc, s); !why.empty()) return why;
    return read_through_moving_indices(g, host, kc, s);
}

std::string read_through_moving_indices(const FuncGraph &g, int host, const KernelChoice &kc, int s) {
    const std::set<int> inside(kc.members.begin(), kc.members.end());
    std::set<int> seen;
    std::function<std::string(int)> walk = [&](int c) -> std::string {
        if (!seen.insert(c).second) return "";
        for (int e : g.nodes[size_t(c)].in_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (E.producer != s && !inside.count(E.producer)) continue;
            if (!E.moves_with_consumer())
                return g.nodes[size_t(c)].name + " reads " + g.nodes[size_t(E.producer)].name + " at " +
                       access_name(E.access) +
                       " indices that do not move with its own (a clamp, a mirror, a lookup): " +
                       "Halide would bound the rows a block computes of it over every row, a thread each";
            if (E.producer != s)
                if (std::string why = walk(E.producer); !why.empty()) return why;
        }
        return "";
    };
    return walk(host);
}

}  // namespace autosched

namespace {

// The compute level's Func of `l` (a locked copy: a schedule's LoopLevels refuse queries until
// lowering), empty where inlined or at root.
std::string level_func(const LoopLevel &l, bool *inlined = nullptr, bool *at_root = nullptr) {
    LoopLevel copy;
    copy.set(l);
    copy.lock();
    if (inlined) *inlined = copy.is_inlined();
    if (at_root) *at_root = copy.is_root();
    return copy.is_inlined() || copy.is_root() ? "" : copy.func();
}

enum class Where { Root, Inlined, Elsewhere };

}  // namespace

void write_shared_reductions(ScheduleWriter &w, Func root, const std::vector<Func> &shared, const VarOrRVar &at) {
    std::vector<Internal::Function> outs;
    for (auto &o : w.outputs()) outs.push_back(o.function());
    const std::map<std::string, Internal::Function> env = Internal::build_environment(outs);
    std::set<std::string> reductions;
    for (auto &s : shared) reductions.insert(s.name());
    std::map<std::string, std::set<std::string>> calls;
    for (auto &[name, fn] : env) calls[name] = direct_callees(fn);
    // Where each Func is computed: in root's kernel (the root, Funcs computed at its loops, side
    // outputs fused with it), inlined (in whichever kernels call it), or in another kernel.
    std::map<std::string, Where> where;
    std::function<Where(const std::string &)> where_of = [&](const std::string &name) {
        auto known = where.find(name);
        if (known != where.end()) return known->second;
        Where w_ = Where::Elsewhere;
        auto it = env.find(name);
        if (name == root.name()) {
            w_ = Where::Root;
        } else if (it != env.end()) {
            const Internal::Function &fn = it->second;
            bool inlined = false, at_root = false;
            const std::string at_func = level_func(fn.schedule().compute_level(), &inlined, &at_root);
            if (inlined) {
                w_ = Where::Inlined;
            } else if (at_root) {
                w_ = level_func(fn.definition().schedule().fuse_level().level) == root.name() ? Where::Root
                                                                                              : Where::Elsewhere;
            } else {
                where[name] = Where::Elsewhere;  // (no cycle through compute levels; guards one anyway)
                w_ = where_of(at_func);
            }
        }
        where[name] = w_;
        return w_;
    };
    // Inlined Funcs through which a shared reduction is read.
    std::set<std::string> through;
    for (bool grew = true; grew;) {
        grew = false;
        for (auto &[name, fn] : env) {
            if (through.count(name) || reductions.count(name) || where_of(name) != Where::Inlined) continue;
            for (auto &c : calls[name])
                if (reductions.count(c) || through.count(c)) {
                    through.insert(name);
                    grew = true;
                    break;
                }
        }
    }
    // Callers first: a Func's copy must exist before the Funcs it calls are copied for it.
    std::vector<std::string> order;
    std::set<std::string> visited;
    std::function<void(const std::string &)> visit = [&](const std::string &name) {
        if (!visited.insert(name).second) return;
        for (auto &c : calls[name])
            if (through.count(c)) visit(c);
        order.push_back(name);
    };
    for (auto &name : through) visit(name);
    std::reverse(order.begin(), order.end());
    // The other kernels' Funcs, then the copies made for them, note which Funcs they call on the way.
    std::map<std::string, std::vector<Func>> copy_for, wrap_for;
    auto note_calls = [&](const std::string &name, const Func &caller) {
        for (auto &c : calls[name]) {
            if (reductions.count(c)) wrap_for[c].push_back(caller);
            if (through.count(c)) copy_for[c].push_back(caller);
        }
    };
    for (auto &[name, fn] : env)
        if (!reductions.count(name) && where_of(name) == Where::Elsewhere) note_calls(name, Func(fn));
    // A Func that only the other kernels' Funcs call (as they are, or through Funcs left as they
    // are) needs no copy: they read it as it is. (A copy for every caller left the original in
    // Halide's environment, called by no one, and lowering failed an internal assertion on the
    // Funcs it called: a random 16-bit pipeline's row argmax, read only by another kernel, of a
    // stage that read the shared row means.)
    // The callers with the copies of them made before for other kernels' Funcs (Func::clone_in: a
    // side output's definition, copied for the kernel it is written beside). Halide swaps a copy
    // in for its reader only when lowering, so the environment above shows the reader calling the
    // original; the copy calls what the original calls, and must read the copies made here too (a
    // random pipeline's side output, copied for its kernel's root, read the shared row means through
    // the original stage, outside the host's block loop, which Halide refused).
    auto with_copies = [&](std::vector<Func> callers) {
        const size_t n = callers.size();
        for (size_t i = 0; i < n; i++)
            for (auto &[reader, copy] : callers[i].function().schedule().wrappers()) {
                const Internal::Function f(copy);
                // (Not a wrapper made by Func::in: that calls the original itself.)
                if (!reader.empty() && where_of(reader) == Where::Elsewhere &&
                    !direct_callees(f).count(callers[i].name()))
                    callers.push_back(Func(f));
            }
        return callers;
    };
    std::set<std::string> as_they_are;
    for (auto &name : order) {
        auto it = copy_for.find(name);
        if (it == copy_for.end()) continue;
        // (Not the Func itself, whose updates may read it: a scatter keeping the better value at
        // each point, read only by another kernel, was copied for that kernel and the original
        // left called by no one; random user seed 93580.)
        bool only_others = true;
        for (auto &[caller, callees] : calls)
            if (caller != name && callees.count(name) && where_of(caller) != Where::Elsewhere &&
                !as_they_are.count(caller))
                only_others = false;
        if (only_others) {
            as_they_are.insert(name);
            note_calls(name, Func(env.at(name)));
        } else {
            note_calls(name, w.clone_in(Func(env.at(name)), with_copies(it->second)));
        }
    }
    for (const Func &s : shared) {
        auto it = wrap_for.find(s.name());
        if (it == wrap_for.end()) continue;
        schedule_side_output(w, root, w.in(s, with_copies(it->second)), 1, at);
    }
}

}  // namespace solder
