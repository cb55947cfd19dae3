// Compares an app's outputs with its reference: |out - ref| <= rtol*|ref| + atol*rms(ref), NaN
// never passes, and integer outputs with zero tolerance compare exactly.
#pragma once
#include <string>
#include <vector>

#include "apps/app_spec.h"

namespace solder {

struct OutputCheck {
    std::string name;
    double max_abs_err = 0;
    double worst_ratio = 0;  // max over elements of error / allowed error; <= 1 passes
    int64_t worst_index = -1;
    bool pass = true;
};

OutputCheck check_output(const TensorSpec &t, const HostBuffer &out, const HostBuffer &ref, const Tolerance &tol);
// Fills a buffer with a value no correct pipeline writes (NaN bits for floats, 0xA5 bytes for ints),
// so an element the pipeline never wrote fails the check.
void poison(HostBuffer &b);

}  // namespace solder
