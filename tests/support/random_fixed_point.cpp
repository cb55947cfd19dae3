#include "tests/support/random_fixed_point.h"

#include <algorithm>
#include <random>

#include "tests/support/user_pipeline.h"

namespace solder::testing {

using namespace Halide;

namespace {

struct Built {
    bool wide = false;  // a 16-bit image, else 8-bit
    ImageParam in;
    Param<uint8_t> gain{"gain", 20};
    Func out{"out"}, rows{"rows"};
    bool with_rows = false;
    std::string stages;
};

void build(uint64_t seed, Built &p) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
    p.wide = pick(2);
    const Type T = p.wide ? UInt(16) : UInt(8);
    p.in = ImageParam(T, 2, "in");
    Var x("x"), y("y");
    std::vector<Func> fs{BoundaryConditions::repeat_edge(p.in)};
    const int n = 3 + pick(4);
    for (int i = 0; i < n; i++) {
        const std::string tag = std::to_string(i);
        Func a = fs.back(), b = fs[size_t(pick(int(fs.size())))];
        Func f("s" + tag);
        std::string what;
        switch (pick(8)) {
        case 0: {
            const bool along_y = pick(2);
            Expr l = along_y ? a(x, y - 1) : a(x - 1, y), r = along_y ? a(x, y + 1) : a(x + 1, y);
            f(x, y) =
                saturating_cast(T, rounding_shift_right(widening_add(l, r) + widening_mul(a(x, y), cast(T, 2)), 2));
            what = along_y ? "stencil_y" : "stencil_x";
            break;
        }
        case 1:
            f(x, y) = pick(2) ? halving_add(a(x, y), b(x, y)) : rounding_halving_add(a(x, y), b(x, y));
            what = "halving_add";
            break;
        case 2:
            f(x, y) = pick(2) ? saturating_add(a(x, y), b(x, y)) : saturating_sub(a(x, y), b(x, y));
            what = "saturating";
            break;
        case 3:
            f(x, y) = saturating_cast(T, rounding_shift_right(widening_mul(a(x, y), cast(T, p.gain)), 4));
            what = "gain";
            break;
        case 4:
            f(x, y) = absd(a(x, y), b(x, y));
            what = "absd";
            break;
        case 5:
            f(x, y) = mul_shift_right(a(x, y), b(x, y), T.bits());
            what = "mul_shift_right";
            break;
        case 6: {
            Func d("down" + tag);
            d(x, y) = halving_add(halving_add(a(2 * x, 2 * y), a(2 * x + 1, 2 * y)),
                                  halving_add(a(2 * x, 2 * y + 1), a(2 * x + 1, 2 * y + 1)));
            f(x, y) = rounding_halving_add(a(x, y), d(x / 2, y / 2));
            what = "down_up";
            break;
        }
        default:
            // Leading zeros, scaled back into the range so later stages keep varying.
            f(x, y) = saturating_add(a(x, y), cast(T, count_leading_zeros(b(x, y)) * 8));
            what = "leading_zeros";
            break;
        }
        p.stages += (p.stages.empty() ? "" : ", ") + what;
        fs.push_back(f);
    }
    p.out(x, y) = fs.back()(x, y);
    p.in.set_estimates({{0, 1024}, {0, 512}});
    p.gain.set_estimate(20);
    p.out.set_estimates({{0, 1024}, {0, 512}});
    p.with_rows = pick(2);
    if (p.with_rows) {
        RDom r(0, p.in.dim(0).extent(), "r");
        p.rows(y) = sum(cast<uint32_t>(fs[fs.size() / 2](r, y)));
        p.rows.set_estimates({{0, 512}});
        p.stages += ", row_sums";
    }
}

std::vector<Func> outputs(Built &p) {
    return p.with_rows ? std::vector<Func>{p.out, p.rows} : std::vector<Func>{p.out};
}

// Runs `p` at (w, h) from (x0, y0) with `gain`, on `target`: the output and, where it has them,
// the row sums (over the input's rows, which the output's rows start at 0 beside).
template<typename T> std::pair<Buffer<T>, Buffer<uint32_t>> run(Pipeline &pipe, Built &p, const Buffer<T> &in, int w,
                                                                int h, int x0, int y0, uint8_t gain,
                                                                const std::string &target) {
    p.in.set(in);
    p.gain.set(gain);
    Buffer<T> o(w, h);
    o.set_min(std::vector<int>{x0, y0});
    Buffer<uint32_t> rows(in.dim(1).extent());
    if (p.with_rows)
        pipe.realize(Realization({o, rows}), make_target(target));
    else
        pipe.realize(o, make_target(target));
    o.copy_to_host();
    if (p.with_rows) rows.copy_to_host();
    return {o, rows};
}

template<typename T> std::string compare(uint64_t seed, Built &p, Built &ref, Pipeline &pipe, Pipeline &ref_pipe,
                                         const std::string &target) {
    std::mt19937 rng{uint32_t(seed)};
    for (auto [w, h, x0, y0] : random_family_sizes(1024, 512)) {
        Buffer<T> in(x0 + w + 3, y0 + h + 2);
        in.for_each_value([&](T &v) { v = T(rng()); });
        in.set_host_dirty();
        const uint8_t gain = uint8_t(1 + rng() % 64);
        auto [o, rows] = run<T>(pipe, p, in, w, h, x0, y0, gain, target);
        auto [e, want_rows] = run<T>(ref_pipe, ref, in, w, h, x0, y0, gain, "host");
        std::string bad;
        e.for_each_element([&](int i, int j) {
            if (bad.empty() && o(i, j) != e(i, j))
                bad = "at " + std::to_string(i) + ", " + std::to_string(j) + ": " + std::to_string(int(o(i, j))) +
                      " vs " + std::to_string(int(e(i, j)));
        });
        for (int j = 0; p.with_rows && bad.empty() && j < in.dim(1).extent(); j++)
            if (rows(j) != want_rows(j))
                bad = "row sum " + std::to_string(j) + ": " + std::to_string(rows(j)) + " vs " +
                      std::to_string(want_rows(j));
        if (!bad.empty())
            return p.stages + " at " + std::to_string(w) + "x" + std::to_string(h) + " gain " + std::to_string(gain) +
                   ": " + bad;
    }
    return "";
}

}  // namespace

RandomFixedPointResult run_random_fixed_point(const std::vector<uint64_t> &seeds, const std::string &target) {
    RandomFixedPointResult result;
    check_seeds(seeds, result.failed_seeds, result.messages, [&](uint64_t seed, std::string &plan) {
        Built p, ref;
        build(seed, p);
        build(seed, ref);
        plan = schedule_with_solder(outputs(p), target);
        Pipeline pipe = compiled(outputs(p), target);
        schedule_every_func_at_root(outputs(ref));
        Pipeline ref_pipe = compiled(outputs(ref), "host");
        const std::string failure = p.wide ? compare<uint16_t>(seed, p, ref, pipe, ref_pipe, target)
                                           : compare<uint8_t>(seed, p, ref, pipe, ref_pipe, target);
        if (target == "opencl") {
            Built q;
            build(seed, q);
            schedule_with_solder(outputs(q), "cuda");
            lower_for_cuda(outputs(q), "fixed_point_" + std::to_string(seed));
        }
        return failure;
    });
    return result;
}

}  // namespace solder::testing
