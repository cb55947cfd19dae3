// Vector loads for a contraction's operands. A linear layer written with its weights laid out as
// PyTorch lays them out, `out(o, n) = sum(w(k, o) * x(k, n))`, reads both operands along the steps
// k (their dim 0): at each step a thread of the contraction tile (register_tile.h) loads one value
// from each of 4 rows of each operand, and a warp's loads touch 16 rows of each. Loaded 4 steps
// at a time, one vector per row (a wrapper of the operand, Func::in, computed per thread at the
// steps' outer loop for every row of the thread's tile, and vectorized along k), a thread makes a
// quarter as many loads, each 16 bytes wide for float32. Halide emits wide loads only where it
// proves them aligned: the contraction's update has a branch (a specialization, the same schedule)
// where every such operand's rows start at whole vectors and the steps are whole vectors.
#pragma once
#include <vector>

#include "Halide.h"
#include "schedules/writer/aligned_vectors.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

struct OperandVectors {
    // The pipeline inputs (their Funcs, `w_im`) the contraction's update reads with its first RVar
    // as arg 0 and its vars or RVars as the other args, the same ones at every read; none of them
    // read by its pure definition.
    std::vector<Halide::Func> operands;
    std::vector<std::string> inputs;  // their names as inputs (`w`)
    // For each, its dim read at one of the contraction's tile dims: which one (0 or 1), or -1.
    std::vector<std::vector<int>> tile_dims;
    // The aligned branch's condition (undefined where there is no operand, or where the first
    // RVar's min or extent is neither a constant nor an input buffer's field, or is a constant that
    // is no multiple of the vector).
    AlignedBranch branch;
};

// The operands of contraction `m` (tile dims `dx` and `dy`) loaded `width` steps at a time.
OperandVectors operand_vectors(const Halide::Func &m, int dx, int dy, int width);

// Wraps each operand for `m` and computes the wrapper at `m`'s loop `ko` (the steps' outer loop,
// whose inner one takes `width` steps): its storage `width` steps x `tile` points of the tile dim
// it reads (every row of the thread's tile: the caller makes sure they all exist) x 1, vectorized
// along the steps, the rows unrolled.
void load_operand_vectors(ScheduleWriter &w, const OperandVectors &ov, const Halide::Func &m, const Halide::RVar &ko,
                          int width, int tile);

}  // namespace solder
