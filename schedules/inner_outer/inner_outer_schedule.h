// The inner-outer template (nvFuser's InnerOuter persistent kernel, as Halide 21 can express it):
// a row kernel whose blocks also sum column reductions over the same points. Each block owns
// `rows` whole rows: it loads them once into shared memory, reduces each row across `lanes`
// threads (rows as thread y), writes the root's rows, and then, in the same launch, each thread
// walks the staged rows down its columns and writes one partial per column and block for each
// column reduction (split-K partials, slices of `rows` rows). The reductions themselves then only
// add their partials. The inputs are read from global memory once for both kinds of reduction;
// the two-kernel plan read them once for the rows and once for the columns.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// One column reduction the block sums: `partials`, its rfactor intermediate over (position-0 dim,
// kept dims, slice) (schedules/split_k/split_k_schedule.h rfactor_shared_split_k), read by `reduction`.
struct BlockColumnSum {
    Halide::Func partials, reduction;
};

struct InnerOuterShape {
    int rows = 32;   // rows per block (thread y); the slices of the column sums
    int lanes = 32;  // threads along each row (thread x)
    int vector = 1;  // neighbours each thread takes along a row (the root's accesses)
    // The domain position of the root's dim d, for the column sums' kept dims: `kept_names[d]` is
    // the partials' name of root dim d (d >= 2), or empty where the column sums reduce it too.
    std::vector<std::string> kept_names;
    std::string column_name;  // the partials' name of root dim 0
    int64_t row_extent = 0;   // the root's dim 0 extent (the staged rows' length)
};

// `root`: the row kernel's root (dims: the row, the rows, then grid dims); `row_sums`: reductions
// per row computed per block (`row_dims`: each one's pure var that follows the rows); `staged`:
// input Funcs loaded once per block; `columns`: the column sums whose partials the blocks write
// (their slice dim is `slice`, their walk `step`). GPU targets only.
void schedule_inner_outer_kernel(ScheduleWriter &w, Halide::Func root, const InnerOuterShape &shape,
                                 const std::vector<Halide::Func> &row_sums, const std::vector<std::string> &row_dims,
                                 const std::vector<Halide::Func> &staged, const std::vector<BlockColumnSum> &columns,
                                 const Halide::Var &slice, const Halide::RVar &step, const Halide::Target &target);

}  // namespace solder
