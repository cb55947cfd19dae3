// The same RMSNorm, scheduled by pasting the C++ schedule source the Solder plugin wrote for it
// (rmsnorm_by_solder_cl.schedule.h, made by CMake from the `rmsnorm` generator): the check that the
// source Solder prints is a schedule a user can really paste.
#include "apps/generators/rmsnorm_algorithm.h"
#include "rmsnorm_by_solder_cl.schedule.h"

namespace {
class RmsNormPasted : public solder::generators::RmsNormAlgorithm<RmsNormPasted> {
public:
    void schedule() { apply_schedule_rmsnorm_by_solder_cl(get_pipeline(), get_target()); }
};
}  // namespace

HALIDE_REGISTER_GENERATOR(RmsNormPasted, rmsnorm_pasted)
