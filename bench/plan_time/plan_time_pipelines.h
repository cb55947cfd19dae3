// The pipelines solder-plan-time times (bench/plan_time/plan_time_main.cpp), written as Halide users
// write them; tests/search_test.cpp plans the chain too.
//  - plan_time_chain(n): n Funcs in a chain of pointwise stages and 2-tap stencils along x and y,
//    with a row's mean subtracted every 50 stages (its RDom over the input's extent), estimates
//    1920x1080 on the input and the output;
//  - plan_time_pyramid(levels): an image pyramid down and back up (2 * levels - 1 Funcs and the
//    input's clamp), 4096x4096.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder {

struct PlanTimePipeline {
    std::vector<Halide::Func> outputs;
    int funcs = 0;
};

inline PlanTimePipeline plan_time_chain(int n) {
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var x("x"), y("y");
    Halide::Func prev = Halide::BoundaryConditions::repeat_edge(in);
    PlanTimePipeline b;
    for (int i = 0; i < n; i++) {
        Halide::Func f("f" + std::to_string(i));
        if (i % 50 == 49) {
            Halide::RDom r(0, in.dim(0).extent(), "r" + std::to_string(i));
            Halide::Func s("rowsum" + std::to_string(i));
            s(y) = Halide::sum(prev(r, y));
            f(x, y) = prev(x, y) - s(y) / Halide::cast<float>(in.dim(0).extent());
            b.funcs++;
        } else if (i % 3 == 1) {
            f(x, y) = 0.5f * (prev(x, y) + prev(x + 1, y));
        } else if (i % 3 == 2) {
            f(x, y) = 0.5f * (prev(x, y) + prev(x, y + 1));
        } else {
            f(x, y) = prev(x, y) * 0.99f + 0.01f;
        }
        prev = f;
        b.funcs++;
    }
    in.set_estimates({{0, 1920}, {0, 1080}});
    prev.set_estimates({{0, 1920}, {0, 1080}});
    b.outputs = {prev};
    return b;
}

inline PlanTimePipeline plan_time_pyramid(int levels) {
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var x("x"), y("y");
    std::vector<Halide::Func> down(levels), up(levels);
    down[0] = Halide::BoundaryConditions::repeat_edge(in);
    PlanTimePipeline b;
    for (int l = 1; l < levels; l++) {
        down[l] = Halide::Func("down" + std::to_string(l));
        down[l](x, y) = (down[l - 1](2 * x, 2 * y) + down[l - 1](2 * x + 1, 2 * y) + down[l - 1](2 * x, 2 * y + 1) +
                         down[l - 1](2 * x + 1, 2 * y + 1)) /
                        4;
        b.funcs++;
    }
    up[levels - 1] = down[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        up[l] = Halide::Func("up" + std::to_string(l));
        up[l](x, y) = down[l](x, y) + 0.5f * up[l + 1](x / 2, y / 2);
        b.funcs++;
    }
    in.set_estimates({{0, 4096}, {0, 4096}});
    up[0].set_estimates({{0, 4096}, {0, 4096}});
    b.outputs = {up[0]};
    return b;
}

}  // namespace solder
