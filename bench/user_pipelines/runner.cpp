// Runs every library bench/user_pipelines/build.sh built: for each pipeline, the host reference
// (every Func at root) once, then each auto-scheduler's CUDA library in a child process of its own
// (a library that aborts takes only its row), its outputs checked against the reference, its time
// the median of 11 rounds of 5 calls with the inputs already on the device.
//   runner [PIPELINE,PIPELINE...|all] [SCHEDULER,SCHEDULER...] [--check] [--scale N] [--set NAME=V]...
//          [--reuse-allocations]
// --check runs each library once and checks it, without timing it; --scale N divides every buffer
// extent above 16 by N (scalars keep their estimates): check_opencl.sh's check on PoCL. --set gives
// the scalar NAME the value V instead of its estimate (an integer, or a float for a float scalar).
// --reuse-allocations turns on Halide's device allocation cache (halide_reuse_device_allocations)
// before the libraries run: without it each call allocates its intermediates on the device and
// frees them (cuMemAlloc, cuMemFree) when it returns.
// Inputs are filled from the libraries' metadata at their estimates (mins and extents): floats (f32,
// f16, f64) uniform in [-1, 1], booleans, 8- and 16-bit integers over their range, 32- and 64-bit
// integers in [0, the last extent); scalars take their estimates.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "HalideRuntime.h"
#include "core/bf16.h"

using Halide::Runtime::Buffer;

struct Library {
    const char *pipeline, *scheduler;
    int (*argv_fn)(void **);
    const halide_filter_metadata_t *(*metadata)();
};
extern const std::vector<Library> kLibraries;  // written by build.sh

namespace {

// --scale: buffer extents above kUnscaledExtent divided by this (at least kUnscaledExtent left).
int g_scale = 1;
constexpr int kUnscaledExtent = 16;
bool g_check_only = false;

struct Arguments {
    std::vector<Buffer<void>> buffers;  // one per buffer argument (empty for scalars)
    std::vector<std::vector<uint8_t>> scalars;
    std::vector<void *> argv;
    std::vector<int> outputs;
};

// f16 from and to f32 (round to nearest even; the fills stay in the normal range).
uint16_t f16_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    const uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
    if (mag < 0x38800000u) return uint16_t(sign);  // below f16's normal range: zero
    uint32_t h = ((mag - 0x38000000u) >> 13), rest = mag & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
    return uint16_t(sign | h);
}
float f16_value(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16, mag = h & 0x7fffu;
    uint32_t u = mag == 0 ? sign : sign | ((mag << 13) + 0x38000000u);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

void fill(Buffer<void> &b, const halide_type_t &t, int last_extent, uint32_t seed) {
    std::mt19937 rng(seed);
    const size_t n = b.number_of_elements();
    if (t.code == halide_type_float && t.bits == 32) {
        std::uniform_real_distribution<float> u(-1, 1);
        for (size_t k = 0; k < n; k++) static_cast<float *>(b.data())[k] = u(rng);
    } else if (t.code == halide_type_float && t.bits == 16) {
        std::uniform_real_distribution<float> u(-1, 1);
        for (size_t k = 0; k < n; k++) static_cast<uint16_t *>(b.data())[k] = f16_bits(u(rng));
    } else if (t.code == halide_type_bfloat) {
        std::uniform_real_distribution<float> u(-1, 1);
        for (size_t k = 0; k < n; k++) static_cast<uint16_t *>(b.data())[k] = solder::f32_to_bf16_bits(u(rng));
    } else if (t.code == halide_type_float && t.bits == 64) {
        std::uniform_real_distribution<double> u(-1, 1);
        for (size_t k = 0; k < n; k++) static_cast<double *>(b.data())[k] = u(rng);
    } else if (t.bits == 1) {
        for (size_t k = 0; k < n; k++) static_cast<bool *>(b.data())[k] = (rng() & 1) != 0;
    } else if (t.bits == 64) {
        for (size_t k = 0; k < n; k++)
            static_cast<int64_t *>(b.data())[k] = int64_t(rng() % uint32_t(std::max(1, last_extent)));
    } else if (t.bits == 8) {
        for (size_t k = 0; k < n; k++) static_cast<uint8_t *>(b.data())[k] = uint8_t(rng());
    } else if (t.bits == 16) {
        for (size_t k = 0; k < n; k++) static_cast<uint16_t *>(b.data())[k] = uint16_t(rng());
    } else if (t.bits == 32) {
        for (size_t k = 0; k < n; k++)
            static_cast<int32_t *>(b.data())[k] = int32_t(rng() % uint32_t(std::max(1, last_extent)));
    }
    b.set_host_dirty();
}

// Scalars given on the command line (--set NAME=VALUE), by name.
std::map<std::string, double> g_set;

void set_scalar(std::vector<uint8_t> &bytes, const halide_type_t &t, double v) {
    auto put = [&](auto x) { memcpy(bytes.data(), &x, sizeof x); };
    if (t.code == halide_type_float) {
        if (t.bits == 64)
            put(v);
        else
            put(float(v));
    } else if (t.bits == 64) {
        put(int64_t(v));
    } else if (t.bits == 32) {
        put(int32_t(v));
    } else if (t.bits == 16) {
        put(int16_t(v));
    } else {
        put(int8_t(v));
    }
}

// The arguments of a library from its metadata. The buffers named in `interleaved` (three dims,
// the last of at most 4 points: colour channels) are laid out with that dim innermost, as
// pipelines that constrain their strides that way ask (`set_stride` on the buffers).
Arguments arguments(const halide_filter_metadata_t *md, const std::set<std::string> &interleaved = {}) {
    Arguments a;
    a.buffers.resize(size_t(md->num_arguments));
    a.scalars.resize(size_t(md->num_arguments));
    for (int i = 0; i < md->num_arguments; i++) {
        const halide_filter_argument_t &arg = md->arguments[i];
        if (arg.kind == halide_argument_kind_input_scalar) {
            a.scalars[size_t(i)].assign(16, 0);
            const void *v = arg.scalar_estimate ? arg.scalar_estimate : arg.scalar_def;
            if (v) memcpy(a.scalars[size_t(i)].data(), v, (arg.type.bits + 7) / 8);
            if (auto set = g_set.find(arg.name); set != g_set.end())
                set_scalar(a.scalars[size_t(i)], arg.type, set->second);
            continue;
        }
        std::vector<int> extents, mins;
        for (int d = 0; d < arg.dimensions; d++) {
            const int e = int(*arg.buffer_estimates[2 * d + 1]);
            extents.push_back(e > kUnscaledExtent ? std::max(kUnscaledExtent, e / g_scale) : e);
            mins.push_back(int(*arg.buffer_estimates[2 * d]));
        }
        const bool channels_inner = interleaved.count(arg.name) && extents.size() == 3 && extents.back() <= 4;
        Buffer<void> b = channels_inner ? Buffer<void>::make_interleaved(arg.type, extents[0], extents[1], extents[2])
                                        : Buffer<void>(arg.type, extents);
        b.set_min(mins);
        if (arg.kind == halide_argument_kind_input_buffer)
            fill(b, arg.type, extents.empty() ? 1 : extents.back(), 1234u + uint32_t(i));
        else
            a.outputs.push_back(i);
        a.buffers[size_t(i)] = b;
    }
    for (int i = 0; i < md->num_arguments; i++)
        a.argv.push_back(md->arguments[i].kind == halide_argument_kind_input_scalar
                             ? static_cast<void *>(a.scalars[size_t(i)].data())
                             : static_cast<void *>(a.buffers[size_t(i)].raw_buffer()));
    return a;
}

double value(const Buffer<void> &b, size_t k) {
    const halide_type_t t = b.type();
    if (t.code == halide_type_float && t.bits == 16) return f16_value(static_cast<const uint16_t *>(b.data())[k]);
    if (t.code == halide_type_bfloat) return solder::bf16_bits_to_f32(static_cast<const uint16_t *>(b.data())[k]);
    if (t.code == halide_type_float && t.bits == 64) return static_cast<const double *>(b.data())[k];
    if (t.code == halide_type_float) return static_cast<const float *>(b.data())[k];
    if (t.bits == 1) return static_cast<const bool *>(b.data())[k] ? 1 : 0;
    if (t.bits == 64 && t.code == halide_type_uint) return double(static_cast<const uint64_t *>(b.data())[k]);
    if (t.bits == 64) return double(static_cast<const int64_t *>(b.data())[k]);
    if (t.bits == 8) return static_cast<const uint8_t *>(b.data())[k];
    if (t.bits == 16) return static_cast<const uint16_t *>(b.data())[k];
    return static_cast<const int32_t *>(b.data())[k];
}

// The largest difference, relative to the reference's largest magnitude (sums in another order
// differ by rounding; a wrong element differs by about the values' scale).
double difference(const Buffer<void> &want, const Buffer<void> &got) {
    double scale = 0, worst = 0;
    for (size_t k = 0; k < want.number_of_elements(); k++) scale = std::max(scale, std::abs(value(want, k)));
    for (size_t k = 0; k < want.number_of_elements(); k++) {
        const double d = std::abs(value(want, k) - value(got, k));
        if (!(d <= worst)) worst = std::isnan(d) ? INFINITY : d;
    }
    return worst / std::max(scale, 1e-30);
}

// The largest difference (as `difference` measures it) an output of type `t` may have: 1e-3, or
// for bf16 one unit of its last place (its f32 value rounded once: sums in another order may
// round it the other way).
double tolerance(const halide_type_t &t) { return t.code == halide_type_bfloat ? 1.0 / 128 : 1e-3; }

// The last error a library reported (print_error).
std::string g_last_error;

// Calls `lib` on new arguments, each buffer whose planar layout breaks a stride constraint
// interleaved instead (the constraint's message names it: "Constraint violated: in.stride.0 (1) ==
// 4 (4)"); returns the call's result.
int call_fresh(const Library &lib, Arguments &a) {
    std::set<std::string> interleaved;
    for (;;) {
        a = arguments(lib.metadata(), interleaved);
        const int rc = lib.argv_fn(a.argv.data());
        if (rc != halide_error_code_constraint_violated) return rc;
        const size_t at = g_last_error.find(".stride."), from = g_last_error.find("violated: ");
        if (at == std::string::npos || from == std::string::npos || from + 10 > at) return rc;
        if (!interleaved.insert(g_last_error.substr(from + 10, at - from - 10)).second) return rc;
    }
}

void run_gpu(const Library &lib, Arguments &ref) {
    Arguments a;
    if (int rc = call_fresh(lib, a)) {
        printf("%-12s %-14s failed: error %d\n", lib.pipeline, lib.scheduler, rc);
        return;
    }
    double worst = 0;
    bool mismatch = false;
    for (int o : a.outputs) {
        a.buffers[size_t(o)].copy_to_host();
        const double d = difference(ref.buffers[size_t(o)], a.buffers[size_t(o)]);
        worst = std::max(worst, d);
        mismatch = mismatch || !(d <= tolerance(a.buffers[size_t(o)].type()));
    }
    if (g_check_only) {
        printf("%-12s %-14s %s  difference %.1e\n", lib.pipeline, lib.scheduler, mismatch ? "MISMATCH" : "ok      ",
               worst);
        return;
    }
    halide_buffer_t *out = a.buffers[size_t(a.outputs[0])].raw_buffer();
    // (An output computed on the host has no device to wait for: its call returns when it is done.)
    auto sync = [&] {
        if (out->device_interface) halide_device_sync(nullptr, out);
    };
    for (int i = 0; i < 3; i++) lib.argv_fn(a.argv.data());
    sync();
    std::vector<double> us;
    for (int r = 0; r < 11; r++) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 5; i++) lib.argv_fn(a.argv.data());
        sync();
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 5);
        if (us.back() > 100000) break;  // a schedule that takes 0.1 s a call: one round is enough
    }
    std::sort(us.begin(), us.end());
    printf("%-12s %-14s %10.1f us  difference %.1e%s\n", lib.pipeline, lib.scheduler, us[us.size() / 2], worst,
           mismatch ? "  MISMATCH" : "");
}

// --check: each pipeline in a process of its own (a reference that fails at the reduced size, a
// histogram's bins scaled below its values, aborts only its own): its reference, then each wanted
// library once, checked. Where the reference fails at --scale, again at the estimates.
template<typename Wanted, typename Scheduled> int check_all(Wanted wanted, Scheduled scheduled) {
    std::vector<std::string> pipelines;
    for (auto &lib : kLibraries)
        if (strcmp(lib.scheduler, "ref") == 0 && wanted(lib.pipeline)) pipelines.push_back(lib.pipeline);
    constexpr int kReferenceFailed = 3;
    for (auto &name : pipelines) {
        const int scales[2] = {g_scale, 1};
        for (int attempt = 0; attempt < (g_scale > 1 ? 2 : 1); attempt++) {
            fflush(stdout);
            const pid_t pid = fork();
            if (pid == 0) {
                g_scale = scales[attempt];
                const Library *ref = nullptr;
                for (auto &lib : kLibraries)
                    if (strcmp(lib.scheduler, "ref") == 0 && name == lib.pipeline) ref = &lib;
                Arguments a;
                if (call_fresh(*ref, a) != 0) _exit(kReferenceFailed);
                for (auto &lib : kLibraries)
                    if (strcmp(lib.scheduler, "ref") != 0 && name == lib.pipeline && scheduled(lib.scheduler))
                        run_gpu(lib, a);
                fflush(stdout);
                _exit(0);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
            const bool ref_failed = WIFEXITED(status) && WEXITSTATUS(status) == kReferenceFailed;
            printf("%-12s %s at a scale of 1/%d%s\n", name.c_str(), ref_failed ? "reference failed" : "aborted",
                   scales[attempt], attempt == 0 && g_scale > 1 ? ": again at the estimates" : "");
        }
    }
    return 0;
}

}  // namespace

// Prints a library's error without aborting (the runtime's default handler aborts): the call
// returns its error code, which the caller reports or acts on (call_fresh).
void print_error(void *, const char *msg) {
    g_last_error = msg;
    fprintf(stderr, "%s\n", msg);
}

int main(int argc, char **argv) {
    halide_set_error_handler(print_error);
    auto list_of = [](const char *arg) {
        std::vector<std::string> out;
        std::stringstream list(arg);
        for (std::string s; std::getline(list, s, ',');)
            if (s != "all") out.push_back(s);
        return out;
    };
    std::vector<const char *> positional;
    bool reuse_allocations = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            g_check_only = true;
        } else if (strcmp(argv[i], "--reuse-allocations") == 0) {
            reuse_allocations = true;
        } else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            g_scale = std::max(1, atoi(argv[++i]));
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc && strchr(argv[i + 1], '=')) {
            const std::string kv = argv[++i];
            g_set[kv.substr(0, kv.find('='))] = atof(kv.c_str() + kv.find('=') + 1);
        } else {
            positional.push_back(argv[i]);
        }
    }
    const std::vector<std::string> only = positional.size() > 0 ? list_of(positional[0]) : std::vector<std::string>{},
                                   schedulers =
                                       positional.size() > 1 ? list_of(positional[1]) : std::vector<std::string>{};
    auto wanted = [&](const char *p) { return only.empty() || std::find(only.begin(), only.end(), p) != only.end(); };
    auto scheduled = [&](const char *s) {
        return schedulers.empty() || std::find(schedulers.begin(), schedulers.end(), s) != schedulers.end();
    };
    if (reuse_allocations) halide_reuse_device_allocations(nullptr, true);
    if (g_check_only) return check_all(wanted, scheduled);
    // The references first, on the host, before any process touches the GPU.
    std::map<std::string, Arguments> refs;
    for (auto &lib : kLibraries) {
        if (strcmp(lib.scheduler, "ref") != 0 || !wanted(lib.pipeline)) continue;
        Arguments a;
        if (call_fresh(lib, a) != 0) {
            printf("%-12s reference failed\n", lib.pipeline);
            continue;
        }
        refs.emplace(lib.pipeline, std::move(a));
    }
    for (auto &lib : kLibraries) {
        if (strcmp(lib.scheduler, "ref") == 0 || !refs.count(lib.pipeline) || !scheduled(lib.scheduler)) continue;
        fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) {
            run_gpu(lib, refs.at(lib.pipeline));
            fflush(stdout);
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            printf("%-12s %-14s aborted (status %d)\n", lib.pipeline, lib.scheduler, status);
    }
    return 0;
}
