#include "autosched/bf16_on_gpu.h"

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;
using namespace Halide::Internal;

const char *const kBf16EmulatedReason =
    "computes with bfloat16, which Halide 21 cannot compile for CUDA (issue 8311): its bf16 operations are done "
    "in f32 with integer conversions, rounded back to bf16 after each";

namespace {

bool is_bf16(const Type &t) { return t.is_bfloat() && t.bits() == 16; }

// bf16 -> f32: the bits shifted into the top half of a float's.
Expr widen(const Expr &e) {
    const int lanes = e.type().lanes();
    Expr bits = cast(UInt(32, lanes), reinterpret(UInt(16, lanes), e));
    return reinterpret(Float(32, lanes), bits << 16);
}

// f32 -> bf16, to the nearest value, ties to even: add just under half a unit of the last place
// kept, plus one where that last place is odd, and keep the top 16 bits.
Expr narrow(const Expr &f) {
    const int lanes = f.type().lanes();
    Expr bits = reinterpret(UInt(32, lanes), f);
    bits = (bits + (make_const(UInt(32, lanes), 0x7fff) + ((bits >> 16) & 1))) >> 16;
    return reinterpret(BFloat(16, lanes), cast(UInt(16, lanes), bits));
}

// Any value as f32: bf16 through its bits, the rest by a cast.
Expr as_f32(const Expr &e) {
    if (is_bf16(e.type())) return widen(e);
    return e.type().is_float() && e.type().bits() == 32 ? e : cast(Float(32, e.type().lanes()), e);
}

class EmulateBf16 : public IRMutator {
public:
    bool changed = false;

private:
    using IRMutator::visit;

    template<typename Op> Expr arithmetic(const Op *op, Expr (*make)(Expr, Expr)) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (!is_bf16(op->type)) return Op::make(a, b);
        changed = true;
        return narrow(make(widen(a), widen(b)));
    }
    template<typename Op> Expr comparison(const Op *op) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (!is_bf16(op->a.type())) return Op::make(a, b);
        changed = true;
        return Op::make(widen(a), widen(b));
    }

    Expr visit(const Add *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return a + b; });
    }
    Expr visit(const Sub *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return a - b; });
    }
    Expr visit(const Mul *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return a * b; });
    }
    Expr visit(const Div *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return a / b; });
    }
    Expr visit(const Mod *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return a % b; });
    }
    Expr visit(const Min *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return min(a, b); });
    }
    Expr visit(const Max *op) override {
        return arithmetic(op, [](Expr a, Expr b) { return max(a, b); });
    }
    Expr visit(const EQ *op) override { return comparison(op); }
    Expr visit(const NE *op) override { return comparison(op); }
    Expr visit(const LT *op) override { return comparison(op); }
    Expr visit(const LE *op) override { return comparison(op); }
    Expr visit(const GT *op) override { return comparison(op); }
    Expr visit(const GE *op) override { return comparison(op); }

    Expr visit(const FloatImm *op) override {
        if (!is_bf16(op->type)) return op;
        changed = true;
        return narrow(make_const(Float(32), op->value));
    }

    Expr visit(const Cast *op) override {
        Expr v = mutate(op->value);
        const bool from = is_bf16(v.type()), to = is_bf16(op->type);
        if (!from && !to) return Cast::make(op->type, v);
        changed = true;
        if (to) return from ? v : narrow(as_f32(v));
        Expr f = widen(v);
        return op->type == f.type() ? f : cast(op->type, f);
    }

    Expr visit(const Call *op) override {
        // abs and lerp of bf16 values, in f32 (their other intrinsics pass values through).
        if (is_bf16(op->type) && (op->is_intrinsic(Call::abs) || op->is_intrinsic(Call::lerp))) {
            std::vector<Expr> args;
            for (auto &a : op->args) args.push_back(mutate(a));
            changed = true;
            if (op->is_intrinsic(Call::abs)) return narrow(abs(widen(args[0])));
            Expr w = args[2];
            if (is_bf16(w.type())) w = widen(w);
            return narrow(lerp(widen(args[0]), widen(args[1]), w));
        }
        return IRMutator::visit(op);
    }
};

}  // namespace

std::vector<std::string> emulate_bf16_for_gpu(const std::vector<Func> &outputs, const Target &target) {
    std::vector<std::string> rewritten;
    if (!target.has_gpu_feature()) return rewritten;
    for (Function f : pipeline_functions(outputs)) {
        EmulateBf16 m;
        f.mutate(&m);
        if (m.changed) rewritten.push_back(f.name());
    }
    return rewritten;
}

}  // namespace solder::autosched
