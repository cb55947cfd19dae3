#include "tests/support/tensor_extern.h"

#include "HalideBuffer.h"

extern "C" int solder_tensor_extern_affine(halide_buffer_t *in, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        for (int d = 0; d < in->dimensions; d++) {
            in->dim[d].min = out->dim[d].min;
            in->dim[d].extent = out->dim[d].extent;
        }
        return 0;
    }
    auto apply = [&](auto zero) {
        using T = decltype(zero);
        Halide::Runtime::Buffer<T> i(*in), o(*out);
        if (i.copy_to_host() != 0) return -1;
        o.for_each_element([&](const int *pos) { o(pos) = T(2) * i(pos) - T(1); });
        o.set_host_dirty();
        return 0;
    };
    if (in->type.bits == 64) return apply(double(0));
    return apply(float(0));
}
