// Pipelines of shapes and types the random families do not build: five-dimensional Funcs (a batch
// of videos: a GPU grid has three dims, so Solder fuses the other block dims) and the integer types
// the narrow-type family leaves out (int8 inputs, int32 and uint32 sums, int64 totals and scans,
// popcount, count_leading_zeros, absd, saturating_add). Each is planned at its estimates, run at
// other sizes on the host and on OpenCL, and compared with every Func at root on the host.
#include <functional>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace wide_types {

struct Built {
    std::vector<Func> outputs;
    std::vector<ImageParam> inputs;
};

// Input and output shapes at one run size.
struct Sizes {
    std::vector<std::vector<int>> inputs, outputs;
};

Buffer<> random_input(Type t, const std::vector<int> &shape, uint32_t seed) {
    if (t == Float(32)) return random_buffer<float>(shape, seed, -1, 1);
    if (t == Int(8)) return random_buffer<int8_t>(shape, seed, -128, 127.99);
    if (t == UInt(32)) return random_buffer<uint32_t>(shape, seed, 0, 4294967295.99);
    throw std::invalid_argument("no random input of type " + type_to_c_type(t, false));
}

// Builds the pipeline twice (Solder's schedule, the reference at root) and compares them at each size.
void expect_matches_reference(const std::function<Built()> &build, const std::vector<Sizes> &sizes) {
    for (const std::string &target : user_targets()) {
        Built ours = build(), ref = build();
        const std::string plan = schedule_with_solder(ours.outputs, target);
        schedule_every_func_at_root(ref.outputs);
        {
            Built cuda = build();
            schedule_with_solder(cuda.outputs, "cuda");
            lower_for_cuda(cuda.outputs, "wide_types_cuda");
        }
        Pipeline po(ours.outputs), pr(ref.outputs);
        po.compile_jit(solder::make_target(target));
        pr.compile_jit(get_host_target());
        uint32_t seed = 1;
        for (const Sizes &s : sizes) {
            for (size_t i = 0; i < ours.inputs.size(); i++) {
                Buffer<> b = random_input(ours.inputs[i].type(), s.inputs[i], seed++);
                ours.inputs[i].set(b);
                ref.inputs[i].set(b);
            }
            std::vector<Buffer<>> want, got;
            for (size_t o = 0; o < ours.outputs.size(); o++) {
                want.emplace_back(ours.outputs[o].type(), s.outputs[o]);
                got.emplace_back(ours.outputs[o].type(), s.outputs[o]);
            }
            want = realize_into(pr, want, get_host_target());
            got = realize_into(po, got, solder::make_target(target));
            for (size_t o = 0; o < got.size(); o++) {
                const std::string d = first_difference(got[o], want[o], 1e-4);
                EXPECT_EQ(d, "") << target << ", output " << ours.outputs[o].name() << ", input " << s.inputs[0][0]
                                 << " wide\n"
                                 << plan;
            }
        }
    }
}

Var x("x"), y("y"), c("c"), t("t"), n("n");

// Videos (x, y, c, t, n): a blur through a clamped edge, a mean over time by an RDom over the
// input's extent, the difference from it in five dims.
TEST(WideTypesAndDims, FiveDimensionalVideoBatch) {
    auto build = [] {
        ImageParam in(Float(32), 5, "in");
        Func e = BoundaryConditions::repeat_edge(in);
        Func blur("blur");
        blur(x, y, c, t, n) = (e(x - 1, y, c, t, n) + 2 * e(x, y, c, t, n) + e(x + 1, y, c, t, n) +
                               e(x, y - 1, c, t, n) + e(x, y + 1, c, t, n)) /
                              6.0f;
        RDom r(0, in.dim(3).extent(), "rt");
        Func sum("sum"), mean("mean"), diff("diff");
        sum(x, y, c, n) = 0.0f;
        sum(x, y, c, n) += blur(x, y, c, r, n);
        mean(x, y, c, n) = sum(x, y, c, n) / cast<float>(in.dim(3).extent());
        diff(x, y, c, t, n) = blur(x, y, c, t, n) - mean(x, y, c, n);
        in.set_estimates({{0, 64}, {0, 48}, {0, 3}, {0, 8}, {0, 2}});
        mean.set_estimates({{0, 64}, {0, 48}, {0, 3}, {0, 2}});
        diff.set_estimates({{0, 64}, {0, 48}, {0, 3}, {0, 8}, {0, 2}});
        return Built{{mean, diff}, {in}};
    };
    auto sizes = [](int w, int h, int ch, int frames, int batch) {
        return Sizes{{{w, h, ch, frames, batch}}, {{w, h, ch, batch}, {w, h, ch, frames, batch}}};
    };
    expect_matches_reference(build, {sizes(37, 23, 3, 5, 2), sizes(1, 1, 1, 1, 1), sizes(75, 47, 4, 11, 3)});
}

// A pointwise output in five dims with a per-channel bias (unrolled over the batch where the
// output has as many as planned) and its maximum over each plane.
TEST(WideTypesAndDims, FiveDimensionalPointwiseAndPlaneMaximum) {
    auto build = [] {
        ImageParam in(Float(32), 5, "in"), bias(Float(32), 1, "bias");
        Func o("o"), m("m");
        o(x, y, c, t, n) = in(x, y, c, t, n) * 1.5f + bias(c);
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "rp");
        m(c, t, n) = maximum(o(r.x, r.y, c, t, n));
        in.set_estimates({{0, 32}, {0, 16}, {0, 4}, {0, 5}, {0, 3}});
        bias.set_estimates({{0, 4}});
        o.set_estimates({{0, 32}, {0, 16}, {0, 4}, {0, 5}, {0, 3}});
        m.set_estimates({{0, 4}, {0, 5}, {0, 3}});
        return Built{{o, m}, {in, bias}};
    };
    auto sizes = [](int w, int h, int ch, int frames, int batch) {
        return Sizes{{{w, h, ch, frames, batch}, {ch}}, {{w, h, ch, frames, batch}, {ch, frames, batch}}};
    };
    expect_matches_reference(build, {sizes(37, 23, 3, 5, 3), sizes(2, 1, 1, 1, 1), sizes(75, 47, 7, 11, 2)});
}

// int8 pixels widened to int32, row sums of squares in uint32 (wrapping), an int64 total, a
// byte mask and an int16 saturating sum: exact.
TEST(WideTypesAndDims, IntegerWidthsFromInt8ToInt64) {
    auto build = [] {
        ImageParam in(Int(8), 2, "in8");
        Func v("v"), rows("rows"), mask("mask"), total("total"), sat("sat");
        v(x, y) = cast<int32_t>(in(x, y)) * 3 - 7;
        RDom r(0, in.dim(0).extent(), "rx");
        rows(y) = cast<uint32_t>(0);
        rows(y) += cast<uint32_t>(v(r, y) * v(r, y));
        mask(x, y) = select(v(x, y) > 0 && (in(x, y) & 1) == 0, cast<uint8_t>(255), cast<uint8_t>(0));
        RDom a(0, in.dim(0).extent(), 0, in.dim(1).extent(), "ra");
        total() = cast<int64_t>(0);
        total() += cast<int64_t>(v(a.x, a.y)) * cast<int64_t>(1 << 20);
        sat(x, y) =
            saturating_add(cast<int16_t>(in(x, y)) * cast<int16_t>(200), cast<int16_t>(in(x, y)) * cast<int16_t>(150));
        in.set_estimates({{0, 128}, {0, 96}});
        rows.set_estimates({{0, 96}});
        mask.set_estimates({{0, 128}, {0, 96}});
        sat.set_estimates({{0, 128}, {0, 96}});
        return Built{{rows, mask, total, sat}, {in}};
    };
    auto sizes = [](int w, int h) { return Sizes{{{w, h}}, {{h}, {w, h}, {}, {w, h}}}; };
    expect_matches_reference(build, {sizes(37, 23), sizes(1, 1), sizes(301, 77)});
}

// uint32 hashes: popcount and count_leading_zeros into bytes, an int64 running sum along each row
// (an update), absd of neighbours.
TEST(WideTypesAndDims, HashesPopcountsAndInt64Scans) {
    auto build = [] {
        ImageParam in(UInt(32), 2, "in32");
        Func h("h"), bits("bits"), scan("scan"), step("step");
        h(x, y) = (in(x, y) * Expr(uint32_t(2654435761u))) >> 7;
        bits(x, y) = cast<uint8_t>(popcount(h(x, y)) + count_leading_zeros(in(x, y) | 1));
        scan(x, y) = cast<int64_t>(h(x, y));
        RDom r(1, in.dim(0).extent() - 1, "rs");
        scan(r, y) = scan(r, y) + scan(r - 1, y);
        step(x, y) = absd(h(x, y), h(x + 1, y));
        in.set_estimates({{0, 200}, {0, 50}});
        bits.set_estimates({{0, 200}, {0, 50}});
        scan.set_estimates({{0, 200}, {0, 50}});
        step.set_estimates({{0, 199}, {0, 50}});
        return Built{{bits, scan, step}, {in}};
    };
    auto sizes = [](int w, int h) { return Sizes{{{w, h}}, {{w, h}, {w, h}, {w - 1, h}}}; };
    expect_matches_reference(build, {sizes(37, 23), sizes(2, 1), sizes(301, 77)});
}

}  // namespace wide_types
