// hist_equalize: histogram equalization of an 8-bit grayscale image (4K: 2160x3840), written the
// way Halide users write it: a 256-bin histogram over every pixel (a scatter of increments), its
// cumulative sum (a scan over the bins), and each pixel mapped through the cumulative table (a
// lookup at data-dependent points).
#include <algorithm>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec hist_equalize_spec() {
    AppSpec a;
    a.name = "hist_equalize";
    a.description = "histogram equalization: histogram (scatter), cumulative sum (scan), table lookup";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{2160, 3840} : Shape{45, 67};
        return AppIO{{{"in", DType::U8, sh}}, {{"out", DType::U8, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // A low-contrast image: values in [60, 140), denser in the middle.
        Rng r(seed);
        uint8_t *p = data_as<uint8_t>(in[0]);
        for (int64_t i = 0; i < int64_t(in[0].number_of_elements()); i++)
            p[i] = uint8_t(60 + int(40 * (r.uniform(0.0, 1.0) + r.uniform(0.0, 1.0))));
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint8_t *p = data_as<uint8_t>(in[0]);
        uint8_t *o = data_as<uint8_t>(out[0]);
        const int64_t n = in[0].number_of_elements();
        std::vector<int64_t> hist(256), cdf(256);
        for (int64_t i = 0; i < n; i++) hist[p[i]]++;
        for (int k = 0; k < 256; k++) cdf[k] = (k ? cdf[k - 1] : 0) + hist[k];
        for (int64_t i = 0; i < n; i++) {
            float v = float(cdf[p[i]]) * 255.0f / float(n);
            o[i] = uint8_t(std::min(255.0f, std::max(0.0f, v)));
        }
    };
    a.default_tolerance = {0, 1.0};  // a pixel on a rounding boundary may land one level off
    return a;
}

}  // namespace solder
