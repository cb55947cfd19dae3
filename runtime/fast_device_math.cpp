#include "runtime/fast_device_math.h"

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

namespace {

Expr approx_exp(const Expr &x) { return Call::make(Float(32), "__nv_fast_expf", {x}, Call::PureExtern); }

class FastDeviceMath : public IRMutator {
public:
    bool changed = false;
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type != Call::PureExtern || op->args.size() != 1) return IRMutator::visit(op);
        if (op->name == "exp_f32") {
            changed = true;
            return approx_exp(mutate(op->args[0]));
        }
        if (op->name == "tanh_f32") {
            // tanh(x) = 1 - 2 / (exp(2x) + 1): one ex2.approx and one approximate division
            // (div.approx) instead of libdevice's branchy polynomial. Saturates right: exp
            // overflows to inf for large x (2 / inf = 0, so 1) and underflows to 0 for very
            // negative x (so -1). Absolute error about 5e-7 near 0, where the subtraction cancels.
            changed = true;
            Expr x = mutate(op->args[0]);
            Expr d = approx_exp(x * 2.0f) + 1.0f;
            return 1.0f - Call::make(Float(32), "__nv_fast_fdividef", {Expr(2.0f), d}, Call::PureExtern);
        }
        return IRMutator::visit(op);
    }
};

}  // namespace

bool fast_device_math_enabled(const Target &target, const SolderOptions &options) {
    return target.has_feature(Target::CUDA) && options.fast_math;
}

int use_fast_device_math(const std::vector<Func> &outputs) {
    std::vector<Function> outs;
    for (auto &f : outputs) outs.push_back(f.function());
    int n = 0;
    for (auto &[name, fn] : build_environment(outs)) {
        FastDeviceMath m;
        Function f = fn;
        f.mutate(&m);
        n += m.changed;
    }
    return n;
}

}  // namespace solder
