// Runs each random narrow-type pipeline built by gen.cpp (Solder's CUDA library beside its
// every-Func-at-root host reference) at several sizes on random inputs, and compares every output:
// integer pipelines exactly, float16 ones within 4e-3 relative (an 8-bit preview of them within 1).
//   runner [SEED...]     (no seeds: every pipeline linked in)
// Prints one line per pipeline and size, and exits 1 if any differs or fails.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "HalideRuntime.h"
#include "bench/random_on_gpu/runner_support.h"

namespace {

using random_on_gpu::Buffer;

// An output's shape at w x h, from its name (random_typed_pipeline's naming; Halide adds "$N" to
// a name made again in one process).
std::vector<int> output_shape(std::string name, int w, int h) {
    name = name.substr(0, name.find('$'));
    if (name == "counts") return {32};
    if (name == "row_sums") return {h};
    if (name == "planar") return {w, h, 3};
    if (name == "interleaved") return {3, w, h};
    return {w, h};
}

// The float16 bits of `v`, a multiple of 2^-10 in [0, 2) (exactly representable).
uint16_t half_bits(float v) {
    if (v == 0) return 0;
    int e = 0;
    const float m = std::frexp(v, &e);  // v = m 2^e, m in [0.5, 1)
    return uint16_t((e - 1 + 15) << 10 | int(std::lround((2 * m - 1) * 1024)));
}

// Random values in the family's range for the image's type.
void fill(Buffer &b, uint32_t seed) {
    std::mt19937 rng(seed);
    const halide_type_t t = b.type();
    b.for_each_element([&](const int *pos) {
        void *p = b.raw_buffer()->address_of(pos);
        if (t == halide_type_of<uint8_t>())
            *(uint8_t *)p = uint8_t(rng() % 256);
        else if (t == halide_type_of<uint16_t>())
            *(uint16_t *)p = uint16_t(rng() % 4096);
        else if (t == halide_type_of<int16_t>())
            *(int16_t *)p = int16_t(int(rng() % 4096) - 2048);
        else
            *(uint16_t *)p = half_bits(float(rng() % 2048) / 1024.0f);
    });
    b.set_host_dirty();
}

// Runs `fn` on the images and parameters; returns its outputs (copied to the host) or an empty
// vector where it failed.
std::vector<Buffer> run(int (*fn)(void **), const halide_filter_metadata_t *md, Buffer &in, Buffer &rgb, int w, int h,
                        int *err) {
    int knee = 120, shift = 2;
    float gain = 0.75f;
    const std::map<std::string, void *> named = {
        {"in", in.raw_buffer()}, {"rgb", rgb.raw_buffer()}, {"knee", &knee}, {"shift", &shift}, {"gain", &gain}};
    return random_on_gpu::call_library(
        fn, md, named, [&](const std::string &name) { return output_shape(name, w, h); }, err);
}

}  // namespace

int main(int argc, char **argv) {
    random_on_gpu::Tally tally(argc, argv);
    for (const Library &lib : kLibraries) {
        if (!tally.wants(lib.seed)) continue;
        const halide_filter_metadata_t *md = lib.metadata();
        const halide_type_t image_type = random_on_gpu::argument_type(md, "in");
        const bool fp = image_type.code == halide_type_float;
        std::vector<std::string> out_names;
        for (int i = 0; i < md->num_arguments; i++)
            if (md->arguments[i].kind == halide_argument_kind_output_buffer) {
                const std::string name = md->arguments[i].name;
                out_names.push_back(name.substr(0, name.find('$')));
            }
        for (auto [w, h] : std::vector<std::pair<int, int>>{{256, 192}, {37, 29}, {1000, 700}, {1, 1}, {2048, 1536}}) {
            Buffer in(image_type, {w, h}), rgb(image_type, {w, h, 3});
            fill(in, uint32_t(lib.seed * 7 + uint64_t(w)));
            fill(rgb, uint32_t(lib.seed * 11 + uint64_t(h)));
            int e1 = 0, e2 = 0;
            std::vector<Buffer> got = run(lib.ours, md, in, rgb, w, h, &e1);
            std::vector<Buffer> want = run(lib.ref, md, in, rgb, w, h, &e2);
            const std::string verdict =
                random_on_gpu::verdict(e1, e2, got, want, random_on_gpu::value_at, [&](size_t o, double v) {
                    const bool float_out = got[o].type().code == halide_type_float;
                    // (A row's sum of float16 values adds a rounding per value.)
                    const double scale = out_names[o] == "row_sums" ? w : 1;
                    return fp ? (float_out ? 4e-3 * (1 + std::abs(v)) * scale : 1) : 0;
                });
            tally.record("typed_" + std::to_string(lib.seed) + " " + std::to_string(w) + "x" + std::to_string(h),
                         verdict);
        }
    }
    return tally.finish();
}
