// What an app is, independent of Halide: its inputs, outputs, sizes, how to make inputs and
// how to compute the reference answer with plain C++ loops. This half links into binaries that
// run on the GPU machine, where no libHalide exists (only HalideBuffer.h, which is header-only).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "core/types.h"

namespace solder {

struct TensorSpec {
    std::string name;
    DType dtype;
    Shape shape;
    int64_t bytes() const { return shape_numel(shape) * dtype_bytes(dtype); }
};

using HostBuffer = Halide::Runtime::Buffer<void>;

// Allocates a dense host buffer for a tensor (Halide dims reversed from the tensor's shape).
HostBuffer make_host_buffer(const TensorSpec &t);

// How close an output must be to the reference: |out - ref| <= rtol*|ref| + atol*rms(ref).
// Integer outputs compare exactly (both zero).
struct Tolerance {
    double rtol = 1e-5;
    double atol = 1e-5;
};

// The sizes an app runs at: the full size of the benchmark, or a reduced one for tests.
enum class AppSize { Full, Small };

// A scalar parameter of the pipeline (a Halide::Param): planned at its value, which the runner
// passes at every call and the reference uses. The value is the same at both sizes.
struct ScalarSpec {
    std::string name;
    DType dtype;
    double value;
};

struct AppIO {
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> outputs;
    std::vector<ScalarSpec> scalars;
};

struct AppSpec {
    std::string name;
    std::string description;
    std::string family;  // "ml" (built with lang/) or "image" (Halide Funcs written directly)
    std::function<AppIO(AppSize)> io;
    // Fills the inputs (already allocated to io().inputs) with deterministic pseudo-random data.
    std::function<void(std::vector<HostBuffer> &inputs, uint64_t seed)> make_inputs;
    // Computes the expected outputs (already allocated to io().outputs) with plain C++ loops.
    std::function<void(const std::vector<HostBuffer> &inputs, std::vector<HostBuffer> &outputs)> reference;
    std::map<std::string, Tolerance> tolerance;  // per output name; missing -> default_tolerance
    Tolerance default_tolerance;
    // The schedules the tests run it under at the reduced size (Apps/*); empty: every schedule that
    // supports the target. The suite pipelines are tested under Solder alone and compared with
    // Halide's auto-schedulers in the bench, which keeps the test run within CI's time.
    std::vector<std::string> test_schedules;

    // Every input read once plus every output written once: the bytes any implementation moves.
    int64_t min_bytes(AppSize size) const;
    std::string shapes_str(AppSize size) const;
};

const std::vector<AppSpec> &all_app_specs();
const AppSpec *find_app_spec(const std::string &name);
std::string app_names_joined();

}  // namespace solder
