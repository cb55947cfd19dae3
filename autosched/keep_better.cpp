#include "autosched/keep_better.h"

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

std::optional<KeepBetter> keep_better_update(const Function &f, const Definition &u, const std::vector<Expr> &at) {
    KeepBetter k;
    Expr cond;
    for (size_t i = 0; i < u.values().size(); i++) {
        const Expr v = substitute_in_all_lets(u.values()[i]);
        const auto *sel = v.as<Select>();
        if (!sel || !own_element_at(sel->false_value, f, int(i), at) || calls_func(sel->true_value, f.name()))
            return std::nullopt;
        if (cond.defined() && !equal(cond, sel->condition)) return std::nullopt;
        cond = sel->condition;
        k.news.push_back(sel->true_value);
    }
    // The condition: the new value strictly beyond the Func's own element of it.
    Expr a, b;
    bool gt = false;
    if (const auto *op = cond.as<GT>()) {
        a = op->a, b = op->b, gt = true;
    } else if (const auto *op = cond.as<LT>()) {
        a = op->a, b = op->b;
    } else {
        return std::nullopt;
    }
    for (int i = 0; i < int(k.news.size()) && k.value_index < 0; i++) {
        if (own_element_at(b, f, i, at) && equal(a, k.news[size_t(i)])) {
            k.value_index = i, k.greater = gt;  // e > own, or e < own
        } else if (own_element_at(a, f, i, at) && equal(b, k.news[size_t(i)])) {
            k.value_index = i, k.greater = !gt;  // own < e, or own > e
        }
    }
    if (k.value_index < 0) return std::nullopt;
    return k;
}

}  // namespace solder::autosched
