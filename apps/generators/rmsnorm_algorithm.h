// RMSNorm as a Halide generator's algorithm (bf16 in and out), built with Solder's tensor layer.
// Shared by the generator the Solder plugin schedules and by the one that pastes the schedule source
// the plugin wrote, so both define exactly the same pipeline.
#pragma once
#include "Halide.h"
#include "lang/lang.h"

namespace solder::generators {

template<typename Self> class RmsNormAlgorithm : public Halide::Generator<Self> {
public:
    template<typename T> using GeneratorParam = Halide::GeneratorParam<T>;
    template<typename T> using Input = Halide::GeneratorInput<T>;
    template<typename T> using Output = Halide::GeneratorOutput<T>;

    GeneratorParam<int> rows{"rows", 8192};
    GeneratorParam<int> cols{"cols", 4096};
    Input<Halide::Buffer<uint16_t, 2>> x{"x"};
    Input<Halide::Buffer<uint16_t, 1>> w{"w"};
    Output<Halide::Buffer<uint16_t, 2>> out{"out"};

    void generate() {
        using namespace solder::lang;
        Graph g;
        int64_t R = rows, C = cols;
        Tensor tx = g.wrap(x, DType::BF16, {R, C});
        Tensor tw = g.wrap(w, DType::BF16, {C});
        Tensor xf = cast(tx, DType::F32);
        Tensor y = cast(xf * rsqrt(mean(pow(xf, 2.0), {-1}, true) + 1e-6), DType::BF16) * tw;
        Halide::Var c, r;
        out(c, r) = y.func(c, r);
        x.set_estimates({{0, int(C)}, {0, int(R)}});
        w.set_estimates({{0, int(C)}});
        out.set_estimates({{0, int(C)}, {0, int(R)}});
    }
};

}  // namespace solder::generators
