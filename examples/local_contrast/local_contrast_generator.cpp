// Local contrast: out = mean + gain * (in - mean), with mean a (2r+1) x (2r+1) box average of the
// clamped image; the radius r and the gain are scalar inputs, the sizes come from the input.
#include "Halide.h"

namespace {

class LocalContrast : public Halide::Generator<LocalContrast> {
public:
    Input<Buffer<float, 2>> in{"in"};
    Input<int> radius{"radius", 2};
    Input<float> gain{"gain", 1.5f};
    Output<Buffer<float, 2>> out{"out"};

    void generate() {
        using namespace Halide;
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(in);
        RDom r(-radius, 2 * radius + 1, "r");
        Expr n = cast<float>(2 * radius + 1);
        Func row_mean("row_mean"), mean("mean");
        row_mean(x, y) = sum(clamped(x + r, y)) / n;
        mean(x, y) = sum(row_mean(x, y + r)) / n;
        out(x, y) = mean(x, y) + gain * (in(x, y) - mean(x, y));
        in.set_estimates({{0, 1920}, {0, 1080}});
        radius.set_estimate(2);
        gain.set_estimate(1.5f);
        out.set_estimates({{0, 1920}, {0, 1080}});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LocalContrast, local_contrast)
