// Which reductions the stencil template takes into its tiles (`window_tiles`): reductions over a
// window of a computed Func, an inline `sum` whose RVars offset the reader's pure vars (a separable
// blur's column pass over its row pass, FuncEdge::window), which count as stencils.
#pragma once
#include <string>

#include "schedules/template.h"

namespace solder::autosched {

// Why the stencil template does not take the reductions among kernel `c`'s members ("" where it
// does, or where none is a reduction). Each is one result per point (its updates write their pure
// vars in order: an inline `sum` over a window), computed where its reader needs it: per tile, its
// pure and update stages dealt to the block's threads, where read through a window or stencil (the
// row pass, staged through its pure reader), or at its reader's point in each thread, where read
// one to one on the way to a Func read through one or to the root (the column pass). A reduction
// read otherwise (a 0-d sum of weights read at every pixel) would repeat its steps at each point;
// a scan or a scatter has no point of its own to compute there.
//
// And some window or stencil in the kernel reads a Func computed from neighbouring points itself
// (the column pass reads the row pass; Harris's box sums read products of gradients): that Func,
// computed per tile, is what the tiles save. A window over an input alone (a 5 x 5 convolution of
// a clamped image) is the register tiles' (schedules/pointwise/register_tile.h), each thread's
// rows sharing their taps, with nothing to compute per tile.
std::string stencil_reductions_why_not(const KernelContext &c);

}  // namespace solder::autosched
