// The `loops` dump: Halide's loop nest of the scheduled pipeline.
#include "runtime/build_dumps.h"

// Exported by libHalide but not declared in Halide.h. Pipeline::print_loop_nest would print the
// same to stderr; this returns the text, so the dump can go to stdout and to its file.
namespace Halide::Internal {
std::string print_loop_nest(const std::vector<Function> &output_funcs);
}

namespace solder {

std::string format_loops_dump(const std::vector<Halide::Func> &outputs) {
    std::vector<Halide::Internal::Function> fs;
    for (auto &f : outputs) fs.push_back(f.function());
    return Halide::Internal::print_loop_nest(fs);
}

}  // namespace solder
