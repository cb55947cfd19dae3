#include "runtime/buffer_checks.h"

#include <sstream>

namespace solder {

std::string halide_type_name(const halide_type_t &t) {
    static const char *codes[] = {"int", "uint", "float", "handle", "bfloat"};
    std::string s = t.code <= halide_type_bfloat ? codes[t.code] : "code" + std::to_string(int(t.code));
    s += std::to_string(int(t.bits));
    if (t.lanes != 1) s += "x" + std::to_string(int(t.lanes));
    return s;
}

// Called for every buffer on every call (many_small passes 400): the messages are built only when a
// check fails, since two ostringstreams per buffer cost about 0.5 us each, 225 us per call there.
std::string check_buffer_argument(const halide_filter_argument_t &arg, int index, const halide_buffer_t *buf,
                                  bool exact_shape) {
    auto who = [&] {
        return std::string(arg.kind == halide_argument_kind_output_buffer ? "output" : "input") + " buffer '" +
               arg.name + "' (argument " + std::to_string(index) + ")";
    };
    if (!buf) return who() + " is null";
    if (!(buf->type == arg.type))
        return who() + " has type " + halide_type_name(buf->type) + " but the pipeline expects " +
               halide_type_name(arg.type);
    if (buf->dimensions != arg.dimensions)
        return who() + " has " + std::to_string(buf->dimensions) + " dimensions but the pipeline expects " +
               std::to_string(arg.dimensions);
    if (!exact_shape || !arg.buffer_estimates) return "";
    auto differs = [&](int d) {
        const int64_t *min = arg.buffer_estimates[2 * d], *extent = arg.buffer_estimates[2 * d + 1];
        return (min && *min != buf->dim[d].min) || (extent && *extent != buf->dim[d].extent);
    };
    bool any = false;
    for (int d = 0; d < arg.dimensions; d++) any = any || differs(d);
    if (!any) return "";
    std::ostringstream bad;
    for (int d = 0; d < arg.dimensions; d++) {
        if (!differs(d)) continue;
        const int64_t *min = arg.buffer_estimates[2 * d], *extent = arg.buffer_estimates[2 * d + 1];
        const halide_dimension_t &got = buf->dim[d];
        bad << (bad.tellp() > 0 ? "; " : "") << "dimension " << d << " has min " << got.min << ", extent " << got.extent
            << " where the library was compiled for min " << (min ? std::to_string(*min) : "any") << ", extent "
            << (extent ? std::to_string(*extent) : "any");
    }
    return who() + ": " + bad.str() + " (dimension 0 is the innermost)";
}

}  // namespace solder
