// What the GPU check's runners share (runner.cpp, tensor_runner.cpp, and the table of libraries
// build.sh writes): the libraries, calling one, its outputs against its reference's, the seeds asked
// for and the tally of runs.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "HalideRuntime.h"

// One seed's two libraries (gen.cpp), as build.sh lists them in kLibraries.
struct Library {
    unsigned long long seed;
    int (*ours)(void **);
    int (*ref)(void **);
    const halide_filter_metadata_t *(*metadata)();
    bool nhwc;  // (the tensor family: stored channels-last)
    // (The tensor family: what each output buffer may differ from the reference, relative; empty:
    // by its type.)
    std::vector<double> tolerances;
};
extern const std::vector<Library> kLibraries;

namespace random_on_gpu {

using Buffer = Halide::Runtime::Buffer<void>;

inline bool is_bf16(const halide_type_t &t) { return t.code == halide_type_bfloat && t.bits == 16; }

inline float bf16_to_float(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// One value of an output of either family, as a double.
inline double value_at(const Buffer &b, const int *pos) {
    const halide_type_t t = b.type();
    const void *p = b.raw_buffer()->address_of(pos);
    if (t == halide_type_of<uint8_t>()) return *(const uint8_t *)p;
    if (t == halide_type_of<uint16_t>()) return *(const uint16_t *)p;
    if (t == halide_type_of<int16_t>()) return *(const int16_t *)p;
    if (t == halide_type_of<int32_t>()) return *(const int32_t *)p;
    if (t == halide_type_of<uint32_t>()) return *(const uint32_t *)p;
    if (t == halide_type_of<float>()) return *(const float *)p;
    if (t == halide_type_of<double>()) return *(const double *)p;
    if (t.code == halide_type_float && t.bits == 16) return double(halide_float16_bits_to_float(*(const uint16_t *)p));
    if (is_bf16(t)) return bf16_to_float(*(const uint16_t *)p);
    std::fprintf(stderr, "unexpected output type\n");
    std::exit(2);
}

// The type of the argument `name` of a library (an input's), from its metadata.
inline halide_type_t argument_type(const halide_filter_metadata_t *md, const char *name) {
    for (int i = 0; i < md->num_arguments; i++)
        if (std::strcmp(md->arguments[i].name, name) == 0) return md->arguments[i].type;
    return halide_type_t{};
}

// The seeds a runner's command line asks for (none: every library), and the runs' verdicts: one
// line each, and at the end their count and the exit status (1 if any was not ok).
class Tally {
public:
    Tally(int argc, char **argv) {
        for (int i = 1; i < argc; i++) only_.push_back(std::strtoull(argv[i], nullptr, 10));
        // A library that fails (a launch the device refuses) returns its error and the run goes
        // on to the next size: Halide's default handler aborts the process, and its buffered
        // lines with it.
        halide_set_error_handler([](void *, const char *msg) { std::fprintf(stderr, "%s", msg); });
        std::setvbuf(stdout, nullptr, _IOLBF, 0);
    }
    bool wants(unsigned long long seed) const {
        return only_.empty() || std::find(only_.begin(), only_.end(), seed) != only_.end();
    }
    void record(const std::string &run, const std::string &verdict) {
        runs_++;
        if (verdict != "ok") bad_++;
        std::printf("%s: %s\n", run.c_str(), verdict.c_str());
    }
    int finish() const {
        std::printf("%d runs, %d bad\n", runs_, bad_);
        return bad_ == 0 ? 0 : 1;
    }

private:
    std::vector<unsigned long long> only_;
    int runs_ = 0, bad_ = 0;
};

// Calls `fn` with the arguments its metadata lists: each output a buffer of `shape(its name)`, each
// input the pointer `named` holds for its name (a buffer's halide_buffer_t, a scalar's address;
// null for any other, such as the user context). Returns the outputs copied to the host, or none
// where it failed (its error in `*err`).
inline std::vector<Buffer> call_library(int (*fn)(void **), const halide_filter_metadata_t *md,
                                        const std::map<std::string, void *> &named,
                                        const std::function<std::vector<int>(const std::string &)> &shape, int *err) {
    std::vector<void *> args;
    std::vector<Buffer> outs;
    outs.reserve(size_t(md->num_arguments));
    for (int i = 0; i < md->num_arguments; i++) {
        const halide_filter_argument_t &a = md->arguments[i];
        if (a.kind == halide_argument_kind_output_buffer) {
            outs.emplace_back(a.type, shape(a.name));
            args.push_back(outs.back().raw_buffer());
        } else {
            auto it = named.find(a.name);
            args.push_back(it == named.end() ? nullptr : it->second);
        }
    }
    *err = fn(args.data());
    if (*err != 0) return {};
    for (auto &o : outs) o.copy_to_host();
    return outs;
}

// "ok", or what failed: either library's error code, or the first output with values further from
// the reference's than `tol(output, want)` allows (how many, and the largest difference).
inline std::string verdict(int ours_error, int ref_error, const std::vector<Buffer> &got,
                           const std::vector<Buffer> &want,
                           const std::function<double(const Buffer &, const int *)> &value_at,
                           const std::function<double(size_t, double)> &tol) {
    if (ours_error != 0 || ref_error != 0)
        return "FAILED: error " + std::to_string(ours_error) + " (ours), " + std::to_string(ref_error) + " (reference)";
    for (size_t o = 0; o < got.size(); o++) {
        long differ = 0;
        double worst = 0;
        got[o].for_each_element([&](const int *pos) {
            const double g = value_at(got[o], pos), v = value_at(want[o], pos);
            if (!(std::abs(g - v) <= tol(o, v))) differ++, worst = std::max(worst, std::abs(g - v));
        });
        if (differ)
            return "MISMATCH: output " + std::to_string(o) + ", " + std::to_string(differ) +
                   " values, largest difference " + std::to_string(worst);
    }
    return "ok";
}

}  // namespace random_on_gpu
