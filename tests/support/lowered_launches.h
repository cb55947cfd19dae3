// For tests of the device's launch limits without a GPU: a scheduled pipeline lowered for CUDA, and
// each kernel launch Halide's host code makes (halide_cuda_run: grid, block, dynamic shared memory)
// evaluated at given buffer sizes. What a launch on the device would ask the driver for.
#pragma once
#include <map>
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
};

namespace detail {

// Walks the host code, keeping every let's value, and evaluates the arguments of each
// halide_cuda_run call with `sizes` ("out.extent.1" -> 70000, "in.min.0" -> 0) in place of the
// buffers' fields.
class LaunchFinder : public Halide::Internal::IRVisitor {
public:
    LaunchFinder(const std::map<std::string, int64_t> &sizes, const std::map<std::string, Halide::Expr> &scalars) {
        for (auto &[name, v] : sizes) known_[name] = Halide::Expr(int32_t(v));  // buffer fields are int32
        for (auto &[name, v] : scalars) known_[name] = v;
    }
    std::vector<LoweredLaunch> launches;

private:
    using IRVisitor::visit;
    std::map<std::string, Halide::Expr> known_;

    Halide::Expr value_of(Halide::Expr e) const {
        // Lets refer to earlier lets: substitute until nothing known is left (bounded).
        for (int i = 0; i < 64; i++) {
            Halide::Expr next = Halide::Internal::simplify(Halide::Internal::substitute(known_, e));
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
    void visit(const Halide::Internal::LetStmt *op) override { let(op); }
    void visit(const Halide::Internal::Let *op) override { let(op); }
    void visit(const Halide::Internal::Call *op) override {
        IRVisitor::visit(op);
        if (op->name != "halide_cuda_run" || op->args.size() < 9) return;
        LoweredLaunch l;
        if (const auto *s = op->args[1].as<Halide::Internal::StringImm>()) l.kernel = s->value;
        int64_t v[7];
        for (int i = 0; i < 7; i++) {
            auto c = Halide::Internal::as_const_int(value_of(op->args[size_t(2 + i)]));
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

// Lowers `outputs` (scheduled already) for CUDA and lists its launches at `sizes`, and the scalar
// parameters at `scalars` (name -> value of the Param's type) where launches depend on them.
inline std::vector<LoweredLaunch> lowered_cuda_launches(const std::vector<Halide::Func> &outputs,
                                                        const std::map<std::string, int64_t> &sizes,
                                                        const std::map<std::string, Halide::Expr> &scalars = {}) {
    Halide::Pipeline p(outputs);
    Halide::Module m = p.compile_to_module(p.infer_arguments(), "launches", make_target("cuda"));
    detail::LaunchFinder f(sizes, scalars);
    for (auto &fn : m.functions()) fn.body.accept(&f);
    return f.launches;
}

// Buffer fields of a dense `name` of `extents` (innermost first) from 0: its "name.min.d" and
// "name.extent.d", for lowered_cuda_launches.
inline void add_buffer_sizes(std::map<std::string, int64_t> &sizes, const std::string &name,
                             const std::vector<int64_t> &extents) {
    for (size_t d = 0; d < extents.size(); d++) {
        sizes[name + ".min." + std::to_string(d)] = 0;
        sizes[name + ".extent." + std::to_string(d)] = extents[d];
    }
}

}  // namespace solder::testing
