#include "runtime/output_check.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "apps/ref_util.h"

namespace solder {

OutputCheck check_output(const TensorSpec &t, const HostBuffer &out, const HostBuffer &ref, const Tolerance &tol) {
    OutputCheck c;
    c.name = t.name;
    int64_t n = numel(ref);
    double ss = 0;
    for (int64_t i = 0; i < n; i++) {
        double r = load_as_double(ref, t.dtype, i);
        if (std::isfinite(r)) ss += r * r;
    }
    double rms = n ? std::sqrt(ss / double(n)) : 0;
    for (int64_t i = 0; i < n; i++) {
        double o = load_as_double(out, t.dtype, i), r = load_as_double(ref, t.dtype, i);
        double err, ratio;
        if (std::isnan(o) || std::isnan(r)) {
            bool both = std::isnan(o) && std::isnan(r);
            err = both ? 0 : std::numeric_limits<double>::infinity();
            ratio = both ? 0 : std::numeric_limits<double>::infinity();
        } else if (std::isinf(o) || std::isinf(r)) {
            err = o == r ? 0 : std::numeric_limits<double>::infinity();
            ratio = err;
        } else {
            err = std::fabs(o - r);
            double allowed = tol.rtol * std::fabs(r) + tol.atol * rms;
            ratio = err == 0 ? 0 : (allowed > 0 ? err / allowed : std::numeric_limits<double>::infinity());
        }
        if (err > c.max_abs_err) c.max_abs_err = err;
        if (ratio > c.worst_ratio) c.worst_ratio = ratio, c.worst_index = i;
    }
    c.pass = c.worst_ratio <= 1.0;
    return c;
}

void poison(HostBuffer &b) {
    size_t bytes = b.size_in_bytes();
    if (b.type().code == halide_type_float && b.type().bits == 32) {
        float *p = static_cast<float *>(b.data());
        for (size_t i = 0; i < bytes / 4; i++) p[i] = std::numeric_limits<float>::quiet_NaN();
    } else if (b.type().code == halide_type_float && b.type().bits == 64) {
        double *p = static_cast<double *>(b.data());
        for (size_t i = 0; i < bytes / 8; i++) p[i] = std::numeric_limits<double>::quiet_NaN();
    } else if (b.type().code == halide_type_uint && b.type().bits == 16) {
        // bf16 storage: 0x7fc1 is a NaN
        uint16_t *p = static_cast<uint16_t *>(b.data());
        for (size_t i = 0; i < bytes / 2; i++) p[i] = 0x7fc1;
    } else {
        std::memset(b.data(), 0xA5, bytes);
    }
}

}  // namespace solder
