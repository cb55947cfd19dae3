// The region a Func spans when the pipeline runs, as Exprs over what the pipeline is given
// (autosched/model/run_time_region.h), checked against the region Halide itself realizes the Func
// over: each pipeline run on the host, its Funcs computed at root, at several parameter values
// and output sizes, its realizations traced.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/run_time_region.h"

using namespace Halide;
using namespace Halide::Internal;

namespace run_time_region_test {

// The realizations traced (Func name -> min, extent per dim), from the last run.
std::map<std::string, std::vector<int>> g_realized;

int32_t trace(JITUserContext *, const halide_trace_event_t *e) {
    if (e->event == halide_trace_begin_realization)
        g_realized[e->func] = std::vector<int>(e->coordinates, e->coordinates + e->dimensions);
    return 0;
}

// `region` evaluated with `given` (a Param's or a buffer field's name -> value).
std::vector<int> evaluate(const std::vector<Interval> &region, const std::map<std::string, int> &given) {
    std::map<std::string, Expr> values;
    for (const auto &[name, v] : given) values[name] = Expr(int32_t(v));
    std::vector<int> out;
    for (const Interval &i : region) {
        const Expr mn = simplify(substitute(values, i.min)), mx = simplify(substitute(values, i.max));
        const auto a = as_const_int(mn), b = as_const_int(mx);
        EXPECT_TRUE(a && b) << mn << " .. " << mx;
        out.push_back(a ? int(*a) : 0);
        out.push_back(a && b ? int(*b - *a + 1) : 0);
    }
    return out;
}

// `out`'s pipeline with `hist` computed at root and its realizations traced, over a 37 x 11 input
// `in` holding `fill`.
Pipeline traced_over_37x11(Func out, Func hist, ImageParam in, float fill) {
    hist.compute_root().trace_realizations();
    Pipeline p(out);
    p.jit_handlers().custom_trace = trace;
    Buffer<float> img(37, 11);
    img.fill(fill);
    in.set(img);
    return p;
}

// A histogram into a parameter's count of bins, read by the output at its own points.
TEST(RunTimeRegion, AParameterSizedHistogramSpansItsBinsAndWhatItsReaderAsks) {
    ImageParam in(Float(32), 2, "in");
    Param<int> nbins("nbins");
    Var i("i");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func hist("hist"), out("out");
    hist(i) = 0;
    hist(clamp(cast<int>(in(r.x, r.y) * cast<float>(nbins)), 0, nbins - 1)) += 1;
    out(i) = hist(i) + 1;
    // (Halide names a Func or a parameter whose name is taken already "hist$1": names from the objects.)
    const auto region = solder::autosched::run_time_region({out.function()}, hist.name());
    ASSERT_TRUE(region.has_value());
    ASSERT_EQ(region->size(), 1u);
    Pipeline p = traced_over_37x11(out, hist, in, 0.5f);
    struct Run {
        int bins, min, extent;
    };
    for (Run run : {Run{64, 0, 64}, Run{10, 0, 64}, Run{300, 5, 20}, Run{8, -7, 4}, Run{1, 3, 1}}) {
        SCOPED_TRACE(std::to_string(run.bins) + " bins, output " + std::to_string(run.min) + " + " +
                     std::to_string(run.extent));
        nbins.set(run.bins);
        Buffer<int> o(run.extent);
        o.set_min(run.min);
        g_realized.clear();
        p.realize(o);
        ASSERT_TRUE(g_realized.count(hist.name()));
        EXPECT_EQ(evaluate(*region, {{nbins.name(), run.bins},
                                     {out.name() + ".min.0", run.min},
                                     {out.name() + ".extent.0", run.extent},
                                     {in.name() + ".min.0", 0},
                                     {in.name() + ".extent.0", 37},
                                     {in.name() + ".min.1", 0},
                                     {in.name() + ".extent.1", 11}}),
                  g_realized[hist.name()]);
    }
    // At most 8192 bins of 4 bytes: a condition on the parameter and the output.
    const Expr fits = solder::autosched::region_fits({out.function()}, hist.name(), 32768);
    ASSERT_TRUE(fits.defined());
    auto fits_at = [&](int bins, int extent) {
        return is_const_one(simplify(substitute(
            {{nbins.name(), Expr(bins)}, {out.name() + ".min.0", Expr(0)}, {out.name() + ".extent.0", Expr(extent)}},
            fits)));
    };
    EXPECT_TRUE(fits_at(64, 64));
    EXPECT_TRUE(fits_at(8192, 100));
    EXPECT_FALSE(fits_at(8193, 100));
    EXPECT_FALSE(fits_at(64, 9000));
}

// A histogram whose bin a Func computes from the RDom's points (a bin moved into a Func of its own,
// autosched/computed_bins.h, or written so): bounded as the expression the Func computes, not by
// its type.
TEST(RunTimeRegion, ABinAFuncComputesIsBoundedAsItsExpression) {
    ImageParam in(Float(32), 2, "bf_in");
    Var i("i"), x("x"), y("y");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func bin("bf_bin"), hist("bf_hist"), out("bf_out");
    bin(x, y) = (x + y * 7) % 64;
    hist(i) = 0.0f;
    hist(bin(r.x, r.y)) += in(r.x, r.y);
    out(i) = hist(i) * 2.0f;
    const auto region = solder::autosched::run_time_region({out.function()}, hist.name());
    ASSERT_TRUE(region.has_value());
    ASSERT_EQ(region->size(), 1u);
    Pipeline p = traced_over_37x11(out, hist, in, 1.0f);
    for (auto [min, extent] : std::vector<std::pair<int, int>>{{0, 10}, {-5, 100}, {30, 4}}) {
        SCOPED_TRACE("output " + std::to_string(min) + " + " + std::to_string(extent));
        Buffer<float> o(extent);
        o.set_min(min);
        g_realized.clear();
        p.realize(o);
        ASSERT_TRUE(g_realized.count(hist.name()));
        EXPECT_EQ(evaluate(*region, {{out.name() + ".min.0", min},
                                     {out.name() + ".extent.0", extent},
                                     {in.name() + ".min.0", 0},
                                     {in.name() + ".extent.0", 37},
                                     {in.name() + ".min.1", 0},
                                     {in.name() + ".extent.1", 11}}),
                  g_realized[hist.name()]);
    }
}

// Bins read through a cumulative scan over a parameter's steps, the scan read at data-dependent
// but clamped points, and a two-dim scatter (per-cluster sums of coordinates) read by its output.
TEST(RunTimeRegion, RegionsFollowReadersThroughScansClampsAndTwoDimScatters) {
    ImageParam in(UInt(8), 2, "in"), pts(Float(32), 2, "pts");
    Param<int> levels("levels");
    Var x("x"), y("y"), i("i"), d("d");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r"), s(1, levels - 1, "s"), rp(0, pts.dim(0).extent(), "rp");
    Func hist("hist"), cdf("cdf"), eq("eq"), acc("acc"), sums("sums");
    hist(i) = 0;
    hist(min(cast<int>(in(r.x, r.y)), levels - 1)) += 1;
    cdf(i) = hist(0);
    cdf(s) = cdf(s - 1) + hist(s);
    eq(x, y) = cdf(clamp(cast<int>(in(x, y)), 0, levels - 1));
    acc(i, d) = 0.0f;
    acc(clamp(cast<int>(pts(rp, 0) * 4.0f), 0, 3), d) += pts(rp, d);
    sums(i, d) = acc(i, d) * 2.0f;
    const std::vector<Function> outs{eq.function(), sums.function()};
    const auto hist_region = solder::autosched::run_time_region(outs, hist.name());
    const auto acc_region = solder::autosched::run_time_region(outs, acc.name());
    ASSERT_TRUE(hist_region.has_value());
    ASSERT_TRUE(acc_region.has_value());
    hist.compute_root().trace_realizations();
    cdf.compute_root();
    acc.compute_root().trace_realizations();
    Pipeline p({eq, sums});
    p.jit_handlers().custom_trace = trace;
    Buffer<uint8_t> img(23, 9);
    img.for_each_value([](uint8_t &v) { v = 7; });
    Buffer<float> points(50, 2);
    points.fill(0.25f);
    in.set(img);
    pts.set(points);
    for (int lv : {256, 4, 300}) {
        for (int sums_extent : {4, 9}) {
            SCOPED_TRACE(std::to_string(lv) + " levels, sums over " + std::to_string(sums_extent));
            levels.set(lv);
            Buffer<float> so(sums_extent, 2);
            Buffer<int> eo(23, 9);
            g_realized.clear();
            p.realize({eo, so});
            std::map<std::string, int> given{{levels.name(), lv}};
            auto sized = [&](const std::string &buffer, int e0, int e1) {
                given[buffer + ".min.0"] = 0, given[buffer + ".extent.0"] = e0;
                given[buffer + ".min.1"] = 0, given[buffer + ".extent.1"] = e1;
            };
            sized(in.name(), 23, 9);
            sized(pts.name(), 50, 2);
            sized(eq.name(), 23, 9);
            sized(sums.name(), sums_extent, 2);
            EXPECT_EQ(evaluate(*hist_region, given), g_realized[hist.name()]);
            EXPECT_EQ(evaluate(*acc_region, given), g_realized[acc.name()]);
        }
    }
}

// Where nothing bounds a read at data-dependent points, the region cannot be told.
TEST(RunTimeRegion, AnUnboundedDataDependentReadHasNoRegion) {
    ImageParam idx(Int(32), 1, "idx");
    Var i("i");
    Func table("table"), out("out");
    table(i) = i * 2;
    out(i) = table(idx(i));
    EXPECT_FALSE(solder::autosched::run_time_region({out.function()}, table.name()).has_value());
    EXPECT_FALSE(solder::autosched::region_fits({out.function()}, table.name(), 32768).defined());
}

// A histogram read through a chain of stencils, each level reading the one before at two offsets:
// the bounds double at each level before they simplify (20 levels took 5 s, 40 over a minute). A
// short chain is told; a long one is not, at once (the planner then keeps the rule for bins that
// cannot be told).
TEST(RunTimeRegion, AFuncReadThroughALongStencilChainIsToldQuicklyOrNotAtAll) {
    for (int levels : {3, 40, 400}) {
        SCOPED_TRACE(std::to_string(levels) + " levels");
        ImageParam in(UInt(8), 1, "in");
        Var i("i");
        RDom r(0, in.dim(0).extent(), "r");
        Func hist("hist");
        hist(i) = 0;
        hist(cast<int>(in(r))) += 1;
        Func f = hist;
        for (int k = 0; k < levels; k++) {
            Func g("level" + std::to_string(k));
            g(i) = f(i - 1) + f(clamp(i + 1, 0, 255)) * 2;
            f = g;
        }
        const auto start = std::chrono::steady_clock::now();
        const auto region = solder::autosched::run_time_region({f.function()}, hist.name());
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(region.has_value(), levels == 3);
        EXPECT_LT(seconds, 1.0);
    }
}

}  // namespace run_time_region_test
