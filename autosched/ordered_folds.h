// Arg-max and arg-min folds that Halide cannot split, computed in parallel over chunks.
//
// Halide's inline argmax(r, e) and argmin(r, e) define a Tuple Func whose update keeps the old
// Tuple unless the new point's value is strictly better: f() = select(e > f()[v], {r.x, .., e},
// f()). Halide 21 cannot prove that update associative, so no schedule may split its RDom, and an
// arg-max over a 4K image ran in one GPU thread under every auto-scheduler (about 0.3 s).
//
// The fold needs no associativity to be cut in order: the points of the RDom, taken in Halide's
// order (innermost RVar fastest), are cut into consecutive chunks of about 256 points along one
// RVar and the ones outside it; a new Func folds each chunk with the same update (a pure var per
// chunk, so the chunks run in parallel); the Func's own update then folds the chunks' results in
// the chunks' order with the same strict comparison. The first point whose value is the extreme
// wins within its chunk, and the first chunk whose value is the extreme wins among the chunks: the
// result is the one the serial fold gives, ties and NaNs included. Where the chunks are still
// many, the combining fold is cut again, into chunks of about 32 (at most five cuts).
//
// Taken: a Func of fewer than 65536 results at the estimates (more fill the GPU a thread each)
// with one update, over an RDom without a predicate whose extents at the estimates
// are constants, that writes its pure vars in order, and each of whose values (two or more) is a
// select on one strict comparison (>, <) of a value against the Func's own element at the same
// point, keeping that element otherwise; the new value of that element is the compared value, and
// nothing else reads the Func itself. The Funcs change in place (the caller's Funcs share their
// definitions); a chunk Func joins the pipeline for each cut.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

struct OrderedFold {
    std::string func;                 // the Func whose fold was cut
    std::vector<std::string> chunks;  // the chunk Funcs, first cut first
    int64_t chunk_points = 0;         // points per chunk of the first cut, at the estimates
};

// Cuts every such fold of the Funcs `outputs` need whose RDom has more than 1024 points at the
// estimates. A pipeline whose estimates cannot be read (FuncGraph::build fails) is left as it is.
std::vector<OrderedFold> cut_ordered_folds(const std::vector<Halide::Func> &outputs);

// The plan's note for a Func whose fold was cut.
std::string ordered_fold_reason(const OrderedFold &f);

// Removes, from the plan's reasons about the cut folds and their chunk Funcs, the hint that names
// the arg-max form Halide's prover knows (generic_reason): those folds already run in parallel.
void drop_provable_form_hints(Plan &plan, const std::vector<OrderedFold> &folds);

}  // namespace solder::autosched
