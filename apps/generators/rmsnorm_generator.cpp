// A real Halide generator scheduled by the Solder plugin through CMake's
// add_halide_library(... AUTOSCHEDULER Solder ...): RMSNorm, bf16 in and out.
#include "apps/generators/rmsnorm_algorithm.h"

namespace {
class RmsNorm : public solder::generators::RmsNormAlgorithm<RmsNorm> {};
}  // namespace

HALIDE_REGISTER_GENERATOR(RmsNorm, rmsnorm)
