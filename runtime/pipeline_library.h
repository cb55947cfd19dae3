// A compiled pipeline loaded from a shared library that Solder built (runtime/aot_compiler.h):
// Halide's AOT object, its runtime, the launch hooks, and a small info record. Halide-free, so the
// runner that executes libraries on the GPU machine needs no libHalide.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "HalideRuntime.h"
#include "runtime/launch_record.h"

namespace solder {

// Every Solder-built library exports its pipeline under this name (plus _argv and _metadata).
inline constexpr const char *kPipelineEntry = "solder_pipeline";

class PipelineLibrary {
public:
    // Returns null and sets *error (naming the file and the problem) on failure.
    static std::unique_ptr<PipelineLibrary> open(const std::string &path, std::string *error);
    ~PipelineLibrary();

    // Calls the pipeline with buffers in the order of the spec's inputs and outputs. Returns
    // Halide's error code (0 on success); *error gets a readable message on failure. Each buffer
    // is first checked against the library's arguments (runtime/buffer_checks.h): their type and
    // dimensions, and their shape against the estimates the library was planned at unless
    // `allow_any_shape(true)` (a run at another size on purpose: Halide's own checks then apply).
    // Scalar arguments (Halide Params) are given by name.
    int call(const std::vector<halide_buffer_t *> &inputs, const std::vector<halide_buffer_t *> &outputs,
             std::string *error, const std::vector<std::pair<std::string, double>> &scalars = {});

    void allow_any_shape(bool on) { any_shape_ = on; }

    const halide_filter_metadata_t *metadata() const { return metadata_(); }
    // Key=value lines written at compile time: app, schedule, target, size, loop_nests.
    std::string info(const std::string &key) const;
    const std::string &path() const { return path_; }

    int64_t launches() const { return launches_(); }
    std::vector<solder_launch_record> launch_records() const;
    void reset_launches() { reset_(); }
    // Per-launch device timing (the bandwidth dump): a SOLDER_TIMING_* mode. False when the library
    // was built before its hooks could time launches.
    bool set_timing(int mode);
    // Device time (us) of each recorded launch since the last reset, -1 where it was not timed.
    std::vector<float> launch_times_us() const;

    // Halide's device allocation cache (halide_reuse_device_allocations) in this library's runtime:
    // on, the intermediates a call allocates on the device are kept for the next call instead of
    // freed. False where the library does not export the switch.
    bool reuse_device_allocations(bool on);

    // SOLDER_INJECT_FAULT=launch (runtime/fault_injection.h): every kernel launch of this library
    // fails with the driver's out-of-resources code. False if the library predates the switch.
    bool inject_launch_fault(bool on);

private:
    PipelineLibrary() = default;
    std::string path_;
    bool any_shape_ = false;
    void *handle_ = nullptr;
    int (*argv_)(void **) = nullptr;
    const halide_filter_metadata_t *(*metadata_)() = nullptr;
    const char *(*info_)() = nullptr;
    int64_t (*launches_)() = nullptr;
    int (*records_)(const solder_launch_record **) = nullptr;
    void (*reset_)() = nullptr;
    const char *(*last_error_)() = nullptr;
    void (*inject_fault_)(int) = nullptr;          // optional: libraries built before it lack it
    const char *(*failed_kernel_)() = nullptr;     // optional, likewise
    void (*set_timing_)(int) = nullptr;            // optional
    int (*times_)(const float **, int) = nullptr;  // optional
    int (*reuse_)(void *, bool) = nullptr;         // optional: Halide's runtime, where exported
};

}  // namespace solder
