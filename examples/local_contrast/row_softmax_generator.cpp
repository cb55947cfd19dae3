// A row softmax built with Solder's tensor layer (installed headers, Solder::lang).
#include "Halide.h"
#include "solder/lang/lang.h"

namespace {

class RowSoftmax : public Halide::Generator<RowSoftmax> {
public:
    GeneratorParam<int> rows{"rows", 1024};
    GeneratorParam<int> cols{"cols", 512};
    Input<Buffer<float, 2>> x{"x"};
    Output<Buffer<float, 2>> out{"out"};

    void generate() {
        using namespace solder::lang;
        Graph g;
        const int64_t R = rows, C = cols;
        Tensor t = g.wrap(x, solder::DType::F32, {R, C});
        Tensor e = exp(t - max(t, {-1}, true));
        Tensor y = e / sum(e, {-1}, true);
        Halide::Var c, r;
        out(c, r) = y.func(c, r);
        x.set_estimates({{0, int(C)}, {0, int(R)}});
        out.set_estimates({{0, int(C)}, {0, int(R)}});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RowSoftmax, row_softmax)
