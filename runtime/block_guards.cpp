#include "runtime/block_guards.h"

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

namespace {

class BlockGuards : public IRMutator {
    using IRMutator::visit;
    bool in_block = false;

    Expr visit(const LE *op) override {
        const Add *add = op->a.as<Add>();
        // (Halide's 32-bit int arithmetic does not overflow: v + 1 <= e is v < e.)
        if (in_block && add && op->a.type() == Int(32) && is_const_one(add->b)) return mutate(add->a) < mutate(op->b);
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        if (in_block || op->for_type != ForType::GPUBlock) return IRMutator::visit(op);
        in_block = true;
        Stmt s = IRMutator::visit(op);
        in_block = false;
        // (Simplify asks for names defined once; the lowered loop may repeat some.)
        return simplify(uniquify_variable_names(s));
    }
};

}  // namespace

IRMutator *new_block_guards_pass() { return new BlockGuards; }

}  // namespace solder
