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

std::string check_buffer_argument(const halide_filter_argument_t &arg, int index, const halide_buffer_t *buf) {
    std::ostringstream who;
    who << (arg.kind == halide_argument_kind_output_buffer ? "output" : "input") << " buffer '" << arg.name
        << "' (argument " << index << ")";
    if (!buf) return who.str() + " is null";
    if (!(buf->type == arg.type))
        return who.str() + " has type " + halide_type_name(buf->type) + " but the pipeline expects " +
               halide_type_name(arg.type);
    if (buf->dimensions != arg.dimensions)
        return who.str() + " has " + std::to_string(buf->dimensions) + " dimensions but the pipeline expects " +
               std::to_string(arg.dimensions);
    if (!arg.buffer_estimates) return "";
    std::ostringstream bad;
    for (int d = 0; d < arg.dimensions; d++) {
        const int64_t *min = arg.buffer_estimates[2 * d], *extent = arg.buffer_estimates[2 * d + 1];
        const halide_dimension_t &got = buf->dim[d];
        if ((min && *min != got.min) || (extent && *extent != got.extent)) {
            bad << (bad.tellp() > 0 ? "; " : "") << "dimension " << d << " has min " << got.min << ", extent "
                << got.extent << " where the library was compiled for min " << (min ? std::to_string(*min) : "any")
                << ", extent " << (extent ? std::to_string(*extent) : "any");
        }
    }
    if (bad.tellp() == 0) return "";
    return who.str() + ": " + bad.str() + " (dimension 0 is the innermost)";
}

}  // namespace solder
