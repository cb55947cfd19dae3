// Generators written as Halide users write them, for the Solder plugin to schedule at build time
// (tests/CMakeLists.txt: add_halide_library(... AUTOSCHEDULER Solder)): sizes known only when the
// library runs, estimates given in generate() when an auto-scheduler is in use, GeneratorParams,
// scalar Inputs, several outputs of different types and dimensionalities, a Tuple output.
// tests/user_generators_test.cpp runs the libraries against references of its own.
#include "Halide.h"
#include "tests/generators/param_sum_algorithm.h"

namespace {

using namespace Halide;

// Histogram equalization of an 8-bit image: its histogram (a scatter over the image), the
// cumulative sum (a scan), and the image mapped through it; the histogram is a second output.
class Equalize : public Generator<Equalize> {
public:
    GeneratorParam<int> bins{"bins", 256};
    Input<Buffer<uint8_t, 2>> input{"input"};
    Output<Buffer<uint8_t, 2>> output{"output"};
    Output<Buffer<int32_t, 1>> histogram{"histogram"};

    void generate() {
        Var x("x"), y("y"), b("b");
        RDom r(0, input.dim(0).extent(), 0, input.dim(1).extent(), "r");
        Expr bin = cast<int>(input(r.x, r.y)) * bins / 256;
        histogram(b) = 0;
        histogram(bin) += 1;
        Func cdf("cdf");
        cdf(b) = histogram(b);
        RDom s(1, bins - 1, "s");
        cdf(s) = cdf(s) + cdf(s - 1);
        Expr total = input.dim(0).extent() * input.dim(1).extent();
        Expr level = cast<int>(input(x, y)) * bins / 256;
        output(x, y) = cast<uint8_t>(clamp(cdf(level) * 255 / max(total, 1), 0, 255));
        if (using_autoscheduler()) {
            input.set_estimates({{0, 1920}, {0, 1080}});
            output.set_estimates({{0, 1920}, {0, 1080}});
            histogram.set_estimates({{0, bins}});
        }
    }
};

// Per-channel statistics of a float image scaled by a scalar Input: each channel's maximum and
// where it is (a Tuple output, in the arg-max form Halide proves), and the scaled image minus each
// channel's mean, with a clamped 3-tap blur along rows.
class ChannelStats : public Generator<ChannelStats> {
public:
    Input<Buffer<float, 3>> input{"input"};
    Input<float> gain{"gain"};
    Output<Buffer<void, 1>> peak{"peak", {Float(32), Int(32), Int(32)}};
    Output<Buffer<float, 3>> centred{"centred"};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func scaled("scaled");
        scaled(x, y, c) = input(x, y, c) * gain;
        RDom r(0, input.dim(0).extent(), 0, input.dim(1).extent(), "r");
        Func best("best");
        best(c) = Tuple(Float(32).min(), 0, 0);
        Expr v = scaled(r.x, r.y, c), old = best(c)[0];
        best(c) = Tuple(max(old, v), select(old > v, best(c)[1], r.x), select(old > v, best(c)[2], r.y));
        peak(c) = best(c);
        Func mean("mean");
        mean(c) = sum(scaled(r.x, r.y, c)) / cast<float>(input.dim(0).extent() * input.dim(1).extent());
        Func edge = BoundaryConditions::repeat_edge(scaled, {{0, input.dim(0).extent()}, {0, input.dim(1).extent()}});
        centred(x, y, c) = (edge(x - 1, y, c) + 2 * edge(x, y, c) + edge(x + 1, y, c)) / 4 - mean(c);
        if (using_autoscheduler()) {
            input.set_estimates({{0, 1024}, {0, 768}, {0, 3}});
            gain.set_estimate(1.5f);
            peak.set_estimates({{0, 3}});
            centred.set_estimates({{0, 1024}, {0, 768}, {0, 3}});
        }
    }
};

// The sum of a vector's first n values, and the vector scaled (param_sum_algorithm.h).
class ParamSum : public user_generators::ParamSumAlgorithm<ParamSum> {};

}  // namespace

HALIDE_REGISTER_GENERATOR(Equalize, user_equalize)
HALIDE_REGISTER_GENERATOR(ChannelStats, user_channel_stats)
HALIDE_REGISTER_GENERATOR(ParamSum, user_param_sum)
