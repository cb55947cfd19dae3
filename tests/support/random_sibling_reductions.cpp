#include "tests/support/random_sibling_reductions.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/support/user_pipeline.h"

namespace solder::testing {

using namespace Halide;

namespace {

struct Built {
    ImageParam in{Float(32), 2, "in"};
    Param<int> width{"width", 3};
    Func out{"out"};
    std::string shape;
};

void build(uint64_t seed, Built &p) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
    Var x("x"), y("y");
    Expr W = p.in.dim(0).extent(), H = p.in.dim(1).extent();
    Func c = BoundaryConditions::repeat_edge(p.in);
    Func second("second");
    second(x, y) = 0.5f * c(x, y) + 0.25f * c(x + 1, y);
    const int kind = pick(3);
    // The group's RDom; a member may take one of its own written alike (its RVars renamed when the
    // group is walked together).
    const auto rdom = [&](const std::string &n) {
        return kind == 0 ? RDom(0, W, "row" + n) : kind == 1 ? RDom(0, H, "col" + n) : RDom(0, p.width, "win" + n);
    };
    RDom r = rdom("");
    p.shape = kind == 0 ? "row" : kind == 1 ? "column" : "window";
    // Each member's point and what the group reads at it: the shared load, and maybe another.
    const auto shared = [&]() -> Expr { return kind == 0 ? c(r, y) : kind == 1 ? c(x, r) : c(x + r, y); };
    const auto other = [&]() -> Expr { return kind == 0 ? second(r, y) : kind == 1 ? second(x, r) : second(x + r, y); };
    std::vector<Func> members;
    const int n = 2 + pick(3);
    Expr combined = 0.f;
    const RDom group = r;
    for (int i = 0; i < n; i++) {
        r = pick(3) == 0 ? rdom("_" + std::to_string(i)) : group;
        Expr v;
        switch (pick(4)) {
        case 0: v = shared(); break;
        case 1: v = shared() * shared(); break;
        case 2: v = shared() * other(); break;
        default: v = abs(shared() - 0.5f); break;
        }
        Func m("m" + std::to_string(i));
        const int op = pick(3);
        // (Sums scaled by the points they add, so that every term stays about [0, 2].)
        if (kind == 0) {
            m(y) = op == 0 ? sum(v) / cast<float>(W) : op == 1 ? maximum(v) : minimum(v);
            combined = combined + m(y);
        } else if (kind == 1) {
            m(x) = op == 0 ? sum(v) / cast<float>(H) : op == 1 ? maximum(v) : minimum(v);
            combined = combined + m(x);
        } else {
            m(x, y) = op == 0 ? sum(v) / cast<float>(max(1, p.width)) : op == 1 ? maximum(v) : minimum(v);
            combined = combined + m(x, y);
        }
        members.push_back(m);
    }
    // Sometimes a reduction over other points that reads the same input beside them: a column's
    // sum for a row group, a row's for the others.
    if (pick(2)) {
        Func apart("apart");
        if (kind == 0) {
            RDom rc(0, H, "apart_col");
            apart(x) = sum(c(x, rc)) / cast<float>(H);
            combined = combined + apart(x);
        } else {
            RDom rr(0, W, "apart_row");
            apart(y) = sum(c(rr, y)) / cast<float>(W);
            combined = combined + apart(y);
        }
    }
    p.out(x, y) = c(x, y) + 0.25f * combined;
    p.in.set_estimates({{0, 1024}, {0, 512}});
    p.width.set_estimate(9);
    p.out.set_estimates({{0, 1024}, {0, 512}});
}

}  // namespace

RandomSiblingResult run_random_sibling_reductions(const std::vector<uint64_t> &seeds, const std::string &target) {
    RandomSiblingResult result;
    check_seeds(seeds, result.failed_seeds, result.messages, [&](uint64_t seed, std::string &plan) {
        std::string failure;
        Built p, ref;
        build(seed, p);
        build(seed, ref);
        plan = schedule_with_solder({p.out}, target);
        result.rewritten += plan.find("are walked together as") != std::string::npos;
        Pipeline pipe = compiled({p.out}, target);
        schedule_every_func_at_root({ref.out});
        Pipeline ref_pipe = compiled({ref.out}, "host");
        std::mt19937 rng{uint32_t(seed)};
        for (auto [w, h, x0, y0] : random_family_sizes(1024, 512)) {
            const int k = 1 + int(rng() % 12);
            Buffer<float> in(w + 3, h + 2);
            in.for_each_value([&](float &v) { v = float(rng() % 1000) / 500.0f; });
            in.set_host_dirty();
            p.in.set(in);
            ref.in.set(in);
            p.width.set(k);
            ref.width.set(k);
            Buffer<float> o(w, h), e(w, h);
            o.set_min(std::vector<int>{x0, y0});
            e.set_min(std::vector<int>{x0, y0});
            pipe.realize(o, make_target(target));
            o.copy_to_host();
            ref_pipe.realize(e, make_target("host"));
            double worst = 0;
            e.for_each_element([&](int i, int j) {
                worst = std::max(worst, std::abs(double(o(i, j)) - e(i, j)) / (1.0 + std::abs(e(i, j))));
            });
            if (!(worst < 1e-4) && failure.empty())
                failure = p.shape + " at " + std::to_string(w) + "x" + std::to_string(h) + " width " +
                          std::to_string(k) + ": relative difference " + std::to_string(worst);
        }
        if (target == "opencl") {
            Built q;
            build(seed, q);
            schedule_with_solder({q.out}, "cuda");
            lower_for_cuda({q.out}, "sibling_" + std::to_string(seed));
        }
        return failure;
    });
    return result;
}

}  // namespace solder::testing
