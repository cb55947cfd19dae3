// A real Halide generator built with Solder's tensor layer and scheduled by the Solder plugin
// through CMake's add_halide_library(... AUTOSCHEDULER Solder ...): RMSNorm, bf16 in and out.
#include "Halide.h"
#include "lang/lang.h"

namespace {

class RmsNorm : public Halide::Generator<RmsNorm> {
public:
    GeneratorParam<int> rows{"rows", 8192};
    GeneratorParam<int> cols{"cols", 4096};
    Input<Buffer<uint16_t, 2>> x{"x"};
    Input<Buffer<uint16_t, 1>> w{"w"};
    Output<Buffer<uint16_t, 2>> out{"out"};

    void generate() {
        using namespace solder::lang;
        Graph g;
        int64_t R = rows, C = cols;
        Tensor tx = g.wrap(x, solder::DType::BF16, {R, C});
        Tensor tw = g.wrap(w, solder::DType::BF16, {C});
        Tensor xf = solder::lang::cast(tx, solder::DType::F32);
        Tensor y = solder::lang::cast(xf * solder::lang::rsqrt(solder::lang::mean(solder::lang::pow(xf, 2.0), {-1}, true) + 1e-6), solder::DType::BF16) * tw;
        Halide::Var c, r;
        out(c, r) = y.func(c, r);
        x.set_estimates({{0, int(C)}, {0, int(R)}});
        w.set_estimates({{0, int(C)}});
        out.set_estimates({{0, int(C)}, {0, int(R)}});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RmsNorm, rmsnorm)
