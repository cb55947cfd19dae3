// For tests of the device's launch limits without a GPU: a scheduled pipeline lowered for CUDA, and
// each kernel launch Halide's host code makes (halide_cuda_run: grid, block, dynamic shared memory)
// evaluated at given buffer sizes. What a launch on the device would ask the driver for.
#pragma once
#include <climits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/device_limits.h"
#include "runtime/targets.h"

namespace solder::testing {

struct LoweredLaunch {
    std::string kernel;  // Halide's kernel name: "_kernel_relu_s0_n_block_id_z"
    autosched::LaunchShape shape;
    // Grid and block evaluated to numbers. (Shared memory may not: for guarded edge tiles Halide
    // sizes it on the host before each launch, as the most any block needs; it is then -1.)
    bool constant = true;
    std::string unknown;  // the first block or shared-memory argument not evaluated, as Halide prints it
};

namespace detail {

// Walks the host code, keeping every let's value, and evaluates the arguments of each
// halide_cuda_run call with `sizes` ("out.extent.1" -> 70000, "in.min.0" -> 0) in place of the
// buffers' fields.
class LaunchFinder : public Halide::Internal::IRVisitor {
public:
    LaunchFinder(const std::map<std::string, int64_t> &sizes, const std::map<std::string, Halide::Expr> &scalars,
                 bool taken_only)
        : taken_only_(taken_only) {
        for (auto &[name, v] : sizes) known_[name] = Halide::Expr(int32_t(v));  // buffer fields are int32
        for (auto &[name, v] : scalars) known_[name] = v;
    }
    std::vector<LoweredLaunch> launches;

private:
    using IRVisitor::visit;
    const bool taken_only_;
    std::map<std::string, Halide::Expr> known_;
    std::map<std::string, int64_t> shared_sizes_;  // (below)
    std::map<std::string, std::string> unsized_;   // shared sizes not evaluated: what they read

    // Loads of the shared sizes found so far (shared_sizes_), as their values.
    struct SharedSizeLoads : Halide::Internal::IRMutator {
        const std::map<std::string, int64_t> *sizes = nullptr;
        using IRMutator::visit;
        Halide::Expr visit(const Halide::Internal::Load *op) override {
            auto it = sizes->find(op->name);
            if (it == sizes->end()) return IRMutator::visit(op);
            return Halide::cast(op->type, Halide::Expr(int32_t(it->second)));
        }
    };
    Halide::Expr value_of(Halide::Expr e) const {
        // Lets refer to earlier lets: substitute until nothing known is left (bounded).
        SharedSizeLoads loads;
        loads.sizes = &shared_sizes_;
        for (int i = 0; i < 64; i++) {
            Halide::Expr next = Halide::Internal::simplify(loads.mutate(Halide::Internal::substitute(known_, e)));
            if (Halide::Internal::equal(next, e)) break;
            e = next;
        }
        return e;
    }
    template<typename LetT> void let(const LetT *op) {
        op->value.accept(this);
        // A buffer field given in `sizes` keeps its given value.
        const bool given = known_.count(op->name) && Halide::Internal::is_const(known_.at(op->name));
        if (!given) known_[op->name] = op->value;
        op->body.accept(this);
    }
    // Launches and sizes inside host loops (a launch per batch, a loop over the blocks) are taken
    // at each combination of the innermost loops' first, middle and last values: the most any needs.
    struct Loop {
        std::string name;
        Halide::Expr min, extent;
    };
    std::vector<Loop> loops_;
    std::optional<int64_t> most_over_loops(const Halide::Expr &e) const {
        const Halide::Expr v = value_of(e);
        if (auto c = Halide::Internal::as_const_int(v)) return *c;  // (whatever the loops)
        const size_t n = std::min<size_t>(loops_.size(), 4);
        int64_t combos = 1, most = INT64_MIN;
        for (size_t i = 0; i < n; i++) combos *= 3;
        for (int64_t k = 0; k < combos; k++) {
            std::map<std::string, Halide::Expr> at;
            int64_t rest = k;
            for (size_t i = loops_.size() - n; i < loops_.size(); i++, rest /= 3) {
                auto mn = Halide::Internal::as_const_int(loops_[i].min);
                auto ex = Halide::Internal::as_const_int(loops_[i].extent);
                if (!mn || !ex) return std::nullopt;
                if (*ex < 1) return 0;  // a loop that does not run
                const int64_t pick = rest % 3, x = pick == 0 ? *mn : pick == 1 ? *mn + (*ex - 1) / 2 : *mn + *ex - 1;
                at[loops_[i].name] = Halide::Expr(int32_t(x));
            }
            auto c = Halide::Internal::as_const_int(Halide::Internal::simplify(Halide::Internal::substitute(at, v)));
            if (!c) return std::nullopt;
            most = std::max(most, *c);
        }
        return most;
    }
    void visit(const Halide::Internal::For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        loops_.push_back({op->name, value_of(op->min), value_of(op->extent)});
        op->body.accept(this);
        loops_.pop_back();
    }
    // Halide sizes the shared memory of guarded edge tiles on the host: a loop over the blocks keeps
    // the most any needs, `f.0.shared_size[0] = max(f.0.shared_size[0], size)`, which the launch reads
    // through a let.
    void visit(const Halide::Internal::Store *op) override {
        IRVisitor::visit(op);
        const std::string suffix = ".shared_size";
        if (op->name.size() < suffix.size() || op->name.compare(op->name.size() - suffix.size(), suffix.size(), suffix))
            return;
        const auto *mx = op->value.as<Halide::Internal::Max>();
        if (!mx) return;
        const Halide::Expr size = mx->a.as<Halide::Internal::Load>() ? mx->b : mx->a;
        const auto most = most_over_loops(size);
        if (most) {
            shared_sizes_[op->name] = std::max(shared_sizes_[op->name], *most);
        } else {
            std::ostringstream o;
            o << value_of(size);
            unsized_[op->name] = o.str();
        }
    }
    void visit(const Halide::Internal::LetStmt *op) override {
        if (const auto *ld = op->value.as<Halide::Internal::Load>(); ld && shared_sizes_.count(ld->name)) {
            known_[op->name] = Halide::Expr(int32_t(shared_sizes_[ld->name]));
            op->body.accept(this);
            return;
        }
        let(op);
    }
    void visit(const Halide::Internal::Let *op) override { let(op); }
    // A branch whose condition the sizes decide (a specialization on a parameter, on an output's
    // extent): with `taken_only`, only the side that runs launches.
    void visit(const Halide::Internal::IfThenElse *op) override {
        op->condition.accept(this);
        const Halide::Expr c = taken_only_ ? value_of(op->condition) : Halide::Expr();
        if (!c.defined() || !Halide::Internal::is_const_zero(c)) op->then_case.accept(this);
        if (op->else_case.defined() && (!c.defined() || !Halide::Internal::is_const_one(c))) op->else_case.accept(this);
    }
    void visit(const Halide::Internal::Call *op) override {
        IRVisitor::visit(op);
        if (op->name != "halide_cuda_run" || op->args.size() < 9) return;
        LoweredLaunch l;
        if (const auto *s = op->args[1].as<Halide::Internal::StringImm>()) l.kernel = s->value;
        int64_t v[7];
        for (int i = 0; i < 7; i++) {
            auto c = most_over_loops(op->args[size_t(2 + i)]);
            if (!c && i >= 3 && l.unknown.empty()) {  // (a grid may follow an extern stage's bounds query)
                std::ostringstream o;
                o << value_of(op->args[size_t(2 + i)]);
                l.unknown = o.str();
                for (auto &[name, what] : unsized_)
                    if (l.unknown.find(name) != std::string::npos) l.unknown += " where " + name + " is " + what;
            }
            l.constant = l.constant && (c.has_value() || i == 6);
            v[i] = c ? *c : -1;
        }
        for (int i = 0; i < 3; i++) l.shape.grid[i] = v[i], l.shape.threads[i] = v[3 + i];
        l.shape.shared_bytes = v[6];
        l.shape.stage = l.kernel;
        launches.push_back(l);
    }
};

}  // namespace detail

// `outputs` (scheduled already) lowered for CUDA.
inline Halide::Module cuda_module(const std::vector<Halide::Func> &outputs) {
    Halide::Pipeline p(outputs);
    return p.compile_to_module(p.infer_arguments(), "launches", make_target("cuda"));
}

// The launches of module `m` at `sizes`, and the scalar parameters at `scalars` (name -> value of
// the Param's type) where launches depend on them: those that run there (a branch whose condition
// these decide, a specialization, launches only on the side taken), or, without `taken_only`, every
// launch of every branch (what a plan lists: each of its branches).
inline std::vector<LoweredLaunch> cuda_launches(const Halide::Module &m, const std::map<std::string, int64_t> &sizes,
                                                const std::map<std::string, Halide::Expr> &scalars = {},
                                                bool taken_only = true) {
    detail::LaunchFinder f(sizes, scalars, taken_only);
    for (auto &fn : m.functions()) fn.body.accept(&f);
    return f.launches;
}

// Lowers `outputs` (scheduled already) for CUDA and lists its launches at `sizes`, every branch's
// (cuda_launches without `taken_only`: the plan's list to compare with).
inline std::vector<LoweredLaunch> lowered_cuda_launches(const std::vector<Halide::Func> &outputs,
                                                        const std::map<std::string, int64_t> &sizes,
                                                        const std::map<std::string, Halide::Expr> &scalars = {}) {
    return cuda_launches(cuda_module(outputs), sizes, scalars, /*taken_only=*/false);
}

// What among `launches` a CUDA device would refuse, "" when none: more than 1024 threads a block,
// more shared memory than a block may have without opting in (48 KB: Halide 21's runtime never
// opts in), or a block or shared memory this evaluation could not size. (Grids are not checked, nor
// what an extern stage's region sizes: the pipeline asks the extern for it when it runs.)
inline std::string launches_beyond_cuda(const std::vector<LoweredLaunch> &launches) {
    for (auto &l : launches) {
        const int64_t threads = l.shape.threads[0] * l.shape.threads[1] * l.shape.threads[2];
        // (Sized by an extern stage's region, which the pipeline asks of it when it runs: a bounds
        // query, not evaluated here.)
        const bool asks_extern = l.unknown.find("_halide_buffer_init") != std::string::npos ||
                                 l.unknown.find("bounds_query") != std::string::npos;
        if (!l.unknown.empty() && !asks_extern)
            return l.kernel + ": its block or shared memory could not be sized (" + l.unknown.substr(0, 400) + ")";
        if (threads > 1024) return l.kernel + ": " + std::to_string(threads) + " threads a block";
        if (l.shape.shared_bytes > 48 * 1024)
            return l.kernel + ": " + std::to_string(l.shape.shared_bytes) + " bytes of shared memory a block";
    }
    return "";
}

// Buffer fields of a dense `name` of `extents` (innermost first) from `mins` (none: from 0): its
// "name.min.d" and "name.extent.d", for lowered_cuda_launches.
inline void add_buffer_sizes(std::map<std::string, int64_t> &sizes, const std::string &name,
                             const std::vector<int64_t> &extents, const std::vector<int64_t> &mins = {}) {
    for (size_t d = 0; d < extents.size(); d++) {
        sizes[name + ".min." + std::to_string(d)] = d < mins.size() ? mins[d] : 0;
        sizes[name + ".extent." + std::to_string(d)] = extents[d];
    }
}

}  // namespace solder::testing
