#include "runtime/fast_device_math.h"

#include <cstdlib>

#include "runtime/comma_words.h"

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

namespace {

class FastExp : public IRMutator {
public:
    bool changed = false;
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type == Call::PureExtern && op->name == "exp_f32" && op->args.size() == 1) {
            changed = true;
            return Call::make(op->type, "__nv_fast_expf", {mutate(op->args[0])}, Call::PureExtern);
        }
        return IRMutator::visit(op);
    }
};

}  // namespace

bool fast_device_math_enabled(const Target &target) {
    if (!target.has_feature(Target::CUDA)) return false;
    if (const char *d = std::getenv("SOLDER_DISABLE"))
        for (const std::string &w : comma_words(d))
            if (w == "fast_math") return false;
    return true;
}

int use_fast_device_math(const std::vector<Func> &outputs) {
    std::vector<Function> outs;
    for (auto &f : outputs) outs.push_back(f.function());
    int n = 0;
    for (auto &[name, fn] : build_environment(outs)) {
        FastExp m;
        Function f = fn;
        f.mutate(&m);
        n += m.changed;
    }
    return n;
}

}  // namespace solder
