// A user's generator whose schedule needs sizes known only at run time: the sum of a vector's
// first n values (n a scalar Input, its RDom empty at n = 0), the vector scaled (an output
// vectorized on GPUs) and a channel mix of a second input (each output channel a weighted sum of
// the input's channels, plus the input's own channel where it has one: a contraction whose loads
// are vectors where the inputs' rows are aligned). Solder's
// source for it names the parameter and the inputs' sizes, and declares an Expr for the branch
// where the inputs are aligned: user_generators.cpp schedules it with the plugin,
// param_sum_pasted.cpp pastes that source, and tests/user_generators_test.cpp runs the result.
#pragma once
#include "Halide.h"

namespace user_generators {

template<typename T> class ParamSumAlgorithm : public Halide::Generator<T> {
public:
    template<typename U> using Input = typename Halide::Generator<T>::template Input<U>;
    template<typename U> using Output = typename Halide::Generator<T>::template Output<U>;

    Input<Halide::Buffer<float, 1>> values{"values"};
    Input<int> n{"n"};
    Output<Halide::Buffer<float, 0>> total{"total"};
    Output<Halide::Buffer<float, 1>> scaled{"scaled"};
    Input<Halide::Buffer<float, 2>> tokens{"tokens"};
    Input<Halide::Buffer<float, 2>> weights{"weights"};
    Output<Halide::Buffer<float, 2>> mixed{"mixed"};

    void generate() {
        Halide::Var x("x");
        Halide::RDom r(0, n, "r");
        total() = Halide::sum(values(r));
        scaled(x) = values(x) * 0.5f + 1.0f;
        Halide::Var t("t"), o("o");
        Halide::RDom c(0, tokens.dim(1).extent(), "c");
        Halide::Func mix("mix");
        mix(t, o) = 0.0f;
        mix(t, o) += weights(c, o) * tokens(t, c);
        Halide::Expr channels = tokens.dim(1).extent();
        mixed(t, o) = mix(t, o) + Halide::select(o < channels, tokens(t, Halide::min(o, channels - 1)), 0.0f);
        if (this->using_autoscheduler()) {
            values.set_estimates({{0, 1 << 22}});
            n.set_estimate(1 << 22);
            scaled.set_estimates({{0, 1 << 22}});
            tokens.set_estimates({{0, 65536}, {0, 96}});
            weights.set_estimates({{0, 96}, {0, 192}});
            mixed.set_estimates({{0, 65536}, {0, 192}});
        }
    }
};

}  // namespace user_generators
