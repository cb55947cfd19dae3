// The parameter-bounded sum (param_sum_algorithm.h), scheduled by pasting the C++ source the Solder
// plugin wrote for it for CUDA (user_param_sum_cuda.schedule.h, made by CMake): the source, with
// its helpers and its bound over the parameter, compiles where Halide puts it and applies.
#include "tests/generators/param_sum_algorithm.h"
#include "user_param_sum_cuda.schedule.h"

namespace {
class ParamSumPasted : public user_generators::ParamSumAlgorithm<ParamSumPasted> {
public:
    void schedule() { apply_schedule_user_param_sum_cuda(get_pipeline(), get_target()); }
};
}  // namespace

HALIDE_REGISTER_GENERATOR(ParamSumPasted, user_param_sum_pasted)
