// The update form that ordered folds and keep-the-better scatters share: each value a select on
// one strict comparison (<, >) of a new value against the Func's own element at the update's
// point, keeping that element otherwise. `f(at) = Tuple(select(e < f(at)[0], e, f(at)[0]),
// select(e < f(at)[0], r, f(at)[1]))`: the first point of the best value wins, in the RDom's order.
#pragma once
#include <optional>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct KeepBetter {
    std::vector<Halide::Expr> news;  // each element's new value (news[value_index]: the compared value)
    int value_index = -1;            // the element compared
    bool greater = false;            // the compared value wins when larger
};

// Whether update `u` of `f`, at the point `at` (its args, lets substituted), is such an update,
// no new value reading `f`; and its parts.
std::optional<KeepBetter> keep_better_update(const Halide::Internal::Function &f, const Halide::Internal::Definition &u,
                                             const std::vector<Halide::Expr> &at);

}  // namespace solder::autosched
