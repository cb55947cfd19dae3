// Pipelines written the way Halide users write them, each scheduled by Solder at its estimates
// and run at other sizes (smaller, larger and not a multiple of any tile, one point) on the host
// and on OpenCL, against a plain C++ reference: reductions over an input's extent or a scalar
// parameter, scans, histograms, a cumulative table read at data-dependent points, Tuples and
// several outputs of different shapes, a scalar output, an update Halide cannot prove
// associative, boundary conditions and a lookup table, an 8-level pyramid, an extern stage,
// fixed-point intrinsics and a 64-bit hash; and the modelled bytes of an embedding gather.
#include <gtest/gtest.h>

#include <tuple>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <regex>

#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"
#include "tests/support/test_processes.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

Target jit_target(const std::string &t) { return solder::make_target(t); }

// Runs `body(target)` for each test target, naming the target in failures.
template<typename F> void for_each_target(F body) {
    for (auto &t : user_targets()) {
        SCOPED_TRACE("target " + t);
        body(t);
    }
}

// One output of `p` realized at `sizes`, copied back to the host.
template<typename T> Buffer<T> realized(Pipeline &p, const std::vector<int> &sizes, const std::string &target) {
    Buffer<T> o = p.realize(sizes, jit_target(target));
    o.copy_to_host();
    return o;
}

std::vector<std::pair<int, int>> sizes_with(int w, int h) {
    auto s = other_sizes();
    s.insert(s.begin(), {w, h});
    return s;
}

}  // namespace

// Layer normalization over rows whose length is the input's extent (RDom over in.dim(0)).
TEST(UserPipelines, RowNormalizationOverInputExtent) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        RDom r(0, in.dim(0).extent(), "r");
        Func mean("mean"), var("var"), out("out");
        mean(y) = sum(in(r, y)) / cast<float>(in.dim(0).extent());
        var(y) = sum(pow(in(r, y) - mean(y), 2)) / cast<float>(in.dim(0).extent());
        out(x, y) = (in(x, y) - mean(y)) / sqrt(var(y) + 1e-5f);
        in.set_estimates({{0, 1024}, {0, 512}});
        out.set_estimates({{0, 1024}, {0, 512}});
        std::string plan = schedule_with_solder({out}, target);
        // One row kernel: both sums per block, over the run-time row length.
        if (target == "opencl") {
            EXPECT_NE(plan.find("1 kernel, "), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1024, 512)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 1, -2, 2);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            std::vector<double> m(h), v(h);
            for (int j = 0; j < h; j++) {
                for (int i = 0; i < w; i++) m[j] += a(i, j);
                m[j] /= w;
                for (int i = 0; i < w; i++) v[j] += (a(i, j) - m[j]) * (a(i, j) - m[j]);
                v[j] /= w;
            }
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return (a(q[0], q[1]) - m[q[1]]) / std::sqrt(v[q[1]] + 1e-5); }, 2e-3))
                << plan;
        }
    });
}

// A box filter whose radius is a scalar parameter, over a clamped border.
TEST(UserPipelines, BoxFilterWithParameterRadius) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Param<int> radius("radius");
        radius.set_estimate(3);
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(in);
        RDom r(-radius, 2 * radius + 1, "r");
        Func bx("bx"), by("by");
        bx(x, y) = sum(clamped(x + r, y)) / cast<float>(2 * radius + 1);
        by(x, y) = sum(bx(x, y + r)) / cast<float>(2 * radius + 1);
        in.set_estimates({{0, 1536}, {0, 1024}});
        by.set_estimates({{0, 1536}, {0, 1024}});
        std::string plan = schedule_with_solder({by}, target);
        // On a GPU the horizontal sums (a reduction root) take 32 x 8 tiles, so that neighbouring
        // rows' windows meet in one block.
        if (target != "host") {
            EXPECT_NE(plan.find("[pointwise, 8 rows per block]"), std::string::npos) << plan;
        }
        Pipeline p = compiled({by}, target);
        for (int rad : {3, 1}) {
            radius.set(rad);
            for (auto [w, h] : sizes_with(1536, 1024)) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " radius " + std::to_string(rad));
                auto a = random_buffer<float>({w, h}, 2);
                in.set(a);
                Buffer<float> o = realized<float>(p, {w, h}, target);
                auto at = [&](int i, int j) { return double(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))); };
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        double s = 0;
                        for (int dy = -rad; dy <= rad; dy++) {
                            double row = 0;
                            for (int dx = -rad; dx <= rad; dx++) row += at(q[0] + dx, q[1] + dy);
                            s += row / (2 * rad + 1);
                        }
                        return s / (2 * rad + 1);
                    },
                    1e-4))
                    << plan;
            }
        }
    });
}

// A first-order IIR filter: a scan down the columns, then along the rows (the innermost dim).
TEST(UserPipelines, IirScansBothDirections) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        const float a = 0.25f;
        Func down("down"), across("across");
        down(x, y) = in(x, y);
        RDom ry(1, in.dim(1).extent() - 1, "ry");
        down(x, ry) = a * down(x, ry - 1) + (1 - a) * down(x, ry);
        across(x, y) = down(x, y);
        RDom rx(1, in.dim(0).extent() - 1, "rx");
        across(rx, y) = a * across(rx - 1, y) + (1 - a) * across(rx, y);
        in.set_estimates({{0, 1024}, {0, 768}});
        across.set_estimates({{0, 1024}, {0, 768}});
        std::string plan = schedule_with_solder({across}, target);
        Pipeline p = compiled({across}, target);
        for (auto [w, h] : sizes_with(1024, 768)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 3);
            in.set(img);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            std::vector<float> d(size_t(w) * h);
            for (int i = 0; i < w; i++) {
                d[i] = img(i, 0);
                for (int j = 1; j < h; j++) d[size_t(j) * w + i] = a * d[size_t(j - 1) * w + i] + (1 - a) * img(i, j);
            }
            for (int j = 0; j < h; j++)
                for (int i = 1; i < w; i++)
                    d[size_t(j) * w + i] = a * d[size_t(j) * w + i - 1] + (1 - a) * d[size_t(j) * w + i];
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return d[size_t(q[1]) * w + q[0]]; }, 1e-5))
                << plan;
        }
    });
}

// A histogram of an 8-bit image (a scatter of increments), its cumulative sum (a scan over the
// bins), and the image equalized through it (the table read at data-dependent points).
TEST(UserPipelines, HistogramEqualization) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(8), 2, "in");
        Var x("x"), y("y"), i("i");
        Func hist("hist"), cdf("cdf"), out("out");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        hist(i) = 0;
        hist(cast<int>(in(r.x, r.y))) += 1;
        cdf(i) = 0;
        RDom b(0, 256, "b");
        cdf(b) = select(b.x == 0, 0, cdf(b - 1)) + hist(b);
        Expr total = in.dim(0).extent() * in.dim(1).extent();
        out(x, y) = cast<uint8_t>(clamp(cdf(cast<int>(in(x, y))) * 255.0f / cast<float>(total), 0.0f, 255.0f));
        in.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan = schedule_with_solder({out}, target);
        // On OpenCL: the cumulative table is computed by one block in shared memory, and the
        // histogram's bins are not (Halide 21's OpenCL shared-memory atomics,
        // PlannerOptions::shared_atomics; on CUDA they are: HistogramOfManyBins).
        if (target != "host") {
            EXPECT_EQ(plan.find("bins in shared memory"), std::string::npos) << plan;
            EXPECT_NE(plan.find("in one block's shared memory"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<uint8_t>({w, h}, 4, 0, 200);  // bins 200-255 stay empty
            in.set(img);
            Buffer<uint8_t> o = realized<uint8_t>(p, {w, h}, target);
            std::vector<int64_t> hh(256), c(256);
            img.for_each_value([&](uint8_t v) { hh[v]++; });
            for (int k = 0; k < 256; k++) c[k] = (k ? c[k - 1] : 0) + hh[k];
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    float v = float(c[img(q[0], q[1])]) * 255.0f / float(int64_t(w) * h);
                    return double(uint8_t(std::clamp(v, 0.0f, 255.0f)));
                },
                0))
                << plan;
        }
    });
}

// A plain histogram as the output: 256 bins written by every pixel.
TEST(UserPipelines, HistogramOutput) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(8), 2, "in");
        Var i("i");
        Func hist("hist");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        hist(i) = cast<uint32_t>(0);
        hist(cast<int>(in(r.x, r.y))) += cast<uint32_t>(1);
        in.set_estimates({{0, 1920}, {0, 1080}});
        hist.set_estimates({{0, 256}});
        std::string plan = schedule_with_solder({hist}, target);
        Pipeline p = compiled({hist}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<uint8_t>({w, h}, 5, 0, 256);
            in.set(img);
            Buffer<uint32_t> o = realized<uint32_t>(p, {256}, target);
            std::vector<uint32_t> hh(256);
            img.for_each_value([&](uint8_t v) { hh[v]++; });
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return hh[q[0]]; }, 0))
                << plan;
        }
    });
}

// A region of interest, given by parameters, brightened in place (`out(r.x, r.y) = min(out(r.x,
// r.y) * gain, 1)`): each point reads only the point it stores, so the region's points run at once
// (they ran on one thread), correct at any size and region.
TEST(UserPipelines, InPlaceUpdatesOfARegionRunAtOnce) {
    auto define = [](ImageParam &in, std::array<Param<int>, 4> &roi, Param<float> &gain, Func &out) {
        Var x("x"), y("y");
        out(x, y) = in(x, y);
        RDom r(roi[0], roi[2], roi[1], roi[3], "r");
        out(r.x, r.y) = min(out(r.x, r.y) * gain, 1.0f);
        in.set_estimates({{0, 1920}, {0, 1080}});
        for (int k = 0; k < 4; k++) roi[size_t(k)].set_estimate(k < 2 ? 100 : 800);
        gain.set_estimate(1.5f);
        out.set_estimates({{0, 1920}, {0, 1080}});
    };
    auto make_roi = [](const std::string &tag) {
        return std::array<Param<int>, 4>{Param<int>(tag + "rx"), Param<int>(tag + "ry"), Param<int>(tag + "rw"),
                                         Param<int>(tag + "rh")};
    };
    {
        ImageParam in(Float(32), 2, "ip_cin");
        auto roi = make_roi("ip_c");
        Param<float> gain("ip_cgain");
        Func out("ip_cout");
        define(in, roi, gain, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("ip_cout.update(0).allow_race_conditions()"), std::string::npos) << plan;
        EXPECT_EQ(plan.find("gpu_single_thread"), std::string::npos) << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(Float(32), 2, "ip_in");
        auto roi = make_roi("ip_");
        Param<float> gain("ip_gain");
        Func out("ip_out");
        define(in, roi, gain, out);
        const std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 31);
            in.set(img);
            const int rx = w / 4, ry = h / 3, rw = std::max(1, w / 2), rh = std::max(1, h / 2);
            roi[0].set(rx), roi[1].set(ry), roi[2].set(rw), roi[3].set(rh);
            gain.set(1.5f);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const bool inside = q[0] >= rx && q[0] < rx + rw && q[1] >= ry && q[1] < ry + rh;
                    return inside ? std::min(img(q[0], q[1]) * 1.5f, 1.0f) : img(q[0], q[1]);
                },
                0))
                << plan;
        }
    });
}

// A histogram of the pixels above a threshold parameter (an RDom with a `where`): the predicate
// does not read the bins, so the increments still run at once (in chunks with their bins in
// shared memory on CUDA; they ran on one thread), correct at any size.
TEST(UserPipelines, PredicatedHistogramsRunAtOnce) {
    auto define = [](ImageParam &in, Param<uint8_t> &threshold, Func &hist) {
        Var i("i");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        r.where(in(r.x, r.y) > threshold);
        hist(i) = 0;
        hist(cast<int>(in(r.x, r.y)) / 4) += 1;
        in.set_estimates({{0, 1920}, {0, 1080}});
        threshold.set_estimate(100);
        hist.set_estimates({{0, 64}});
    };
    {
        ImageParam in(UInt(8), 2, "ph_cin");
        Param<uint8_t> threshold("ph_cthreshold");
        Func hist("ph_chist");
        define(in, threshold, hist);
        const std::string plan = schedule_with_solder({hist}, "cuda");
        EXPECT_NE(plan.find("a scatter in chunks"), std::string::npos) << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(UInt(8), 2, "ph_in");
        Param<uint8_t> threshold("ph_threshold");
        Func hist("ph_hist");
        define(in, threshold, hist);
        const std::string plan = schedule_with_solder({hist}, target);
        if (target == "opencl") {
            EXPECT_NE(plan.find(".atomic()"), std::string::npos) << plan;
        }
        Pipeline p = compiled({hist}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<uint8_t>({w, h}, 23, 0, 256);
            in.set(img);
            threshold.set(uint8_t(100));
            Buffer<int> o = realized<int>(p, {64}, target);
            std::vector<int> want(64);
            img.for_each_value([&](uint8_t v) {
                if (v > 100) want[v / 4]++;
            });
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[q[0]]; }, 0))
                << plan;
        }
    });
}

// A histogram whose bins hold a Tuple (each bin's count and its pixels' sum): each element is
// updated atomically on its own, in chunks of rows with their bins in shared memory on CUDA, as a
// single-valued histogram is (it ran on one thread). On OpenCL, whose atomics take integers only,
// the integer Tuple runs at once too. A Tuple update whose elements read each other (a running
// mean) still runs in order.
TEST(UserPipelines, TupleHistogramsUpdateEachElementAtomically) {
    auto define = [](ImageParam &in, Func &bins, Func &out, bool float_sum) {
        Var i("i");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        Expr b = cast<int>(in(r.x, r.y)) / 16, v = cast<int>(in(r.x, r.y));
        if (float_sum) {
            bins(i) = Tuple(0, 0.0f);
            bins(b) = Tuple(bins(b)[0] + 1, bins(b)[1] + cast<float>(v));
        } else {
            bins(i) = Tuple(0, 0);
            bins(b) = Tuple(bins(b)[0] + 1, bins(b)[1] + v);
        }
        out(i) = cast<float>(bins(i)[1]) / cast<float>(max(bins(i)[0], 1));
        in.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 16}});
    };
    {
        ImageParam in(UInt(8), 2, "th_cin");
        Func bins("th_cbins"), out("th_cout");
        define(in, bins, out, true);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("a scatter in chunks"), std::string::npos) << plan;
        EXPECT_NE(plan.find("th_cbins.update(0).atomic()"), std::string::npos) << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(UInt(8), 2, "th_in");
        Func bins("th_bins"), out("th_out");
        define(in, bins, out, false);
        const std::string plan = schedule_with_solder({out}, target);
        if (target == "opencl") {
            EXPECT_NE(plan.find(".atomic()"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<uint8_t>({w, h}, 9, 0, 256);
            in.set(img);
            Buffer<float> o = realized<float>(p, {16}, target);
            std::vector<int> count(16), total(16);
            img.for_each_value([&](uint8_t v) { count[v / 16]++, total[v / 16] += v; });
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return float(total[q[0]]) / float(std::max(count[q[0]], 1)); }, 1e-6))
                << plan;
        }
    });
    ImageParam in(UInt(8), 2, "th_min");
    Var i("i");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func mean("th_mean");
    Expr b = cast<int>(in(r.x, r.y)) / 16;
    mean(i) = Tuple(0, 0.0f);
    mean(b) =
        Tuple(mean(b)[0] + 1, mean(b)[1] + (cast<float>(in(r.x, r.y)) - mean(b)[1]) / cast<float>(mean(b)[0] + 1));
    in.set_estimates({{0, 1920}, {0, 1080}});
    mean.set_estimates({{0, 16}});
    const std::string plan = schedule_with_solder({mean}, "cuda");
    EXPECT_EQ(plan.find(".atomic()"), std::string::npos) << plan;
}

// Interleaved RGBA images, as a generator declares them (stride 4 along x, the channels innermost
// and bounded to 4): the output (its colours inverted and scaled by a gain, its alpha kept)
// computes each pixel's 4 channels as one vector in each thread (vectors along x wrote a byte
// every 4), correct at any size.
TEST(UserPipelines, InterleavedOutputsComputeTheirChannelsAsOneVector) {
    auto define = [](ImageParam &in, Param<float> &gain, Func &out) {
        Var x("x"), y("y"), c("c");
        Expr inverted = cast<uint8_t>(clamp((255.0f - cast<float>(in(x, y, c))) * gain, 0.0f, 255.0f));
        out(x, y, c) = select(c == 3, in(x, y, c), inverted);
        in.dim(0).set_stride(4);
        in.dim(2).set_stride(1).set_bounds(0, 4);
        out.output_buffer().dim(0).set_stride(4);
        out.output_buffer().dim(2).set_stride(1).set_bounds(0, 4);
        in.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
        gain.set_estimate(0.5f);
        out.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    };
    {
        ImageParam in(UInt(8), 3, "il_cin");
        Param<float> gain("il_cgain");
        Func out("il_cout");
        define(in, gain, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("the 4 points of dim 2 a vector in each thread"), std::string::npos) << plan;
        EXPECT_NE(plan.find("vectorize(il_cout_ci, 4"), std::string::npos) << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(UInt(8), 3, "il_in");
        Param<float> gain("il_gain");
        Func out("il_out");
        define(in, gain, out);
        const std::string plan = schedule_with_solder({out}, target);
        if (target == "opencl") {
            EXPECT_NE(plan.find("the 4 points of dim 2 a vector in each thread"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(640, 360)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = Buffer<uint8_t>::make_interleaved(w, h, 4);
            std::mt19937 rng(17);
            img.for_each_value([&](uint8_t &v) { v = uint8_t(rng()); });
            img.set_host_dirty();
            in.set(img);
            gain.set(0.5f);
            auto o = Buffer<uint8_t>::make_interleaved(w, h, 4);
            p.realize(o, jit_target(target));
            o.copy_to_host();
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int v = img(q[0], q[1], q[2]);
                    return q[2] == 3 ? v : int((255.0f - float(v)) * 0.5f);
                },
                0))
                << plan;
        }
    });
}

// A histogram of 4096 bins (a 16-bit image's top 12 bits) as the output: 16 KB of bins, which
// each chunk of rows still keeps in its block's shared memory on CUDA.
TEST(UserPipelines, HistogramOfManyBins) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(16), 2, "in");
        Var i("i");
        Func hist("hist");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        hist(i) = 0;
        hist(cast<int>(in(r.x, r.y) >> 4)) += 1;
        in.set_estimates({{0, 3840}, {0, 2160}});
        hist.set_estimates({{0, 4096}});
        std::string plan = schedule_with_solder({hist}, target);
        // Chunks of rows with their bins in shared memory on CUDA, not on OpenCL
        // (PlannerOptions::shared_atomics).
        if (target != "host") {
            EXPECT_EQ(plan.find("bins in shared memory"), std::string::npos) << plan;
            ImageParam cin(UInt(16), 2, "cin");
            Func chist("chist");
            RDom cr(0, cin.dim(0).extent(), 0, cin.dim(1).extent(), "cr");
            chist(i) = 0;
            chist(cast<int>(cin(cr.x, cr.y) >> 4)) += 1;
            cin.set_estimates({{0, 3840}, {0, 2160}});
            chist.set_estimates({{0, 4096}});
            const std::string cuda = schedule_with_solder({chist}, "cuda");
            EXPECT_NE(cuda.find("bins in shared memory"), std::string::npos) << cuda;
        }
        Pipeline p = compiled({hist}, target);
        for (auto [w, h] : sizes_with(640, 360)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<uint16_t>({w, h}, 6, 0, 65536);
            in.set(img);
            Buffer<int32_t> o = realized<int32_t>(p, {4096}, target);
            std::vector<int32_t> hh(4096);
            img.for_each_value([&](uint16_t v) { hh[v >> 4]++; });
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return hh[q[0]]; }, 0))
                << plan;
        }
    });
}

// Several outputs of different shapes from one pipeline: a Tuple reduction (argmax per row,
// split into its index and value), and a scalar (0-d) total.
TEST(UserPipelines, TupleArgmaxAndScalarTotal) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var y("y");
        RDom r(0, in.dim(0).extent(), "r");
        RDom all(0, in.dim(0).extent(), 0, in.dim(1).extent(), "all");
        Func am("am"), idx("idx"), best("best"), total("total");
        am(y) = argmax(in(r, y));
        idx(y) = am(y)[0];
        best(y) = am(y)[1];
        total() = sum(in(all.x, all.y));
        in.set_estimates({{0, 1000}, {0, 700}});
        idx.set_estimates({{0, 700}});
        best.set_estimates({{0, 700}});
        std::string plan = schedule_with_solder({idx, best, total}, target);
        Pipeline p({idx, best, total});
        p.compile_jit(jit_target(target));
        for (auto [w, h] : sizes_with(1000, 700)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 6, -1, 1);
            in.set(a);
            Buffer<int> oi(h);
            Buffer<float> ob(h);
            Buffer<float> ot = Buffer<float>::make_scalar();
            p.realize({oi, ob, ot}, jit_target(target));
            oi.copy_to_host(), ob.copy_to_host(), ot.copy_to_host();
            std::vector<int> ri(h);
            double t = 0;
            for (int j = 0; j < h; j++) {
                for (int i = 0; i < w; i++) {
                    if (a(i, j) > a(ri[j], j)) ri[j] = i;
                    t += a(i, j);
                }
            }
            EXPECT_TRUE(matches(
                oi, [&](auto &q) { return ri[q[0]]; }, 0))
                << plan;
            EXPECT_TRUE(matches(
                ob, [&](auto &q) { return a(ri[q[0]], q[0]); }, 0))
                << plan;
            EXPECT_NEAR(ot(), t, 1e-3 * (1 + std::abs(t))) << plan;
        }
    });
}

// f = f * 0.5 + in over an RDom: Halide cannot prove the update associative, so it cannot be split.
TEST(UserPipelines, NonAssociativeUpdate) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x");
        RDom r(0, in.dim(0).extent(), "r");
        Func f("f");
        f(x) = 0.0f;
        f(x) = f(x) * 0.5f + in(r, x);
        in.set_estimates({{0, 4096}, {0, 1024}});
        f.set_estimates({{0, 1024}});
        std::string plan = schedule_with_solder({f}, target);
        EXPECT_NE(plan.find("cannot prove its update associative"), std::string::npos) << plan;
        Pipeline p = compiled({f}, target);
        for (auto [w, h] : sizes_with(4096, 1024)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 7);
            in.set(a);
            Buffer<float> o = realized<float>(p, {h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    float v = 0;
                    for (int i = 0; i < w; i++) v = v * 0.5f + a(i, q[0]);
                    return v;
                },
                1e-5))
                << plan;
        }
    });
}

// Reductions the fused templates cannot split, each read one to one by the output: a triangular
// sum (an RDom::where predicate on a pure var), a sum with a second update of its own, and a decay
// Halide cannot prove associative. Each is computed per point in the output's threads (the
// pointwise template), not stored by a generic kernel of its own: measured on the H100, a user's
// triangular prefix and suffix sums of a 512 x 256 image took 76 us in three kernels, and Halide's
// Mullapudi2016 computed them in one in 33.
TEST(UserPipelines, GenericReductionsReadOneToOneAreComputedInTheirReadersThreads) {
    ImageParam in(Float(32), 2, "in");
    Param<int> taps("taps");
    Var x("x"), y("y");
    RDom r(0, in.dim(0).extent(), "r");
    r.where(r <= x);
    Func prefix("prefix"), colmax("colmax"), decay("decay"), out("out");
    prefix(x, y) = 0.0f;
    prefix(x, y) += in(r, y);
    RDom k(0, taps, "k");
    colmax(x, y) = 0.0f;
    colmax(x, y) += in(x, clamp(y + k, 0, in.dim(1).extent() - 1));
    colmax(x, y) = max(colmax(x, y), in(x, y));
    RDom d(0, taps, "d");
    decay(x, y) = 0.0f;
    decay(x, y) = decay(x, y) * 0.5f + in(clamp(x + d, 0, in.dim(0).extent() - 1), y);
    out(x, y) = prefix(x, y) + 0.25f * colmax(x, y) - decay(x, y);
    in.set_estimates({{0, 512}, {0, 256}});
    taps.set_estimate(8);
    out.set_estimates({{0, 512}, {0, 256}});
    solder::autosched::Plan plan = plan_for({out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name(), "pointwise") << plan.to_text();
    for (const char *f : {"prefix", "colmax", "decay"}) {
        bool said = false;
        for (auto &e : plan.explanations)
            said |= e.producer.rfind(f, 0) == 0 &&  // (as written, or with Halide's "$N" where built twice)
                    e.reason.find("computed per point in the threads of out") != std::string::npos;
        EXPECT_TRUE(said) << f << "\n" << plan.to_text();
    }
    for_each_target([&](const std::string &target) {
        std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(512, 256))
            for (int t : {8, 1, 3}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " taps " + std::to_string(t));
                auto a = random_buffer<float>({w, h}, 21, -1, 1);
                in.set(a);
                taps.set(t);
                Buffer<float> o = realized<float>(p, {w, h}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        const int X = q[0], Y = q[1];
                        double pre = 0, col = 0, dec = 0;
                        for (int i = 0; i <= X; i++) pre += a(i, Y);
                        for (int i = 0; i < t; i++) col += a(X, std::min(Y + i, h - 1));
                        col = std::max(col, double(a(X, Y)));
                        for (int i = 0; i < t; i++) dec = dec * 0.5 + a(std::min(X + i, w - 1), Y);
                        return pre + 0.25 * col - dec;
                    },
                    1e-4))
                    << text;
            }
    });
}

// An argmin down each column (a Tuple update Halide cannot prove associative), read one to one by
// the output: computed in the output's threads, in blocks of fewer threads than 256 (1024 columns
// give 4 blocks of 256 for 132 SMs), and its walk unrolled on a GPU. Measured on the H100 with
// columns of 4096: 356 us in 4 blocks of 256, 180 us in 32 blocks of 32 unrolled, 191 us as a
// generic root. Columns of 1000 here: folds of more than 1024 points are cut into chunks first
// (autosched/ordered_folds.h, OrderedFolds.*).
TEST(UserPipelines, ColumnArgminsReadOneToOneTakeSmallBlocksAndUnrolledWalks) {
    ImageParam in(Float(32), 2, "in");
    // The pipeline, defined afresh for each target (schedules accumulate on a Func).
    auto define = [&] {
        Var x("x");
        RDom c(0, in.dim(1).extent(), "c");
        Func am("am"), out("out");
        am(x) = Tuple(0, std::numeric_limits<float>::infinity());
        am(x) = select(in(x, c) < am(x)[1], Tuple(c.x, in(x, c)), am(x));
        out(x) = cast<float>(am(x)[0]) + am(x)[1];
        out.set_estimates({{0, 1024}});
        return out;
    };
    in.set_estimates({{0, 1024}, {0, 1000}});
    solder::autosched::Plan plan = plan_for({define()}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    const auto &pw = params_of<solder::autosched::PointwiseParams>(plan.kernels[0], "pointwise");
    EXPECT_LT(pw.threads_x, 256) << plan.to_text();
    EXPECT_GE(pw.threads_x, 32) << plan.to_text();  // a warp's loads of neighbouring columns coalesce
    EXPECT_NE(schedule_with_solder({define()}, "cuda").find(".update(0).unroll(c_x, 8"), std::string::npos);
    for_each_target([&](const std::string &target) {
        Func out = define();
        std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1024, 1000)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            // Few distinct values: ties, where the first minimum must win.
            auto a = random_buffer<float>({w, h}, 23, 0, 8);
            a.for_each_value([](float &v) { v = std::floor(v); });
            in.set(a);
            Buffer<float> o = realized<float>(p, {w}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int best = 0;
                    for (int i = 1; i < h; i++)
                        if (a(q[0], i) < a(q[0], best)) best = i;
                    return double(best) + a(q[0], best);
                },
                0))
                << text;
        }
    });
}

// Halide's inline argmax along each row (its Tuple update is not provably associative either):
// each thread walks a row of its own, so a warp's loads touch as many rows as it has threads and
// nothing is shared in a block; blocks of fewer threads than a warp spread the walks over the SMs.
// Measured on the H100, 512 rows of 32000 f32: 2528 us in 16 blocks of 32 threads (Anderson2021's
// 512 blocks of one thread: 1471 us). The column form above keeps whole warps. With more rows the
// blocks stay small until there are kOwnRowBlocksPerSm (8) per SM: 4096 rows in blocks of 2.
// (plan_for plans the pipeline as written. Through autoschedule, as the runs below, rows of more
// than 1024 points are first cut into chunks folded in order: autosched/ordered_folds.h.)
TEST(UserPipelines, RowArgmaxesTakeBlocksBelowAWarp) {
    ImageParam in(Float(32), 2, "in");
    auto define = [&](int rows = 256) {
        Var y("y");
        RDom r(0, in.dim(0).extent(), "r");
        Func out("out");
        out(y) = argmax(in(r, y))[0];
        out.set_estimates({{0, rows}});
        return out;
    };
    for (int rows : {256, 4096}) {
        in.set_estimates({{0, 8192}, {0, rows}});
        solder::autosched::Plan plan = plan_for({define(rows)}, {}, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        const int threads = params_of<solder::autosched::PointwiseParams>(plan.kernels[0], "pointwise").threads_x;
        EXPECT_EQ(threads, rows == 256 ? 1 : 2) << plan.to_text();
    }
    in.set_estimates({{0, 8192}, {0, 256}});
    for_each_target([&](const std::string &target) {
        Func out = define();
        std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(8192, 256)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 29, 0, 16);
            a.for_each_value([](float &v) { v = std::floor(v); });  // ties: the first maximum wins
            in.set(a);
            Buffer<int> o = realized<int>(p, {h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int best = 0;
                    for (int i = 1; i < w; i++)
                        if (a(i, q[0]) > a(best, q[0])) best = i;
                    return double(best);
                },
                0))
                << text;
        }
    });
}

// A weighted sum over the input's channels (an RDom over its extent), read by every channel of a
// 4-D output beside a stencil along rows: fused into the output's kernel, each thread walks the
// channels and computes the sum once for them all (not stored: measured on the H100, a user's
// version of 640 x 480 x 3 x 8 stored it, 109 MB moved against 59 fused).
TEST(UserPipelines, AChannelSumReadByEveryChannelIsComputedOncePerThread) {
    ImageParam in(Float(32), 4, "in");
    ImageParam wt(Float(32), 1, "wt");
    auto define = [&](int w = 640, int h = 480) {
        Var x("x"), y("y"), c("c"), n("n");
        RDom rc(0, in.dim(2).extent(), "rc");
        Func lum("lum"), out("out");
        lum(x, y, n) = sum(in(x, y, rc, n) * wt(rc));
        Func e = BoundaryConditions::repeat_edge(in);
        out(x, y, c, n) = (e(x - 1, y, c, n) + e(x + 1, y, c, n)) / (1.0f + lum(x, y, n) * lum(x, y, n));
        out.set_estimates({{0, w}, {0, h}, {0, 3}, {0, 8}});
        return out;
    };
    in.set_estimates({{0, 640}, {0, 480}, {0, 3}, {0, 8}});
    wt.set_estimates({{0, 3}});
    solder::autosched::Plan plan = plan_for({define()}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(params_of<solder::autosched::PointwiseParams>(plan.kernels[0], "pointwise").serial_dim, 2)
        << plan.to_text();
    {
        // Rows narrower than a block of 256 at the estimates walk the channels too (no 2-D tile).
        solder::autosched::Plan np = plan_for({define(64, 48)}, {}, true);
        ASSERT_EQ(np.kernels.size(), 1u) << np.to_text();
        EXPECT_EQ(params_of<solder::autosched::PointwiseParams>(np.kernels[0], "pointwise").serial_dim, 2)
            << np.to_text();
    }
    const std::string cuda = schedule_with_solder({define()}, "cuda");
    EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(sum\w*\.compute_at\(out\w*, out\w*_tx\))"))) << cuda;
    bool said = false;
    for (auto &e : plan.explanations) said |= e.reason.find("computed once in each thread of out") == 0;
    EXPECT_TRUE(said) << plan.to_text();
    for_each_target([&](const std::string &target) {
        Func out = define();
        std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        // (More channels than the estimate, one, and sizes no tile divides.)
        for (std::vector<int> sz : {std::vector<int>{37, 29, 3, 2}, {300, 7, 5, 3}, {1, 1, 1, 1}, {33, 2, 1, 4}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + "x" + std::to_string(sz[2]) + "x" +
                         std::to_string(sz[3]));
            auto a = random_buffer<float>(sz, 31, -1, 1);
            auto w = random_buffer<float>({sz[2]}, 37, 0, 1);
            in.set(a);
            wt.set(w);
            Buffer<float> o = realized<float>(p, sz, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double l = 0;
                    for (int r = 0; r < sz[2]; r++) l += double(a(q[0], q[1], r, q[3])) * double(w(r));
                    auto at = [&](int x) { return double(a(std::clamp(x, 0, sz[0] - 1), q[1], q[2], q[3])); };
                    return (at(q[0] - 1) + at(q[0] + 1)) / (1.0 + l * l);
                },
                1e-5))
                << text;
        }
    });
}

// A blur over a mirrored boundary of a transposed, clamped input. Halide bounds a mirrored
// coordinate by both branches of its select, so the clamped input's region per tile is the whole
// image: counted so, each tile would recompute the image, and the plan stored a copy of the input
// instead (measured on the H100 for a user's 1920 x 1080 version: 31.6 us in two kernels against
// 25.3 in one; Anderson2021 25.7). The cost model counts the calls made of it instead.
TEST(UserPipelines, AMirroredBoundaryIsNotCountedAsTheWholeImagePerTile) {
    ImageParam in(Float(32), 2, "in");
    auto define = [&] {
        Var x("x"), y("y");
        Func c = BoundaryConditions::repeat_edge(in);
        Func t("t"), bx("bx"), out("out");
        t(x, y) = c(y, x);
        Func m = BoundaryConditions::mirror_interior(
            t, {{in.dim(1).min(), in.dim(1).extent()}, {in.dim(0).min(), in.dim(0).extent()}});
        bx(x, y) = (m(x - 1, y) + 2.0f * m(x, y) + m(x + 1, y)) * 0.25f;
        out(x, y) = (bx(x, y - 1) + 2.0f * bx(x, y) + bx(x, y + 1)) * 0.25f;
        out.set_estimates({{0, 1080}, {0, 1920}});
        return out;
    };
    in.set_estimates({{0, 1920}, {0, 1080}});
    solder::autosched::Plan plan = plan_for({define()}, {}, true);
    EXPECT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_TRUE(plan.materialized.empty()) << plan.to_text();
    for_each_target([&](const std::string &target) {
        Func out = define();
        std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 47, -1, 1);
            in.set(a);
            Buffer<float> o = realized<float>(p, {h, w}, target);
            // (Mirrored without repeating the edge: -1 -> 1, n -> n - 2; one point stays itself.)
            auto mirror = [](int i, int n) {
                if (n == 1) return 0;
                while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
                return i;
            };
            auto tv = [&](int i, int j) { return double(a(mirror(j, w), mirror(i, h))); };
            auto bxv = [&](int i, int j) { return (tv(i - 1, j) + 2 * tv(i, j) + tv(i + 1, j)) * 0.25; };
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return (bxv(q[0], q[1] - 1) + 2 * bxv(q[0], q[1]) + bxv(q[0], q[1] + 1)) * 0.25; },
                1e-5))
                << text;
        }
    });
}

// Funcs the author specialized before auto-scheduling, on a scalar parameter: the output (its
// stencil producer computed per tile, so the producer is computed at loops that must exist in every
// branch) and a pointwise Func the plan would otherwise inline (Halide cannot inline a Func with
// specializations). Every branch is scheduled alike (on a GPU each runs in blocks of threads) and
// matches plain loops at each parameter value and at sizes the tiles do not divide.
TEST(UserPipelines, FuncsSpecializedByTheirAuthor) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Param<int> mode("mode");
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func scaled("scaled"), bx("bx"), out("out");
        scaled(x, y) = select(mode > 0, clamped(x, y) * 2.0f, clamped(x, y));
        scaled.specialize(mode > 0);
        bx(x, y) = scaled(x - 1, y) + scaled(x, y) + scaled(x + 1, y);
        out(x, y) = select(mode == 0, bx(x, y - 1) + bx(x, y + 1), mode == 1, bx(x, y) * 3.0f, bx(x, y));
        out.specialize(mode == 0);
        out.specialize(mode == 1);
        mode.set_estimate(0);
        in.set_estimates({{0, 512}, {0, 256}});
        out.set_estimates({{0, 512}, {0, 256}});
        std::string plan = schedule_with_solder({out}, target);
        EXPECT_NE(plan.find(": it has specializations (Func::specialize), so Halide cannot inline it"),
                  std::string::npos)
            << plan;
        EXPECT_NE(plan.find(" has specializations made before scheduling: each directive"), std::string::npos) << plan;
        if (target != "host") {
            for (const auto &sp : out.function().definition().specializations()) {
                bool blocks = false;
                for (auto &d : sp.definition.schedule().dims())
                    blocks = blocks || d.for_type == Internal::ForType::GPUBlock;
                EXPECT_TRUE(blocks) << "a specialization of out runs without GPU blocks\n" << plan;
            }
        }
        Pipeline p = compiled({out}, target);
        for (int m : {0, 1, 2}) {
            for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 256}, {37, 29}, {1, 1}}) {
                SCOPED_TRACE("mode " + std::to_string(m) + " at " + std::to_string(w) + "x" + std::to_string(h));
                auto img = random_buffer<float>({w, h}, 5);
                in.set(img);
                mode.set(m);
                Buffer<float> o = realized<float>(p, {w, h}, target);
                auto sc = [&](int i, int j) {
                    double v = img(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1));
                    return m > 0 ? 2 * v : v;
                };
                auto b = [&](int i, int j) { return sc(i - 1, j) + sc(i, j) + sc(i + 1, j); };
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        return m == 0   ? b(q[0], q[1] - 1) + b(q[0], q[1] + 1)
                               : m == 1 ? 3 * b(q[0], q[1])
                                        : b(q[0], q[1]);
                    },
                    1e-5))
                    << plan;
            }
        }
    });
}

// Funcs whose every use simplifies away (`0 * f(x)`, `f(x) - f(x)`) are left out of the plan and
// inlined into nothing. Planned as producers computed per tile of the output, beside the stencil
// template's specialization, they crashed Halide's bounds inference (a segfault in compile_jit).
TEST(UserPipelines, FuncsWhoseUsesSimplifyAwayAreLeftOut) {
    for_each_target([](const std::string &target) {
        ImageParam in(Int(32), 2, "in");
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func g("unused_g"), mc("unused_mc"), out("out");
        g(x, y) = clamped(x - 1, y) + clamped(x + 1, y);
        mc(x, y) = g(x, y - 1) + g(x, y + 1);
        out(x, y) = clamped(x, y) * 3 + 0 * mc(x - 1, y) * mc(x + 1, y) + (mc(x, y) - mc(x, y));
        in.set_estimates({{0, 160}, {0, 120}});
        out.set_estimates({{0, 160}, {0, 120}});
        std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find("unused_"), std::string::npos) << plan;
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{160, 120}, {37, 29}, {1, 1}}) {
            Buffer<int> img(w, h);
            img.for_each_element([&](int i, int j) { img(i, j) = (i * 7 + j * 13) % 101; });
            img.set_host_dirty();
            in.set(img);
            Buffer<int> o = realized<int>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return 3 * img(q[0], q[1]); }, 0))
                << plan;
        }
    });
}

// A tone curve as a 256-entry lookup table read at each pixel's value, then a sharpening stencil
// over a constant exterior, with a select on the result: 16-bit output.
TEST(UserPipelines, ToneCurveLookupAndSharpen) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(8), 2, "in");
        Var x("x"), y("y"), i("i");
        Func lut("lut"), toned("toned"), out("out");
        lut(i) = cast<uint16_t>(clamp(pow(cast<float>(i) / 255.0f, 1 / 2.2f) * 1023.0f + 0.5f, 0.0f, 1023.0f));
        toned(x, y) = lut(cast<int>(in(x, y)));
        Func ext = BoundaryConditions::constant_exterior(toned, cast<uint16_t>(0),
                                                         {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
        Expr s = 5 * cast<int>(ext(x, y)) - cast<int>(ext(x - 1, y)) - cast<int>(ext(x + 1, y)) -
                 cast<int>(ext(x, y - 1)) - cast<int>(ext(x, y + 1));
        out(x, y) = cast<uint16_t>(select(s<0, 0, s> 4095, 4095, s));
        in.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1920, 1080)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<uint8_t>({w, h}, 8, 0, 256);
            in.set(img);
            Buffer<uint16_t> o = realized<uint16_t>(p, {w, h}, target);
            auto tone = [&](int a, int b) -> int {
                if (a < 0 || b < 0 || a >= w || b >= h) return 0;
                float v = std::pow(float(img(a, b)) / 255.0f, 1 / 2.2f) * 1023.0f + 0.5f;
                return int(uint16_t(std::clamp(v, 0.0f, 1023.0f)));
            };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int a = q[0], b = q[1];
                    int v = 5 * tone(a, b) - tone(a - 1, b) - tone(a + 1, b) - tone(a, b - 1) - tone(a, b + 1);
                    return std::clamp(v, 0, 4095);
                },
                0))
                << plan;
        }
    });
}

// An 8-level pyramid: each level the 2x2 average of the one below (clamped to its size), then
// collapsed back up, each level adding half the upsampled coarser one.
TEST(UserPipelines, EightLevelPyramid) {
    constexpr int L = 8;
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        std::vector<Func> down(L), up(L);
        std::vector<Expr> W(L), H(L);
        W[0] = in.dim(0).extent(), H[0] = in.dim(1).extent();
        down[0] = BoundaryConditions::repeat_edge(in);
        for (int l = 1; l < L; l++) {
            W[l] = max(1, W[l - 1] / 2), H[l] = max(1, H[l - 1] / 2);
            Func c("clamped_" + std::to_string(l - 1));
            c(x, y) = down[l - 1](clamp(x, 0, W[l - 1] - 1), clamp(y, 0, H[l - 1] - 1));
            down[l] = Func("down_" + std::to_string(l));
            down[l](x, y) = (c(2 * x, 2 * y) + c(2 * x + 1, 2 * y) + c(2 * x, 2 * y + 1) + c(2 * x + 1, 2 * y + 1)) / 4;
        }
        up[L - 1] = down[L - 1];
        for (int l = L - 2; l >= 0; l--) {
            up[l] = Func("up_" + std::to_string(l));
            up[l](x, y) =
                down[l](x, y) + 0.5f * up[l + 1](clamp(x / 2, 0, W[l + 1] - 1), clamp(y / 2, 0, H[l + 1] - 1));
        }
        Func out("out");
        out(x, y) = up[0](x, y);
        in.set_estimates({{0, 2048}, {0, 1536}});
        out.set_estimates({{0, 2048}, {0, 1536}});
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(2048, 1536)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 9);
            in.set(img);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            // The reference: levels as arrays of their sizes.
            std::vector<std::vector<double>> d(L);
            std::vector<int> ws(L), hs(L);
            ws[0] = w, hs[0] = h;
            d[0].resize(size_t(w) * h);
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++) d[0][size_t(j) * w + i] = img(i, j);
            for (int l = 1; l < L; l++) {
                ws[l] = std::max(1, ws[l - 1] / 2), hs[l] = std::max(1, hs[l - 1] / 2);
                d[l].resize(size_t(ws[l]) * hs[l]);
                auto c = [&](int i, int j) {
                    return d[l - 1]
                            [size_t(std::clamp(j, 0, hs[l - 1] - 1)) * ws[l - 1] + std::clamp(i, 0, ws[l - 1] - 1)];
                };
                for (int j = 0; j < hs[l]; j++)
                    for (int i = 0; i < ws[l]; i++)
                        d[l][size_t(j) * ws[l] + i] =
                            (c(2 * i, 2 * j) + c(2 * i + 1, 2 * j) + c(2 * i, 2 * j + 1) + c(2 * i + 1, 2 * j + 1)) / 4;
            }
            // up[l] at (i, j) for i, j inside level l; up[L-1] = down[L-1] (clamped at its edge).
            std::function<double(int, int, int)> upv = [&](int l, int i, int j) -> double {
                auto dv = [&](int ll, int a, int b) {
                    return d[ll][size_t(std::clamp(b, 0, hs[ll] - 1)) * ws[ll] + std::clamp(a, 0, ws[ll] - 1)];
                };
                if (l == L - 1) return dv(l, i, j);
                return dv(l, i, j) +
                       0.5 * upv(l + 1, std::clamp(i / 2, 0, ws[l + 1] - 1), std::clamp(j / 2, 0, hs[l + 1] - 1));
            };
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return upv(0, q[0], q[1]); }, 1e-4))
                << plan;
        }
    });
}

// An extern stage (define_extern) between two Halide stages: planned around, as a root; the Halide
// stages around it take the fused planner (not the generic template for the whole pipeline), the
// stage it reads stored for it.
extern "C" int solder_test_extern_double(halide_buffer_t *in, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        for (int d = 0; d < 2; d++) in->dim[d] = out->dim[d];
        return 0;
    }
    // On a GPU target the input may be on the device, and the output is read there next.
    Halide::Runtime::Buffer<float> i(*in), o(*out);
    if (i.copy_to_host() != 0) return -1;
    o.for_each_element([&](int a, int b) { o(a, b) = 2 * i(a, b); });
    o.set_host_dirty();
    return 0;
}

// The pipeline of `outputs`, JIT-compiled for `target` with the extern above linked in.
Pipeline with_test_extern(const std::vector<Func> &outputs, const std::string &target) {
    Pipeline p(outputs);
    p.set_jit_externs({{"solder_test_extern_double", JITExtern(solder_test_extern_double)}});
    p.compile_jit(jit_target(target));
    return p;
}

TEST(UserPipelines, ExternStage) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func pre("pre"), ext("ext"), out("out");
        pre(x, y) = in(x, y) + 1;
        ext.define_extern("solder_test_extern_double", {pre}, Float(32), {x, y}, NameMangling::C);
        out(x, y) = ext(x, y) * ext(x, y);
        in.set_estimates({{0, 640}, {0, 480}});
        out.set_estimates({{0, 640}, {0, 480}});
        std::string plan = schedule_with_solder({out}, target);
        EXPECT_NE(plan.find("an extern stage (define_extern): computed by its own code at root"), std::string::npos)
            << plan;
        EXPECT_EQ(plan.find("every Func through the generic template"), std::string::npos) << plan;
        EXPECT_NE(plan.find("an extern stage reads it"), std::string::npos) << plan;
        Pipeline p = with_test_extern({out}, target);
        for (auto [w, h] : sizes_with(640, 480)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 10);
            in.set(img);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double v = 2 * (img(q[0], q[1]) + 1.0);
                    return v * v;
                },
                1e-5))
                << plan;
        }
    });
}

// Extern stages chained (one reads the other) and one of them a pipeline output: both at root, the
// Halide stages around them fused as ever.
TEST(UserPipelines, ChainedExternStagesOneAnOutput) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func pre("pre"), first("first"), second("second"), out("out");
        RDom r(0, in.dim(0).extent(), "r");
        pre(x, y) = in(x, y) + 1;
        first.define_extern("solder_test_extern_double", {pre}, Float(32), {x, y}, NameMangling::C);
        second.define_extern("solder_test_extern_double", {first}, Float(32), {x, y}, NameMangling::C);
        Func mean("mean");
        mean(y) = sum(second(r, y)) / cast<float>(in.dim(0).extent());
        out(x, y) = second(x, y) - mean(y);
        in.set_estimates({{0, 640}, {0, 480}});
        out.set_estimates({{0, 640}, {0, 480}});
        first.set_estimates({{0, 640}, {0, 480}});
        std::string plan = schedule_with_solder({out, first}, target);
        EXPECT_EQ(plan.find("every Func through the generic template"), std::string::npos) << plan;
        Pipeline p = with_test_extern({out, first}, target);
        for (auto [w, h] : sizes_with(640, 480)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 11);
            in.set(img);
            Buffer<float> o(w, h), f(w, h);
            p.realize({o, f}, jit_target(target));
            o.copy_to_host();
            f.copy_to_host();
            EXPECT_TRUE(matches(
                f, [&](auto &q) { return 2 * (img(q[0], q[1]) + 1.0); }, 1e-5))
                << plan;
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double row = 0;
                    for (int i = 0; i < w; i++) row += 4 * (img(i, q[1]) + 1.0);
                    return 4 * (img(q[0], q[1]) + 1.0) - row / w;
                },
                1e-4))
                << plan;
        }
    });
}

// An extern stage that reads a Func of another dimensionality (an image and its per-row gains): the
// region it asks of the 1-D Func is that Func's estimates. Without them the whole pipeline takes the
// generic template, and the plan says what to give; with them the Halide stages are planned around
// the extern. Both run correctly at sizes other than the estimates.
extern "C" int solder_test_extern_row_gain(halide_buffer_t *img, halide_buffer_t *gain, halide_buffer_t *out) {
    if (img->is_bounds_query() || gain->is_bounds_query()) {
        for (int d = 0; d < 2; d++) img->dim[d] = out->dim[d];
        gain->dim[0] = out->dim[1];
        return 0;
    }
    Halide::Runtime::Buffer<float> i(*img), g(*gain), o(*out);
    if (i.copy_to_host() != 0 || g.copy_to_host() != 0) return -1;
    o.for_each_element([&](int a, int b) { o(a, b) = i(a, b) * g(b); });
    o.set_host_dirty();
    return 0;
}

// Each row's mean of a 2-D Func, `width` wide (an extern cannot know its input's width in a bounds
// query): a 1-D extern that another extern reads.
extern "C" int solder_test_extern_row_mean(halide_buffer_t *in, int width, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        in->dim[0].min = 0;
        in->dim[0].extent = width;
        in->dim[1] = out->dim[0];
        return 0;
    }
    Halide::Runtime::Buffer<float> i(*in), o(*out);
    if (i.copy_to_host() != 0) return -1;
    o.for_each_element([&](int y) {
        double s = 0;
        for (int x = 0; x < width; x++) s += i(x, y);
        o(y) = float(s / width);
    });
    o.set_host_dirty();
    return 0;
}

// The two tests below compute out(x, y) = 2 (in(x, y) + 1) times the mean of row y of in + `offset`:
// checked at sizes other than the estimate (640 x 480).
void expect_twice_scaled_by_row_means(Pipeline &p, ImageParam &in, const std::string &target, const std::string &plan,
                                      uint32_t seed, double offset) {
    for (auto [w, h] : sizes_with(640, 480)) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        auto img = random_buffer<float>({w, h}, seed);
        in.set(img);
        Buffer<float> o = realized<float>(p, {w, h}, target);
        EXPECT_TRUE(matches(
            o,
            [&](auto &q) {
                double row = 0;
                for (int i = 0; i < w; i++) row += img(i, q[1]) + offset;
                return 2 * (img(q[0], q[1]) + 1.0) * (row / w);
            },
            1e-4))
            << plan;
    }
}

TEST(UserPipelines, ExternStageReadingAFuncOfOtherDims) {
    for_each_target([](const std::string &target) {
        for (bool estimated : {false, true}) {
            SCOPED_TRACE(estimated ? "gains estimated" : "gains not estimated");
            ImageParam in(Float(32), 2, "in");
            Var x("x"), y("y");
            Func pre("pre"), gain("gain"), ext("ext"), out("out");
            RDom r(0, in.dim(0).extent(), "r");
            pre(x, y) = in(x, y) + 1;
            gain(y) = sum(in(r, y)) / cast<float>(in.dim(0).extent());
            ext.define_extern("solder_test_extern_row_gain", {pre, gain}, Float(32), {x, y}, NameMangling::C);
            out(x, y) = ext(x, y) * 2;
            in.set_estimates({{0, 640}, {0, 480}});
            out.set_estimates({{0, 640}, {0, 480}});
            if (estimated) gain.set_estimates({{0, 480}});
            const std::string plan = schedule_with_solder({out}, target);
            if (estimated) {
                EXPECT_EQ(plan.find("every Func through the generic template"), std::string::npos) << plan;
                EXPECT_NE(plan.find("an extern stage reads it"), std::string::npos) << plan;
            } else {
                // (Func names: 'gain', 'gain$1', ... as the loops build them again.)
                EXPECT_NE(plan.find("of another dimensionality (1 dims, the extern 2): Solder cannot tell the region "
                                    "the extern asks of it; give '" +
                                    gain.name() + "' estimates for that region (Func::set_estimates)"),
                          std::string::npos)
                    << plan;
            }
            Pipeline p(out);
            p.set_jit_externs({{"solder_test_extern_row_gain", JITExtern(solder_test_extern_row_gain)}});
            p.compile_jit(jit_target(target));
            expect_twice_scaled_by_row_means(p, in, target, plan, 12, 0.0);
        }
    });
}

// Externs of different dimensionalities chained (a 2-D extern reads a 1-D one, which reads a 2-D
// Func), both Funcs with estimates: planned around both externs.
TEST(UserPipelines, ChainedExternStagesOfOtherDims) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func pre("pre"), means("means"), scaled("scaled"), out("out");
        pre(x, y) = in(x, y) + 1;
        means.define_extern("solder_test_extern_row_mean", {pre, in.dim(0).extent()}, Float(32), {y}, NameMangling::C);
        scaled.define_extern("solder_test_extern_row_gain", {pre, means}, Float(32), {x, y}, NameMangling::C);
        out(x, y) = scaled(x, y) * 2;
        in.set_estimates({{0, 640}, {0, 480}});
        out.set_estimates({{0, 640}, {0, 480}});
        pre.set_estimates({{0, 640}, {0, 480}});
        means.set_estimates({{0, 480}});
        const std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find("every Func through the generic template"), std::string::npos) << plan;
        Pipeline p(out);
        p.set_jit_externs({{"solder_test_extern_row_mean", JITExtern(solder_test_extern_row_mean)},
                           {"solder_test_extern_row_gain", JITExtern(solder_test_extern_row_gain)}});
        p.compile_jit(jit_target(target));
        expect_twice_scaled_by_row_means(p, in, target, plan, 14, 1.0);
    });
}

// An arg-max over an image to one result: Halide's inline argmax cannot be proven associative, so
// Solder cuts it into chunks folded in order (autosched/ordered_folds.h, OrderedFolds.*) and the plan
// says so; written in the form Halide proves, it is split across threads (a total reduction) and
// matches a reference walk at sizes other than the estimate.
TEST(UserPipelines, ArgMaxInTheFormHalideProvesIsSplitAcrossThreads) {
    for_each_target([](const std::string &target) {
        {
            ImageParam in(Float(32), 2, "in");
            RDom q(0, in.dim(0).extent(), 0, in.dim(1).extent(), "q");
            Func best("best");
            best() = argmax(q, in(q.x, q.y));
            in.set_estimates({{0, 1024}, {0, 768}});
            const std::string plan = schedule_with_solder({best}, target);
            EXPECT_NE(plan.find(": an arg-max or arg-min fold Halide cannot split"), std::string::npos) << plan;
        }
        ImageParam in(Float(32), 2, "in");
        RDom q(0, in.dim(0).extent(), 0, in.dim(1).extent(), "q");
        Func best("best");
        best() = Tuple(in.type().min(), 0, 0);
        Expr v = in(q.x, q.y), old = best()[0];
        best() = Tuple(max(old, v), select(old > v, best()[1], q.x), select(old > v, best()[2], q.y));
        in.set_estimates({{0, 1024}, {0, 768}});
        const std::string plan = schedule_with_solder({best}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[total_reduction"), std::string::npos) << plan;
        }
        EXPECT_EQ(plan.find("cannot prove"), std::string::npos) << plan;
        Pipeline p(best);
        p.compile_jit(jit_target(target));
        for (auto [w, h] : sizes_with(1024, 768)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 13, -1, 1);
            in.set(img);
            Buffer<float> value = Buffer<float>::make_scalar();
            Buffer<int> bx = Buffer<int>::make_scalar(), by = Buffer<int>::make_scalar();
            p.realize({value, bx, by}, jit_target(target));
            value.copy_to_host();
            bx.copy_to_host();
            by.copy_to_host();
            float want = -INFINITY;
            int wx = 0, wy = 0;
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++)
                    if (img(i, j) >= want) want = img(i, j), wx = i, wy = j;  // (ties: the later point)
            EXPECT_EQ(value(), want) << plan;
            EXPECT_EQ(bx(), wx) << plan;
            EXPECT_EQ(by(), wy) << plan;
        }
    });
}

// Estimates stay the user's to give: a missing or zero one is an error naming what lacks it.
TEST(UserPipelines, MissingOrZeroEstimatesAreClearErrors) {
    auto error_of = [](auto build) {
        try {
            build();
        } catch (const std::exception &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string e1 = error_of([] {
        ImageParam in(Float(32), 2, "in");
        Param<int> n("n");
        Var x("x");
        RDom r(0, n, "r");
        Func f("f");
        f(x) = sum(in(x, r));
        in.set_estimates({{0, 64}, {0, 64}});
        f.set_estimates({{0, 64}});
        schedule_with_solder({f}, "host");
    });
    EXPECT_NE(e1.find("parameter 'n'"), std::string::npos) << e1;
    EXPECT_NE(e1.find("set_estimate"), std::string::npos) << e1;
    std::string e2 = error_of([] {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = in(x, y) * 2;
        in.set_estimates({{0, 64}, {0, 0}});
        f.set_estimates({{0, 64}, {0, 64}});
        schedule_with_solder({f}, "host");
    });
    EXPECT_NE(e2.find("input 'in'"), std::string::npos) << e2;
    EXPECT_NE(e2.find("dimension 1"), std::string::npos) << e2;
    EXPECT_NE(e2.find("at least 1"), std::string::npos) << e2;
    std::string e3 = error_of([] {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = in(x, y) * 2;
        in.set_estimates({{0, 64}, {0, 64}});
        schedule_with_solder({f}, "host");
    });
    EXPECT_NE(e3.find("output Func 'f"), std::string::npos) << e3;
    EXPECT_NE(e3.find("set_estimates"), std::string::npos) << e3;
    // A histogram read at data-dependent points: it has updates, so it cannot be inlined, and the
    // points its updates write are data-dependent too.
    std::string e4 = error_of([] {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        Func hist("hist"), f("f");
        hist(x) = 0;
        hist(cast<int>(in(r.x, r.y) * 10.0f)) += 1;
        f(x, y) = hist(cast<int>(in(x, y) * 10.0f));
        in.set_estimates({{0, 64}, {0, 64}});
        f.set_estimates({{0, 64}, {0, 64}});
        schedule_with_solder({f}, "host");
    });
    EXPECT_NE(e4.find("'hist' has no estimates"), std::string::npos) << e4;
    EXPECT_NE(e4.find("set_estimates"), std::string::npos) << e4;
    // Estimates no device holds (an extent given where a size in bytes was meant, or 2^30 in each
    // of three dims): an error naming the Func, not a plan with byte counts past int64.
    std::string e5 = error_of([] {
        ImageParam in(Float(32), 3, "in");
        Var x("x"), y("y"), c("c");
        Func f("f");
        f(x, y, c) = in(x, y, c) + in(x + 1, y, c);
        in.set_estimates({{0, 1 << 30}, {0, 1 << 30}, {0, 3}});
        f.set_estimates({{0, (1 << 30) - 1}, {0, 1 << 30}, {0, 3}});
        schedule_with_solder({f}, "cuda");
    });
    EXPECT_NE(e5.find("'in' spans"), std::string::npos) << e5;
    EXPECT_NE(e5.find("more than any device holds"), std::string::npos) << e5;
    std::string e6 = error_of([] {
        ImageParam in(Float(32), 1, "in");
        Param<int> n("n");
        Var x("x");
        RDom r(0, n, 0, n, "r");
        Func f("f");
        f(x) = sum(in(x + r.x + r.y));
        in.set_estimates({{0, 1 << 20}});
        n.set_estimate(1 << 30);
        f.set_estimates({{0, 64}});
        schedule_with_solder({f}, "cuda");
    });
    EXPECT_NE(e6.find("the RDom of Func"), std::string::npos) << e6;
}

// A dim the author bounded (Func::bound: an image's three channels) counts as that dim's
// estimate: with set_estimates for every dim too (Halide then records the channels twice), and
// without one for the bounded dim (set_estimate for the others only).
TEST(UserPipelines, BoundedDimsServeAsEstimates) {
    for_each_target([](const std::string &target) {
        for (bool all_estimated : {true, false}) {
            SCOPED_TRACE(all_estimated ? "every dim estimated" : "the channels bounded only");
            ImageParam in(UInt(8), 3, "in");
            Var x("x"), y("y"), c("c");
            Func luma("luma"), out("out");
            luma(x, y) = 0.25f * in(x, y, 0) + 0.5f * in(x, y, 1) + 0.25f * in(x, y, 2);
            out(x, y, c) = cast<uint8_t>(clamp(luma(x, y) * (c + 1) / 3, 0.0f, 255.0f));
            out.bound(c, 0, 3);
            in.dim(2).set_bounds(0, 3);
            if (all_estimated) {
                in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
                out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
            } else {
                in.dim(0).set_estimate(0, 1920);
                in.dim(1).set_estimate(0, 1080);
                out.set_estimate(x, 0, 1920).set_estimate(y, 0, 1080);
            }
            {
                const auto g = solder::autosched::FuncGraph::build({out});
                const auto &n = g.nodes[size_t(g.find(out.name()))];
                ASSERT_EQ(n.region.size(), 3u);
                EXPECT_EQ(n.region[0].extent(), 1920);
                EXPECT_EQ(n.region[1].extent(), 1080);
                EXPECT_EQ(n.region[2].extent(), 3);
            }
            const std::string plan = schedule_with_solder({out}, target);
            Pipeline p = compiled({out}, target);
            auto img = random_buffer<uint8_t>({37, 29, 3}, 3, 0, 255);
            in.set(img);
            Buffer<uint8_t> o = realized<uint8_t>(p, {37, 29, 3}, target);
            for (int yy = 0; yy < 29; yy++)
                for (int xx = 0; xx < 37; xx++)
                    for (int cc = 0; cc < 3; cc++) {
                        const float l = 0.25f * img(xx, yy, 0) + 0.5f * img(xx, yy, 1) + 0.25f * img(xx, yy, 2);
                        ASSERT_EQ(int(o(xx, yy, cc)), int(uint8_t(std::clamp(l * float(cc + 1) / 3, 0.0f, 255.0f))))
                            << xx << "," << yy << "," << cc << "\n"
                            << plan;
                    }
        }
    });
}

// A stencil tile planned for 256 x 64 and run at sizes that are no whole number of tiles, and
// smaller than one tile in either dim: shifted edge tiles only where the output spans a tile.
TEST(UserPipelines, StencilTilesAtAnySize) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func bx("bx"), out("out");
        bx(x, y) = clamped(x - 1, y) + 2.0f * clamped(x, y) + clamped(x + 1, y);
        out(x, y) = bx(x, y - 1) + 2.0f * bx(x, y) + bx(x, y + 1);
        in.set_estimates({{0, 256}, {0, 64}});
        out.set_estimates({{0, 256}, {0, 64}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("stencil_tile"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{256, 64}, {31, 64}, {1000, 7}, {3, 3}, {1, 1}, {97, 45}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto img = random_buffer<float>({w, h}, 11);
            in.set(img);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            auto at = [&](int i, int j) { return double(img(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))); };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    auto row = [&](int yy) { return at(q[0] - 1, yy) + 2 * at(q[0], yy) + at(q[0] + 1, yy); };
                    return row(q[1] - 1) + 2 * row(q[1]) + row(q[1] + 1);
                },
                1e-5))
                << plan;
        }
    });
}

// The same blur with no boundary condition: the input is the output's size plus the stencil's
// border (min -1), and the output may start anywhere. Every size runs, those narrower than a tile
// too: before, the edge tiles shifted inwards in a specialization made Halide ask for input rows
// before the output's (over both branches), and a 33 x 1 output failed its bounds check ("accessed
// at -3, which is before the min (-1)"). The plan says why the tiles are guarded.
TEST(UserPipelines, StencilsOfAnUnclampedInputAtAnySize) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func bx("bx"), out("out");
        bx(x, y) = in(x - 1, y) + 2.0f * in(x, y) + in(x + 1, y);
        out(x, y) = bx(x, y - 1) + 2.0f * bx(x, y) + bx(x, y + 1);
        in.set_estimates({{-1, 258}, {-1, 66}});
        out.set_estimates({{0, 256}, {0, 64}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("stencil_tile, edge tiles guarded: it reads an input unclamped"), std::string::npos)
                << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h, x0, y0] : std::vector<std::tuple<int, int, int, int>>{
                 {256, 64, 0, 0}, {33, 1, 5, 0}, {37, 5, -7, 3}, {1, 1, 100, -50}, {31, 40, 0, 0}, {97, 45, -3, -9}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " at " + std::to_string(x0) + ", " +
                         std::to_string(y0));
            auto img = random_buffer<float>({w + 2, h + 2}, 11);
            img.set_min(x0 - 1, y0 - 1);
            in.set(img);
            Buffer<float> o(w, h);
            o.set_min(x0, y0);
            p.realize(o, jit_target(target));
            o.copy_to_host();
            auto row = [&](int i, int j) {
                return double(img(i - 1, j)) + 2 * double(img(i, j)) + double(img(i + 1, j));
            };
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return row(q[0], q[1] - 1) + 2 * row(q[0], q[1]) + row(q[0], q[1] + 1); }, 1e-5))
                << plan;
        }
    });
}

// The element types users' image pipelines hold: 8- and 16-bit integers, half and double floats.
// Each through the same pipeline (a 3-tap blur with clamped edges, a row maximum over the input's
// extent, a pointwise scale), computed in a wider type and stored back in its own.
namespace {

template<typename T> void expect_typed_pipeline(Type t, Type wide, double lo, double hi, double tol,
                                                Target::Feature opencl_feature = Target::FeatureEnd,
                                                bool on_opencl = true) {
    for_each_target([&](const std::string &target) {
        if (target == "opencl" && !on_opencl) return;
        Target jit = jit_target(target);
        if (jit.has_feature(Target::OpenCL) && opencl_feature != Target::FeatureEnd)
            jit = jit.with_feature(opencl_feature);
        SCOPED_TRACE(type_to_c_type(t, false));
        ImageParam in(t, 2, "in");
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func blur("blur"), rowmax("rowmax"), out("out");
        auto w = [&](Expr e) { return cast(wide, e); };
        blur(x, y) = (w(clamped(x - 1, y)) + 2 * w(clamped(x, y)) + w(clamped(x + 1, y))) / 4;
        RDom r(0, in.dim(0).extent(), "r");
        rowmax(y) = maximum(w(in(r, y)));
        // Integers: at most 200, whatever the type's range. Floats: at most 1.
        out(x, y) = t.is_float() ? cast(t, blur(x, y) / (rowmax(y) + 1)) : cast(t, blur(x, y) * 200 / (rowmax(y) + 1));
        in.set_estimates({{0, 1536}, {0, 1024}});
        out.set_estimates({{0, 1536}, {0, 1024}});
        std::string plan = schedule_with_solder({out}, target);
        if (target == "opencl" && t == Float(16)) {
            EXPECT_NE(plan.find("computes in float16, which OpenCL kernels cannot without the target feature "
                                "cl_half: it runs on the host"),
                      std::string::npos)
                << plan;
        }
        Pipeline p(out);
        p.compile_jit(jit);
        for (auto [wd, h] : sizes_with(1536, 1024)) {
            SCOPED_TRACE(std::to_string(wd) + "x" + std::to_string(h));
            auto a = random_buffer<T>({wd, h}, 7, lo, hi);
            in.set(a);
            Buffer<T> o = p.realize({wd, h}, jit);
            o.copy_to_host();
            auto at = [&](int i, int j) { return double(a(std::clamp(i, 0, wd - 1), j)); };
            std::vector<double> row_max(static_cast<size_t>(h));
            for (int j = 0; j < h; j++) {
                row_max[size_t(j)] = at(0, j);
                for (int i = 1; i < wd; i++) row_max[size_t(j)] = std::max(row_max[size_t(j)], at(i, j));
            }
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const double m = row_max[size_t(q[1])];
                    double b = at(q[0] - 1, q[1]) + 2 * at(q[0], q[1]) + at(q[0] + 1, q[1]);
                    if (t.is_float()) return (b / 4) / (m + 1);
                    // Integer division, as Halide's of non-negative values.
                    const int64_t bi = int64_t(b) / 4;
                    return double(bi * 200 / (int64_t(m) + 1));
                },
                tol))
                << plan;
        }
    });
}

}  // namespace

TEST(UserPipelines, EightAndSixteenBitIntegerImages) {
    expect_typed_pipeline<uint8_t>(UInt(8), Int(32), 0, 255, 0);
    expect_typed_pipeline<uint16_t>(UInt(16), Int(32), 0, 60000, 0);
    expect_typed_pipeline<int16_t>(Int(16), Int(32), 0, 30000, 0);
}

// (OpenCL needs the target's CLDoubles feature for doubles, as Halide asks.)
TEST(UserPipelines, HalfAndDoubleFloatImages) {
    try {
        expect_typed_pipeline<double>(Float(64), Float(64), 0, 4, 1e-12, Target::CLDoubles);
        // Half on OpenCL without cl_half (PoCL has no cl_khr_fp16: its compiler refuses `half`
        // variables): the kernels holding f16 run on the host, the plan says so.
        expect_typed_pipeline<float16_t>(Float(16), Float(32), 0, 4, 2e-3);
    } catch (const Halide::Error &e) {
        FAIL() << e.what();
    }
}

// Without cl_doubles an OpenCL kernel cannot compute in doubles (Halide refuses to compile it): the
// kernels that do run on the host, and the schedule says so.
// Bit counts (a census transform's Hamming distances through popcount, count_leading_zeros,
// count_trailing_zeros): Halide 21's OpenCL C backend calls helpers for them it does not define, so
// such a kernel would fail to build on every OpenCL device; on OpenCL it runs on the host instead,
// the plan says why. Run on the host and OpenCL at other sizes; lowered for CUDA, where it stays.
TEST(UserPipelines, BitCountsRunOnTheHostOnOpenCL) {
    auto define = [](ImageParam &a, ImageParam &b, Func &out) {
        Var x("x"), y("y");
        Func ham("ham");
        Expr v = a(x, y) ^ b(x, y);
        ham(x, y) = popcount(v) + count_leading_zeros(v | 1) + count_trailing_zeros(v | (cast<uint32_t>(1) << 31));
        out(x, y) = ham(x, y) + ham(x, y + 1);
        a.set_estimates({{0, 1920}, {0, 1080}});
        b.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 1920}, {0, 1079}});
    };
    {
        ImageParam a(UInt(32), 2, "ca"), b(UInt(32), 2, "cb");
        Func out("cout");
        define(a, b, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_EQ(plan.find("counts bits"), std::string::npos) << plan;
        EXPECT_NO_THROW(Pipeline(out).compile_to_lowered_stmt(
            ::testing::TempDir() + "/bits.stmt", {a, b}, Halide::StmtOutputFormat::Text, solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam a(UInt(32), 2, "a"), b(UInt(32), 2, "b");
        Func out("out");
        define(a, b, out);
        const std::string plan = schedule_with_solder({out}, target);
        if (target == "opencl") {
            EXPECT_NE(plan.find("counts bits (popcount, count_leading_zeros or count_trailing_zeros), which Halide "
                                "21's OpenCL C backend calls undefined helpers for: it runs on the host"),
                      std::string::npos)
                << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(640, 360)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto ba = random_buffer<uint32_t>({w, h + 1}, 47, 0, 4294967295.0);
            auto bb = random_buffer<uint32_t>({w, h + 1}, 48, 0, 4294967295.0);
            a.set(ba);
            b.set(bb);
            Buffer<uint32_t> o = realized<uint32_t>(p, {w, h}, target);
            auto ham = [&](int x, int y) {
                const uint32_t v = ba(x, y) ^ bb(x, y);
                return uint32_t(__builtin_popcount(v) + __builtin_clz(v | 1) + __builtin_ctz(v | 0x80000000u));
            };
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return ham(q[0], q[1]) + ham(q[0], q[1] + 1); }, 0))
                << plan;
        }
    });
}

TEST(UserPipelines, DoublesWithoutClDoublesRunOnTheHost) {
    try {
        expect_typed_pipeline<double>(Float(64), Float(64), 0, 4, 1e-12, Target::FeatureEnd);
    } catch (const Halide::Error &e) {
        FAIL() << e.what();
    }
    ImageParam in(Float(64), 1, "d_in");
    Var x("x");
    Func sq("d_sq");
    sq(x) = in(x)*in(x);
    in.set_estimates({{0, 4096}});
    sq.set_estimates({{0, 4096}});
    std::string src = schedule_with_solder({sq}, "opencl");
    // In the plan's reasons and in the schedule source.
    EXPECT_NE(src.find(": computes in float64"), std::string::npos) << src;
    EXPECT_NE(src.find("computes in float64, which OpenCL kernels cannot without the target feature cl_doubles: it "
                       "runs on the host"),
              std::string::npos)
        << src;
}

// A require() on a parameter and a print_when() in the values: Halide 21 compiles their error and
// print calls on the host only, so their kernels run there (the plan says why), on every GPU
// target; the requirement still stops a call that breaks it.
TEST(UserPipelines, RequirementsAndPrintsRunOnTheHost) {
    auto define = [](ImageParam &in, Param<float> &gain, Func &out) {
        Var x("x"), y("y");
        RDom r(in);
        Func lo("lo"), scaled("scaled");
        lo() = minimum(in(r.x, r.y));
        scaled(x, y) = require(gain > 0.0f, (in(x, y) - lo()) * gain, "gain must be positive, not", gain);
        out(x, y) = print_when(scaled(x, y) < -1.0f, scaled(x, y) + scaled(x + 1, y), "negative at", x, y);
        in.set_estimates({{0, 1024}, {0, 1024}});
        gain.set_estimate(2.0f);
        out.set_estimates({{0, 1023}, {0, 1024}});
    };
    const char *why = "calls what Halide 21 compiles on the host only (a require(), a print() or another extern C "
                      "function): it runs on the host";
    {
        ImageParam in(Float(32), 2, "rq_cin");
        Param<float> gain("rq_cgain");
        Func out("rq_cout");
        define(in, gain, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find(why), std::string::npos) << plan;
        EXPECT_NO_THROW(Pipeline(out).compile_to_object(::testing::TempDir() + "/require.o", {in, gain}, "require",
                                                        solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(Float(32), 2, "rq_in");
        Param<float> gain("rq_gain");
        Func out("rq_out");
        define(in, gain, out);
        const std::string plan = schedule_with_solder({out}, target);
        if (target == "opencl") {
            EXPECT_NE(plan.find(why), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(300, 200)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto b = random_buffer<float>({w + 1, h}, 61);
            in.set(b);
            gain.set(3.0f);
            float lo = b(0, 0);
            for (int y = 0; y < h; y++)
                for (int x = 0; x <= w; x++) lo = std::min(lo, b(x, y));
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return (b(q[0], q[1]) - lo) * 3.0f + (b(q[0] + 1, q[1]) - lo) * 3.0f; }, 1e-5))
                << plan;
        }
        gain.set(-1.0f);
        EXPECT_THROW(realized<float>(p, {16, 16}, target), Halide::RuntimeError) << plan;
    });
}

// Column sums down a number of rows known only at run time (RDom over in.dim(1)): too few results
// to fill a GPU, so the rows are cut into slices summed by launches of their own (split-K), planned
// at the estimate and correct at any number of rows (the last slice guarded, the others not).
TEST(UserPipelines, ColumnSumsOverInputExtentAreSplitIntoSlices) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x");
        RDom r(0, in.dim(1).extent(), "r");
        Func colsum("colsum");
        colsum(x) = 0.f;
        colsum(x) += in(x, r);
        in.set_estimates({{0, 512}, {0, 16384}});
        colsum.set_estimates({{0, 512}});
        std::string plan = schedule_with_solder({colsum}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("split-K: colsum"), std::string::npos) << plan;
            // The walk partitioned: every slice but the one past the rows unguarded.
            EXPECT_NE(plan.find(".always_partition("), std::string::npos) << plan;
        }
        Pipeline p = compiled({colsum}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 16384}, {37, 29}, {517, 2063}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 7);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int j = 0; j < h; j++) s += a(q[0], j);
                    return s;
                },
                1e-4))
                << plan;
        }
    });
}

// An embedding lookup: rows of a table larger than the L2 picked by token ids (a gather at
// data-dependent points). Bounds give each block the whole table; the model once counted that box
// once per block (2.1 TB for a 131 MB table), where each output point loads one table point.
TEST(UserPipelines, GatherFromALargeTableIsCountedPerPointRead) {
    ImageParam tokens(Int(32), 2, "gtokens"), table(Float(32), 2, "gtable");
    Var d("d"), t("t"), b("b");
    Func out("gathered");
    out(d, t, b) = table(d, clamp(tokens(t, b), 0, table.dim(1).extent() - 1)) * 2.0f;
    tokens.dim(0).set_estimate(0, 2048);
    tokens.dim(1).set_estimate(0, 8);
    table.dim(0).set_estimate(0, 1024);
    table.dim(1).set_estimate(0, 32000);
    solder::lang::set_estimates(out, {8, 2048, 1024});
    solder::autosched::Plan plan = plan_for({out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    // Every input read once and the output written once: the table's rows gathered (67 MB of its
    // 131 MB), not the table once per block.
    EXPECT_EQ(plan.total_bytes, plan.min_bytes) << plan.to_text();
}

// A 1x1 convolution over the input's channels under a ReLU (the reduction read by its consumer one
// to one, at the consumer's own point, over an extent known only at run time): one kernel whose
// threads each compute their point's sum, where the row template would hold a row of sums per block
// and refuses (its shared memory would grow with the run-time extents), storing the sums.
TEST(UserPipelines, AReductionReadOneToOneIsComputedInItsConsumersThreads) {
    ImageParam in(Float(32), 3, "cin"), w(Float(32), 2, "cw");
    Var x("x"), y("y"), co("co");
    RDom r(0, in.dim(2).extent(), "r");
    Func conv("conv"), relu("relu");
    conv(x, y, co) = 0.0f;
    conv(x, y, co) += w(r, co) * in(x, y, r);
    relu(x, y, co) = max(conv(x, y, co), 0.0f);
    in.set_estimates({{0, 512}, {0, 384}, {0, 16}});
    w.set_estimates({{0, 16}, {0, 32}});
    relu.set_estimates({{0, 512}, {0, 384}, {0, 32}});
    solder::autosched::Plan plan = plan_for({relu}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name(), "pointwise") << plan.to_text();
    EXPECT_EQ(plan.total_bytes, plan.min_bytes) << plan.to_text();
    for_each_target([&](const std::string &target) {
        std::string text = schedule_with_solder({relu}, target);
        Pipeline p = compiled({relu}, target);
        for (auto [W, H, CI, CO] : std::vector<std::array<int, 4>>{{512, 384, 16, 32}, {37, 29, 5, 7}, {1, 1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(CI) + " -> " +
                         std::to_string(CO));
            auto a = random_buffer<float>({W, H, CI}, 11, -1, 1);
            auto b = random_buffer<float>({CI, CO}, 12, -1, 1);
            in.set(a);
            w.set(b);
            Buffer<float> o = realized<float>(p, {W, H, CO}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int c = 0; c < CI; c++) s += double(b(c, q[2])) * a(q[0], q[1], c);
                    return std::max(s, 0.0);
                },
                1e-4))
                << text;
        }
    });
}

// A table of running column maxima over a parameter depth (max_filter's, smaller): table(x, y, c,
// k) is the max over rows y - k .. y + k, grown one row each way per step (a scan along its
// outermost dim). Planned at 1024 x 1024 x 3 with depth 8. The table is a pipeline output too, so
// it is computed at root (read by other kernels only, it would be computed per tile of a copy:
// UserPipelines.PointScanRunsPerTileOfACopy): on a GPU each thread of the table's first stage
// loops over k itself rather than the grid fusing c and k (each thread then found its c and k by
// dividing by their run-time extents). Run at other sizes and depths.
TEST(UserPipelines, RunningMaximaTableLoopsItsFourthDimInEachThread) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "in");
        Param<int> depth("depth");
        Var x("x"), y("y"), c("c"), k("k");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func table("table"), out("out");
        table(x, y, c, k) = clamped(x, y, c);
        RDom rk(1, depth, "rk");
        table(x, y, c, rk) = max(table(x, y, c, rk - 1), max(clamped(x, y - rk, c), clamped(x, y + rk, c)));
        out(x, y, c) = table(x, y, c, depth) - table(x, y, c, depth / 2);
        in.set_estimates({{0, 1024}, {0, 1024}, {0, 3}});
        depth.set_estimate(8);
        out.set_estimates({{0, 1024}, {0, 1024}, {0, 3}});
        table.set_estimates({{0, 1024}, {0, 1024}, {0, 3}, {0, 9}});
        std::string plan = schedule_with_solder({out, table}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("stage 0 loops its outer 1 dim in each thread"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out, table}, target);
        // (Not at the estimates' size: the reference walks every table point's window, slow under
        // the sanitizers.)
        for (auto [w, h] : other_sizes()) {
            for (int d : {8, 3}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " depth " + std::to_string(d));
                auto img = random_buffer<float>({w, h, 3}, 11);
                in.set(img);
                depth.set(d);
                Buffer<float> o(w, h, 3), tb(w, h, 3, d + 1);
                p.realize({o, tb}, jit_target(target));
                o.copy_to_host();
                tb.copy_to_host();
                auto colmax = [&](int i, int j, int ch, int r) {
                    float m = img(i, std::clamp(j, 0, h - 1), ch);
                    for (int q = -r; q <= r; q++) m = std::max(m, img(i, std::clamp(j + q, 0, h - 1), ch));
                    return m;
                };
                EXPECT_TRUE(matches(
                    o, [&](auto &q) { return colmax(q[0], q[1], q[2], d) - colmax(q[0], q[1], q[2], d / 2); }, 0))
                    << plan;
                EXPECT_TRUE(matches(
                    tb, [&](auto &q) { return colmax(q[0], q[1], q[2], q[3]); }, 0))
                    << plan;
            }
        }
    });
}

// Two gradients from the same three inputs (SwiGLU's backward): pointwise kernels over the same
// points that read common inputs launch together, each thread computing both (compute_with at
// the thread loop), and stay right at every size, with the two outputs' sizes apart too.
TEST(UserPipelines, SiblingGradientsLaunchTogether) {
    for_each_target([](const std::string &target) {
        ImageParam gate(Float(32), 2, "gate"), up(Float(32), 2, "up"), dy(Float(32), 2, "dy");
        Var h("h"), t("t");
        Func sig("sig"), dgate("dgate"), dup("dup");
        sig(h, t) = 1.0f / (1.0f + exp(-gate(h, t)));
        dgate(h, t) = dy(h, t) * up(h, t) * sig(h, t) * (1.0f + gate(h, t) * (1.0f - sig(h, t)));
        dup(h, t) = dy(h, t) * gate(h, t) * sig(h, t);
        for (auto *p : {&gate, &up, &dy}) p->set_estimates({{0, 1024}, {0, 512}});
        dgate.set_estimates({{0, 1024}, {0, 512}});
        dup.set_estimates({{0, 1024}, {0, 512}});
        std::string plan = schedule_with_solder({dgate, dup}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
            EXPECT_NE(plan.find(".compute_with(dgate"), std::string::npos) << plan;
        }
        Pipeline p = compiled({dgate, dup}, target);
        auto sg = [](double g) { return 1 / (1 + std::exp(-g)); };
        auto sizes = sizes_with(1024, 512);
        sizes.push_back({1030, 7});  // the second output smaller than the first, below
        for (auto [w, ht] : sizes) {
            // The second output narrower and shorter (inputs cover the larger): its points past
            // its own extents are skipped.
            const bool apart = w == 1030;
            const int w2 = apart ? 517 : w, h2 = apart ? 3 : ht;
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(ht));
            auto a = random_buffer<float>({w, ht}, 3, -3, 3), b = random_buffer<float>({w, ht}, 4, -1, 1),
                 d = random_buffer<float>({w, ht}, 5, -1, 1);
            gate.set(a);
            up.set(b);
            dy.set(d);
            Buffer<float> o1(w, ht), o2(w2, h2);
            p.realize({o1, o2}, jit_target(target));
            o1.copy_to_host();
            o2.copy_to_host();
            EXPECT_TRUE(matches(
                o1,
                [&](auto &q) {
                    const double g = a(q[0], q[1]), s = sg(g);
                    return double(d(q[0], q[1])) * b(q[0], q[1]) * s * (1 + g * (1 - s));
                },
                1e-5))
                << plan;
            EXPECT_TRUE(matches(
                o2, [&](auto &q) { return double(d(q[0], q[1])) * a(q[0], q[1]) * sg(a(q[0], q[1])); }, 1e-5))
                << plan;
        }
    });
}

// An embedding lookup with a positional add, written as users write it: the table too large for
// the caches, each thread takes four rows of tokens, unrolled (their token loads, then their table loads, in flight together), and
// stays right at sizes that are not a multiple of four rows, or of the block, and at one point.
TEST(UserPipelines, GatherRowsAreUnrolledInEachThread) {
    for_each_target([](const std::string &target) {
        ImageParam tokens(Int(32), 2, "utokens"), table(Float(32), 2, "utable"), pos(Float(32), 2, "upos");
        Var d("d"), t("t"), b("b");
        Func out("embedded");
        out(d, t, b) = table(d, clamp(tokens(t, b), 0, table.dim(1).extent() - 1)) + pos(d, t);
        tokens.set_estimates({{0, 64}, {0, 4}});
        table.set_estimates({{0, 256}, {0, 4096}});  // 4 MB: a table read from DRAM, not L1
        pos.set_estimates({{0, 256}, {0, 64}});
        out.set_estimates({{0, 256}, {0, 64}, {0, 4}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("4 rows per thread"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [D, T, B] : std::vector<std::array<int, 3>>{{256, 64, 4}, {37, 29, 3}, {260, 7, 2}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(D) + "x" + std::to_string(T) + "x" + std::to_string(B));
            const int rows = 500;
            auto tab = random_buffer<float>({D, rows}, 21, -1, 1), ps = random_buffer<float>({D, T}, 22, -1, 1);
            Buffer<int32_t> tok(T, B);
            std::mt19937 rng(23);
            // Some ids past the table's ends, which the pipeline clamps.
            tok.for_each_value([&](int32_t &v) { v = int32_t(rng() % (rows + 40)) - 20; });
            tok.set_host_dirty();
            tokens.set(tok);
            table.set(tab);
            pos.set(ps);
            Buffer<float> o = realized<float>(p, {D, T, B}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int id = std::clamp(int(tok(q[1], q[2])), 0, rows - 1);
                    return double(tab(q[0], id)) + ps(q[0], q[1]);
                },
                1e-6))
                << plan;
        }
    });
}

// Two column sums down a number of rows known only at run time, over the same points: each keeps
// its own split-K launches (shared ones measured slower at run-time bounds), each walk partitioned
// (its steps unguarded but for the slice that ends past the rows), right at any number of rows.
TEST(UserPipelines, ColumnSumsDownRunTimeRowsWalkUnguardedSlices) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Var x("x");
        RDom r(0, in.dim(1).extent(), "r");
        Func plain("plain"), squares("squares");
        plain(x) = 0.f;
        plain(x) += in(x, r);
        squares(x) = 0.f;
        squares(x) += in(x, r) * in(x, r);
        in.set_estimates({{0, 512}, {0, 16384}});
        plain.set_estimates({{0, 512}});
        squares.set_estimates({{0, 512}});
        std::string plan = schedule_with_solder({plain, squares}, target);
        if (target != "host") {
            EXPECT_EQ(plan.find("split-K shared"), std::string::npos) << plan;
            EXPECT_NE(plan.find("split-K: plain"), std::string::npos) << plan;
            EXPECT_NE(plan.find("split-K: squares"), std::string::npos) << plan;
            const size_t first = plan.find(".always_partition(");
            ASSERT_NE(first, std::string::npos) << plan;
            EXPECT_NE(plan.find(".always_partition(", first + 1), std::string::npos) << plan;
        }
        Pipeline p = compiled({plain, squares}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 16384}, {37, 29}, {517, 2063}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 8);
            in.set(a);
            Buffer<float> o1(w), o2(w);
            p.realize({o1, o2}, jit_target(target));
            o1.copy_to_host();
            o2.copy_to_host();
            auto col = [&](int i, bool sq) {
                double s = 0;
                for (int j = 0; j < h; j++) s += sq ? double(a(i, j)) * a(i, j) : double(a(i, j));
                return s;
            };
            EXPECT_TRUE(matches(
                o1, [&](auto &q) { return col(q[0], false); }, 1e-4))
                << plan;
            EXPECT_TRUE(matches(
                o2, [&](auto &q) { return col(q[0], true); }, 1e-4))
                << plan;
        }
    });
}

// A trilinear lookup at each pixel (a bilateral grid's slice): 8 corners of a grid cell picked by
// the pixel's value, so neighbouring pixels read scattered addresses. One pixel per thread in
// 32 x 8 tiles, not vectors along rows; right at any size.
TEST(UserPipelines, ScatteredLookupsTakeOnePointPerThreadInTiles) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "sin"), grid(Float(32), 3, "sgrid");
        Var x("x"), y("y");
        Expr fx = cast<float>(x) / 8.0f, fy = cast<float>(y) / 8.0f, fz = clamp(in(x, y), 0.0f, 1.0f) * 7.0f;
        Expr ix = cast<int>(floor(fx)), iy = cast<int>(floor(fy)), iz = cast<int>(floor(fz));
        Expr ax = fx - floor(fx), ay = fy - floor(fy), az = fz - floor(fz);
        auto at = [&](Expr a, Expr b, Expr c) {
            return grid(clamp(a, 0, grid.dim(0).extent() - 1), clamp(b, 0, grid.dim(1).extent() - 1),
                        clamp(c, 0, grid.dim(2).extent() - 1));
        };
        auto lx = [&](Expr b, Expr c) { return (1 - ax) * at(ix, b, c) + ax * at(ix + 1, b, c); };
        auto ly = [&](Expr c) { return (1 - ay) * lx(iy, c) + ay * lx(iy + 1, c); };
        Func out("sliced");
        out(x, y) = (1 - az) * ly(iz) + az * ly(iz + 1);
        in.set_estimates({{0, 1024}, {0, 512}});
        grid.set_estimates({{0, 129}, {0, 65}, {0, 8}});
        out.set_estimates({{0, 1024}, {0, 512}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[pointwise, 8 rows per block]"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1024, 512)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            const int gw = w / 8 + 2, gh = h / 8 + 2;
            auto a = random_buffer<float>({w, h}, 31), gr = random_buffer<float>({gw, gh, 8}, 32);
            in.set(a);
            grid.set(gr);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const double fxr = q[0] / 8.0, fyr = q[1] / 8.0,
                                 fzr = std::clamp(double(a(q[0], q[1])), 0.0, 1.0) * 7.0;
                    const int x0 = int(std::floor(fxr)), y0 = int(std::floor(fyr)), z0 = int(std::floor(fzr));
                    const double wx = fxr - x0, wy = fyr - y0, wz = fzr - z0;
                    auto g = [&](int i, int j, int k) {
                        return double(gr(std::clamp(i, 0, gw - 1), std::clamp(j, 0, gh - 1), std::clamp(k, 0, 7)));
                    };
                    double s = 0;
                    for (int dz = 0; dz < 2; dz++)
                        for (int dy = 0; dy < 2; dy++)
                            for (int dx = 0; dx < 2; dx++)
                                s += (dx ? wx : 1 - wx) * (dy ? wy : 1 - wy) * (dz ? wz : 1 - wz) *
                                     g(x0 + dx, y0 + dy, z0 + dz);
                    return s;
                },
                1e-4))
                << plan;
        }
    });
}

// A boundary condition sampled at a flow field's offsets, through a pure Func of it: nothing bounds
// the points read of either, so Solder inlines both into their reader (as Halide's default schedule
// does), and the plan says why. Right at every size.
TEST(UserPipelines, BoundaryConditionsSampledAtDataDependentPointsAreInlined) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "fin"), flow(Float(32), 3, "fflow");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        Func bright("bright"), out("warped");
        bright(x, y) = cl(x, y) * 2.0f + 1.0f;
        Expr sx = x + flow(x, y, 0) * 4.0f, sy = y + flow(x, y, 1) * 4.0f;
        Expr ix = cast<int>(floor(sx)), iy = cast<int>(floor(sy)), fx = sx - ix, fy = sy - iy;
        out(x, y) = lerp(lerp(bright(ix, iy), bright(ix + 1, iy), fx),
                         lerp(bright(ix, iy + 1), bright(ix + 1, iy + 1), fx), fy);
        in.set_estimates({{0, 512}, {0, 256}});
        flow.set_estimates({{0, 512}, {0, 256}, {0, 2}});
        out.set_estimates({{0, 512}, {0, 256}});
        std::string plan = schedule_with_solder({out}, target);
        EXPECT_TRUE(std::regex_search(plan, std::regex("bright[$0-9]*: inlined into its readers"))) << plan;
        EXPECT_TRUE(std::regex_search(plan, std::regex("repeat_edge[$0-9]*: inlined into its readers"))) << plan;
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(512, 256)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 41), f = random_buffer<float>({w, h, 2}, 42);
            in.set(a);
            flow.set(f);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const float sxr = q[0] + f(q[0], q[1], 0) * 4.0f, syr = q[1] + f(q[0], q[1], 1) * 4.0f;
                    const int x0 = int(std::floor(sxr)), y0 = int(std::floor(syr));
                    const double wx = sxr - x0, wy = syr - y0;
                    auto b = [&](int i, int j) {
                        return double(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))) * 2.0 + 1.0;
                    };
                    auto row = [&](int j) { return b(x0, j) + wx * (b(x0 + 1, j) - b(x0, j)); };
                    return row(y0) + wy * (row(y0 + 1) - row(y0));
                },
                1e-4))
                << plan;
        }
    });
}

// A bilinear resize at float coordinates, its scale a parameter (the ratio of the input's and the
// output's extents): the region a tile of the output needs of its producers varies from tile to
// tile, so they are inlined into the output's tiles, not computed per tile (on CUDA each launch
// would first evaluate every block's region on the host to size shared memory). Right when
// shrinking, growing, and at one point.
TEST(UserPipelines, ResizeAtFloatCoordinatesInlinesItsProducers) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "rz_in");
        Param<float> sx("rz_sx"), sy("rz_sy");
        Var x("x"), y("y");
        Func out("rz_out"), rows("rz_rows"), clamped("rz_clamped");
        clamped(x, y) = in(clamp(x, 0, in.dim(0).extent() - 1), clamp(y, 0, in.dim(1).extent() - 1));
        Expr fx = (cast<float>(x) + 0.5f) * sx - 0.5f, fy = (cast<float>(y) + 0.5f) * sy - 0.5f;
        Expr ix = cast<int>(floor(fx)), iy = cast<int>(floor(fy));
        rows(x, y) = lerp(clamped(ix, y), clamped(ix + 1, y), fx - cast<float>(ix));
        out(x, y) = lerp(rows(x, iy), rows(x, iy + 1), fy - cast<float>(iy));
        in.set_estimates({{0, 1920}, {0, 1080}});
        sx.set_estimate(1.5f);
        sy.set_estimate(1.5f);
        out.set_estimates({{0, 1280}, {0, 720}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("inlined, not computed per tile: read at rounded float coordinates"), std::string::npos)
                << plan;
            EXPECT_EQ(plan.find(".compute_at("), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h, ow, oh] : std::vector<std::array<int, 4>>{
                 {1920, 1080, 1280, 720}, {64, 48, 40, 30}, {37, 29, 101, 71}, {517, 263, 300, 200}, {1, 1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " -> " + std::to_string(ow) + "x" +
                         std::to_string(oh));
            auto a = random_buffer<float>({w, h}, 41);
            in.set(a);
            const float scale_x = float(w) / float(ow), scale_y = float(h) / float(oh);
            sx.set(scale_x);
            sy.set(scale_y);
            Buffer<float> o = realized<float>(p, {ow, oh}, target);
            auto at = [&](int i, int j) { return double(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))); };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const double fxr = (q[0] + 0.5) * scale_x - 0.5, fyr = (q[1] + 0.5) * scale_y - 0.5;
                    const int x0 = int(std::floor(fxr)), y0 = int(std::floor(fyr));
                    const double wx = fxr - x0, wy = fyr - y0;
                    auto row = [&](int j) { return at(x0, j) + (at(x0 + 1, j) - at(x0, j)) * wx; };
                    return row(y0) + (row(y0 + 1) - row(y0)) * wy;
                },
                1e-4))
                << plan;
        }
    });
}

// A difference along rows of a clamped image, divided by a per-pixel sum over channels (4-D,
// batched): the clamped image is read through a stencil along x only, whose taps neighbouring
// threads load from the same cache lines, so it is inlined, not computed per tile. (32 channels at
// the estimates: the sum is stored, too long to compute again in each channel's thread.)
TEST(UserPipelines, StencilsAlongRowsOnlyInlineTheirProducers) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 4, "ar_in");
        Var x("x"), y("y"), c("c"), n("n");
        RDom rc(0, in.dim(2).extent(), "ar_rc");
        Func lum("ar_lum"), out("ar_out");
        lum(x, y, n) = sum(in(x, y, rc, n));
        Func cl = BoundaryConditions::repeat_edge(in);
        out(x, y, c, n) = (cl(x + 1, y, c, n) - cl(x - 1, y, c, n)) / (1.0f + lum(x, y, n) * lum(x, y, n));
        in.set_estimates({{0, 640}, {0, 480}, {0, 32}, {0, 8}});
        out.set_estimates({{0, 640}, {0, 480}, {0, 32}, {0, 8}});
        std::string plan = schedule_with_solder({out}, target);
        // (Its clamps of four dims count as a cheap Func of an input, read through one stencil:
        // kMaxInputLikeOps; the note says so instead of naming the rows.)
        if (target != "host") {
            EXPECT_TRUE(plan.find("inlined, not computed per tile: read through a stencil along rows only") !=
                            std::string::npos ||
                        plan.find("inlined, not computed per tile: a pipeline input") != std::string::npos)
                << plan;
            EXPECT_EQ(plan.find("computed per block: repeat_edge"), std::string::npos) << plan;
        }
        if (target == "opencl") {
            // A member too costly to count as a cheap Func of an input (kMaxInputLikeOps: a
            // polynomial of degree 20 of a clamped input), read along rows only: inlined for that.
            ImageParam in2(Float(32), 2, "ar2_in");
            Func cl2 = BoundaryConditions::repeat_edge(in2), g("ar2_g"), o2("ar2_out");
            Expr v = cl2(x, y), poly = 1.0f;
            for (int k = 0; k < 20; k++) poly = poly * v + float(k);
            g(x, y) = poly;
            o2(x, y) = g(x + 1, y) - g(x, y);
            in2.set_estimates({{0, 1920}, {0, 1080}});
            o2.set_estimates({{0, 1920}, {0, 1080}});
            const std::string plan2 = schedule_with_solder({o2}, "cuda");
            EXPECT_NE(plan2.find("inlined, not computed per tile: read through a stencil along rows only"),
                      std::string::npos)
                << plan2;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{640, 48}, {37, 29}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h, 3, 2}, 43, -1, 1);
            in.set(a);
            Buffer<float> o = p.realize({w, h, 3, 2}, jit_target(target));
            o.copy_to_host();
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double l = 0;
                    for (int k = 0; k < 3; k++) l += a(q[0], q[1], k, q[3]);
                    auto at = [&](int i) { return double(a(std::clamp(i, 0, w - 1), q[1], q[2], q[3])); };
                    return (at(q[0] + 1) - at(q[0] - 1)) / (1.0 + l * l);
                },
                1e-4))
                << plan;
        }
    });
}

// A 3x3 box of a uint8 image read unclamped (the output is the input's interior): the tiles are
// guarded, so the widened input is not computed per tile (each launch would first size shared
// memory on the host) but recomputed at its taps, as cheap as it is.
TEST(UserPipelines, GuardedTilesOfCheapFirstStencilsStageNothing) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(8), 3, "gt_in");
        Var x("x"), y("y"), c("c");
        Func wide("gt_wide"), bx("gt_bx"), out("gt_out");
        wide(x, y, c) = cast<uint16_t>(in(x, y, c));
        bx(x, y, c) = wide(x, y, c) + wide(x + 1, y, c) + wide(x + 2, y, c);
        out(x, y, c) = cast<uint8_t>((bx(x, y, c) + bx(x, y + 1, c) + bx(x, y + 2, c) + 4) / 9);
        in.set_estimates({{0, 1922}, {0, 1082}, {0, 3}});
        out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("inlined, not computed per tile: the tiles are guarded"), std::string::npos) << plan;
            EXPECT_EQ(plan.find(".compute_at("), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{130, 70}, {37, 29}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<uint8_t> a = random_buffer<uint8_t>({w + 2, h + 2, 3}, 47, 0, 255);
            in.set(a);
            Buffer<uint8_t> o = p.realize({w, h, 3}, jit_target(target));
            o.copy_to_host();
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int s = 0;
                    for (int dy = 0; dy < 3; dy++)
                        for (int dx = 0; dx < 3; dx++) s += a(q[0] + dx, q[1] + dy, q[2]);
                    return (s + 4) / 9;
                },
                0))
                << plan;
        }
    });
}

// A sum per point over a channel count known only at run time, on rows 40 wide (a grid of cells):
// one point per thread, in a tile snug to the rows (8 x 8 threads), not blocks of 256 along rows
// of 40. Right at any size.
TEST(UserPipelines, NarrowRowsOfPerPointSumsTakeSnugTiles) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "nin");
        Var x("x"), y("y");
        RDom r(0, in.dim(2).extent(), "r");
        Func total("total"), out("narrow");
        total(x, y) = 0.0f;
        total(x, y) += in(x, y, r) * in(x, y, r);
        out(x, y) = sqrt(total(x, y));
        in.set_estimates({{0, 40}, {0, 24}, {0, 64}});
        out.set_estimates({{0, 40}, {0, 24}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[pointwise, 8 rows per block]"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h, n] : std::vector<std::array<int, 3>>{{40, 24, 64}, {37, 29, 5}, {517, 3, 2}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(n));
            auto a = random_buffer<float>({w, h, n}, 41, -1, 1);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int k = 0; k < n; k++) s += double(a(q[0], q[1], k)) * a(q[0], q[1], k);
                    return std::sqrt(s);
                },
                1e-5))
                << plan;
        }
    });
}

// Sibling outputs over short rows (a block holds several rows: thread y) and three dims: their
// fused block and thread loops are never partitioned, which Halide would reject between GPU loops.
TEST(UserPipelines, SiblingOutputsOverShortRowsLaunchTogether) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "shin");
        Var x("x"), y("y"), z("z");
        Func twice("twice"), shifted("shifted");
        twice(x, y, z) = in(x, y, z) * 2.0f;
        shifted(x, y, z) = in(x, y, z) - in(x, y, 0);
        in.set_estimates({{0, 64}, {0, 32}, {0, 4}});
        twice.set_estimates({{0, 64}, {0, 32}, {0, 4}});
        shifted.set_estimates({{0, 64}, {0, 32}, {0, 4}});
        std::string plan = schedule_with_solder({twice, shifted}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
            EXPECT_NE(plan.find("rows per block"), std::string::npos) << plan;
        }
        Pipeline p = compiled({twice, shifted}, target);
        for (auto [w, h, d] : std::vector<std::array<int, 3>>{{64, 32, 4}, {37, 29, 3}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d));
            auto a = random_buffer<float>({w, h, d}, 51, -1, 1);
            in.set(a);
            Buffer<float> o1(w, h, d), o2(w, h, d);
            p.realize({o1, o2}, jit_target(target));
            o1.copy_to_host();
            o2.copy_to_host();
            EXPECT_TRUE(matches(
                o1, [&](auto &q) { return 2.0 * a(q[0], q[1], q[2]); }, 1e-6))
                << plan;
            EXPECT_TRUE(matches(
                o2, [&](auto &q) { return double(a(q[0], q[1], q[2])) - a(q[0], q[1], 0); }, 1e-6))
                << plan;
        }
    });
}

namespace {

// On a GPU target, the plan computes a point scan per 32 x `rows` tile of a copy.
void expect_scan_tiles(const std::string &plan, const std::string &target, int rows) {
    if (target == "host") return;
    const std::string text =
        "its scan per 32 x " + std::to_string(rows) + " tile in shared memory, written once through a copy";
    EXPECT_NE(plan.find(text), std::string::npos) << plan;
}

// A scan over a parameter's steps keeps no tile of them in shared memory: the tile holds every
// step, and would outgrow the shared memory at a larger step count than planned.
void expect_no_scan_tiles(const std::string &plan) {
    EXPECT_EQ(plan.find("tile in shared memory, written once through a copy"), std::string::npos) << plan;
}

}  // namespace

// A scan at each pixel over a parameter's steps (a running sum along the row, one more column per
// step), read by another kernel at two of its steps and a neighbouring pixel. On a GPU a scan of a
// constant count of steps is computed per tile of a copy, which the reader reads; over a
// parameter's, it is not (expect_no_scan_tiles). Planned at 5 steps, run at others.
TEST(UserPipelines, PointScanRunsPerTileOfACopy) {
    for_each_target([](const std::string &target) {
        // (A constant count: planned and run at 5.)
        {
            ImageParam in(Float(32), 2, "pcin");
            Var x("x"), y("y"), t("t");
            Func acc("cacc5"), out("pcout");
            acc(x, y, t) = in(x, y);
            RDom r(1, 5, "r");
            acc(x, y, r) = acc(x, y, r - 1) + in(x, y) * 0.5f;
            out(x, y) = acc(x, y, 5) - acc(x, y, 2);
            in.set_estimates({{0, 1024}, {0, 256}});
            out.set_estimates({{0, 1024}, {0, 256}});
            expect_scan_tiles(schedule_with_solder({out}, target), target, 8);
        }
        ImageParam in(Float(32), 2, "psin");
        Param<int> steps("steps");
        steps.set_estimate(5);
        Var x("x"), y("y"), t("t");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func acc("acc"), out("psout");
        acc(x, y, t) = clamped(x, y);
        RDom r(1, steps, "r");
        acc(x, y, r) = acc(x, y, r - 1) + clamped(x + r, y) * 0.5f;
        out(x, y) = acc(x, y, steps) - acc(x + 1, y, steps / 2);
        // (Estimates of enough tiles to give every SM four blocks in tiles of 8 rows.)
        in.set_estimates({{0, 1024}, {0, 256}});
        out.set_estimates({{0, 1024}, {0, 256}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") expect_no_scan_tiles(plan);
        Pipeline p = compiled({out}, target);
        for (int n : {5, 1, 9}) {
            steps.set(n);
            for (auto [w, h] : std::vector<std::array<int, 2>>{{96, 40}, {37, 29}, {1, 1}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " steps " + std::to_string(n));
                auto a = random_buffer<float>({w, h}, 61);
                in.set(a);
                Buffer<float> o = realized<float>(p, {w, h}, target);
                auto at = [&](int i, int j) { return double(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))); };
                auto scan = [&](int i, int j, int k) {
                    double s = at(i, j);
                    for (int q = 1; q <= k; q++) s += 0.5 * at(i + q, j);
                    return s;
                };
                EXPECT_TRUE(matches(
                    o, [&](auto &q) { return scan(q[0], q[1], n) - scan(q[0] + 1, q[1], n / 2); }, 1e-4))
                    << plan;
            }
        }
    });
}

// A point scan with a Tuple value, two updates (one at a constant step) and its scan dim between
// pure dims, over a parameter's steps (so no tile of them in shared memory): right at sizes and step
// counts it was not planned for.
TEST(UserPipelines, PointScansOfTuplesWithSeveralUpdates) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "ptin");
        Param<int> steps("steps");
        steps.set_estimate(4);
        Var x("x"), y("y"), k("k"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func win("win"), out("ptout");
        win(x, y, k, c) = Tuple(clamped(x, y, c), 0.0f);
        RDom r(1, steps, "r");
        win(x, y, r, c) =
            Tuple(max(win(x, y, r - 1, c)[0], clamped(x, y + r, c)), win(x, y, r - 1, c)[1] + clamped(x, y - r, c));
        win(x, y, 0, c) = Tuple(win(x, y, 0, c)[0] * 2.0f, win(x, y, 0, c)[1]);
        out(x, y, c) = win(x, y, steps, c)[0] + 0.25f * win(x + 1, y, steps / 2, c)[1] + win(x, y, 0, c)[0];
        in.set_estimates({{0, 1024}, {0, 256}, {0, 3}});
        out.set_estimates({{0, 1024}, {0, 256}, {0, 3}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") expect_no_scan_tiles(plan);
        Pipeline p = compiled({out}, target);
        for (int n : {4, 7}) {
            steps.set(n);
            for (auto [w, h, d] : std::vector<std::array<int, 3>>{{80, 48, 3}, {33, 9, 2}, {1, 1, 1}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + " steps " +
                             std::to_string(n));
                auto a = random_buffer<float>({w, h, d}, 71);
                in.set(a);
                Buffer<float> o = realized<float>(p, {w, h, d}, target);
                auto at = [&](int i, int j, int l) {
                    return double(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1), l));
                };
                // Step 0 is doubled only after the scan has run from its first value.
                auto hi = [&](int i, int j, int l, int m) {
                    double v = at(i, j, l);
                    for (int q = 1; q <= m; q++) v = std::max(v, at(i, j + q, l));
                    return m == 0 ? 2 * v : v;
                };
                auto lo = [&](int i, int j, int l, int m) {
                    double v = 0;
                    for (int q = 1; q <= m; q++) v += at(i, j - q, l);
                    return v;
                };
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        return hi(q[0], q[1], q[2], n) + 0.25 * lo(q[0] + 1, q[1], q[2], n / 2) +
                               hi(q[0], q[1], q[2], 0);
                    },
                    1e-4))
                    << plan;
            }
        }
    });
}

// A point scan of many steps takes tiles of fewer rows, so that its tile stays within half the
// shared memory.
TEST(UserPipelines, PointScansOfManyStepsTakeFewerRows) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "pmin");
        Var x("x"), y("y"), t("t");
        Func acc("macc"), out("pmout");
        acc(x, y, t) = in(x, y);
        RDom r(1, 40, "r");
        acc(x, y, r) = acc(x, y, r - 1) * 0.5f + 1.0f;
        out(x, y) = acc(x, y, 40) + acc(x, y, 0);
        in.set_estimates({{0, 2048}, {0, 1024}});
        out.set_estimates({{0, 2048}, {0, 1024}});
        std::string plan = schedule_with_solder({out}, target);
        expect_scan_tiles(plan, target, 4);
        Pipeline p = compiled({out}, target);
        for (int n : {40}) {
            for (auto [w, h] : std::vector<std::array<int, 2>>{{64, 32}, {5, 7}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " steps " + std::to_string(n));
                auto a = random_buffer<float>({w, h}, 81);
                in.set(a);
                Buffer<float> o = realized<float>(p, {w, h}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        double v = a(q[0], q[1]);
                        for (int s = 1; s <= n; s++) v = v * 0.5 + 1.0;
                        return v + a(q[0], q[1]);
                    },
                    1e-4))
                    << plan;
            }
        }
    });
}

// A patch sum over a parameter's window at each pixel, read by two kernels (a weight per pixel and
// a weighted output, as non-local means reads its patch distances), so stored: on a GPU each thread
// computes the sums of 4 rows in registers (the register tiles' intermediate of the window, which
// spans rows) and writes them once, instead of a launch that loads and stores each point at every
// step. (Before, one point per thread at the points of a copy: nl_means 4875 -> 4057 us on the
// H100.) Run at sizes and windows it was not planned for.
TEST(UserPipelines, AStoredPatchSumIsComputedInEachThreadsRegisters) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "pain");
        Param<int> patch("patch");
        patch.set_estimate(5);
        Var x("x"), y("y"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func sq("pasq"), dist("padist"), wsum("pawsum"), out("paout");
        sq(x, y, c) = clamped(x, y, c) * clamped(x, y, c);
        RDom p(-(patch / 2), patch, -(patch / 2), patch, "pap");
        dist(x, y, c) = 0.0f;
        dist(x, y, c) += sq(x + p.x, y + p.y, c);
        RDom ch(0, in.dim(2).extent(), "pach");
        wsum(x, y) = 0.0f;
        wsum(x, y) += dist(x, y, ch);
        out(x, y, c) = dist(x, y, c) / (1.0f + wsum(x, y)) + dist(x + 1, y, c) * 0.25f;
        in.set_estimates({{0, 1024}, {0, 1024}, {0, 3}});
        out.set_estimates({{0, 1024}, {0, 1024}, {0, 3}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            // (Names take a suffix where the test builds the pipeline again for its next target.)
            const std::string f = "padist(_[0-9]+)?";
            for (const std::string &line :
                 {"\\[pointwise, 8 rows per block, 4 rows per thread, their windows reduced together in registers "
                  "\\(an intermediate of the root's window\\)\\] writes " +
                      f,
                  "Func " + f + "_intm = " + f + "\\.update\\(0\\)\\.rfactor\\(\\{\\}\\);"})
                EXPECT_TRUE(std::regex_search(plan, std::regex(line))) << line << "\n" << plan;
            EXPECT_FALSE(std::regex_search(plan, std::regex(f + "_global_wrapper_0"))) << plan;
        }
        Pipeline pl = compiled({out}, target);
        for (int n : {5, 1, 4, 9}) {
            patch.set(n);
            for (auto [w, h, d] : std::vector<std::array<int, 3>>{{64, 40, 3}, {37, 29, 2}, {1, 1, 1}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + " patch " +
                             std::to_string(n));
                auto a = random_buffer<float>({w, h, d}, 97);
                in.set(a);
                Buffer<float> o = realized<float>(pl, {w, h, d}, target);
                auto v = [&](int i, int j, int k) {
                    return double(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1), k));
                };
                auto dst = [&](int i, int j, int k) {
                    double acc = 0;
                    for (int q = -(n / 2); q < -(n / 2) + n; q++)
                        for (int r = -(n / 2); r < -(n / 2) + n; r++) acc += v(i + r, j + q, k) * v(i + r, j + q, k);
                    return acc;
                };
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        double ws = 0;
                        for (int k = 0; k < d; k++) ws += dst(q[0], q[1], k);
                        return dst(q[0], q[1], q[2]) / (1 + ws) + dst(q[0] + 1, q[1], q[2]) * 0.25;
                    },
                    1e-4))
                    << plan;
            }
        }
    });
}

// A Tuple argmin along rows (strict <: the first minimum wins), its index and value two outputs
// that share it, over few rows at the estimates (1024 x 16 rows of 256): each thread walks its
// row's steps serially, in its registers, so the tiles take fewer rows until they give every SM
// four blocks (32 x 8 tiles left half of the H100's SMs idle). Run at sizes it was not planned for.
TEST(UserPipelines, AFewRowsScanTakesTilesThatFillTheSMs) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "amin");
        Var y("y"), c("c");
        RDom r(in.dim(0).min(), in.dim(0).extent(), "r");
        Func am("am"), idx("amidx"), val("amval");
        am(y, c) = Tuple(in.dim(0).min() - 1, std::numeric_limits<float>::infinity());
        am(y, c) = select(in(r, y, c) < am(y, c)[1], Tuple(r.x, in(r, y, c)), am(y, c));
        idx(y, c) = am(y, c)[0];
        val(y, c) = am(y, c)[1];
        in.set_estimates({{0, 256}, {0, 1024}, {0, 16}});
        idx.set_estimates({{0, 1024}, {0, 16}});
        val.set_estimates({{0, 1024}, {0, 16}});
        std::string plan = schedule_with_solder({idx, val}, target);
        // (Each row's argmin in a thread's registers: the reduction has no scan dim to keep per tile.)
        if (target != "host") {
            EXPECT_NE(plan.find("each point in a thread's registers, in 32 x 1 tiles, written once through a copy"),
                      std::string::npos)
                << plan;
        }
        Pipeline p = compiled({idx, val}, target);
        for (auto [w, h, d] : std::vector<std::array<int, 3>>{{256, 70, 2}, {37, 9, 3}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d));
            // Values from few levels, so that rows hold equal minima and the first must win.
            auto a = random_buffer<float>({w, h, d}, 91, 0, 4);
            for (int k = 0; k < d; k++)
                for (int j = 0; j < h; j++)
                    for (int i = 0; i < w; i++) a(i, j, k) = std::floor(a(i, j, k));
            in.set(a);
            Buffer<int32_t> oi(h, d);
            Buffer<float> ov(h, d);
            p.realize({oi, ov}, jit_target(target));
            oi.copy_to_host();
            ov.copy_to_host();
            auto first_min = [&](int j, int k) {
                int best = 0;
                for (int i = 1; i < w; i++)
                    if (a(i, j, k) < a(best, j, k)) best = i;
                return best;
            };
            EXPECT_TRUE(matches(
                oi, [&](auto &q) { return double(first_min(q[0], q[1])); }, 0))
                << plan;
            EXPECT_TRUE(matches(
                ov, [&](auto &q) { return double(a(first_min(q[0], q[1]), q[0], q[1])); }, 0))
                << plan;
        }
    });
}

// A planar RGB image's lightness, and a saturation gain around it per channel (each output
// channel reads the pixel's red, green and blue: f(x, y, 0), f(x, y, 1), f(x, y, 2)), with a
// second output of the pixel's max, min and lightness as channels (mux). On a GPU each thread
// computes the 3 channels of its pixels together, unrolled, in a branch for outputs of 3
// channels from 0, so that what the channels share is computed once; other channel counts and
// windows take the general schedule. Run at sizes it was not planned for, 1 to 4 channels, and
// over a window of channels 1 to 3.
TEST(UserPipelines, ChannelsThatReadTheWholePixelAreUnrolledInEachThread) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(8), 3, "chin");
        Param<float> gain("chgain");
        gain.set_estimate(1.5f);
        Var x("x"), y("y"), c("c");
        Func f("chf"), sat("chsat"), ext("chext");
        f(x, y, c) = cast<float>(in(x, y, c)) / 255.0f;
        Expr mx = max(f(x, y, 0), max(f(x, y, 1), f(x, y, 2))), mn = min(f(x, y, 0), min(f(x, y, 1), f(x, y, 2)));
        Expr l = (mx + mn) * 0.5f;
        sat(x, y, c) = cast<uint8_t>(clamp((l + (f(x, y, c) - l) * gain) * 255.0f + 0.5f, 0.0f, 255.0f));
        ext(x, y, c) = mux(c, {mx, mn, l});
        in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        sat.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        ext.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        std::string plan = schedule_with_solder({sat, ext}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("the 3 points of dim 2 unrolled in each thread where the output's dim 2 has 3 from 0"),
                      std::string::npos)
                << plan;
            for (const std::string f : {"chsat(_[0-9]+)?", "chext(_[0-9]+)?"}) {
                const std::string branch =
                    f + "\\.specialize\\(" + f + "\\.output_buffer\\(\\)\\.dim\\(2\\)\\.extent\\(\\) == 3";
                EXPECT_TRUE(std::regex_search(plan, std::regex(branch + ".*\\.unroll\\(" + f + "_ci\\);"))) << plan;
            }
        } else {
            EXPECT_EQ(plan.find("unrolled in each thread"), std::string::npos) << plan;
        }
        Pipeline p = compiled({sat, ext}, target);
        for (float g : {1.5f, 0.25f}) {
            gain.set(g);
            for (auto [w, h, d, c0] : std::vector<std::array<int, 4>>{
                     {64, 40, 3, 0}, {37, 29, 3, 0}, {37, 29, 2, 0}, {9, 5, 4, 0}, {1, 1, 1, 0}, {33, 7, 3, 1}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + " from channel " +
                             std::to_string(c0) + " gain " + std::to_string(g));
                // (The pixel's three channels are read whatever the output's: at least 3.)
                const int in_d = std::max(3, c0 + d);
                Buffer<uint8_t> a(w, h, in_d);
                std::mt19937 rng(unsigned(w * 131 + d));
                a.for_each_value([&](uint8_t &v) { v = uint8_t(rng() % 256); });
                if (w > 2)
                    for (int j = 0; j < h; j++)
                        for (int k = 0; k < in_d; k++) a(1, j, k) = uint8_t(40 * j);  // greys: max == min
                a.set_host_dirty();
                in.set(a);
                Buffer<uint8_t> os(w, h, d);
                Buffer<float> oe(w, h, d);
                os.set_min(0, 0, c0);
                oe.set_min(0, 0, c0);
                p.realize({os, oe}, jit_target(target));
                os.copy_to_host();
                oe.copy_to_host();
                auto px = [&](int i, int j, int k) { return double(float(a(i, j, k)) / 255.0f); };
                auto stats = [&](int i, int j) {
                    double hi = std::max({px(i, j, 0), px(i, j, 1), px(i, j, 2)});
                    double lo = std::min({px(i, j, 0), px(i, j, 1), px(i, j, 2)});
                    return std::array<double, 3>{hi, lo, (hi + lo) * 0.5};
                };
                // (A value within float rounding of an integer may land on either side: one off.)
                int off = 0;
                os.for_each_element([&](int i, int j, int k) {
                    const double lt = stats(i, j)[2];
                    const double v = std::floor(std::clamp((lt + (px(i, j, k) - lt) * g) * 255.0 + 0.5, 0.0, 255.0));
                    off += std::abs(double(os(i, j, k)) - v) > 1;
                });
                EXPECT_EQ(off, 0) << plan;
                EXPECT_TRUE(matches(
                    oe, [&](auto &q) { return stats(q[0], q[1])[size_t(std::clamp(q[2], 0, 2))]; }, 1e-6))
                    << plan;
            }
        }
    });
}

// A per-pixel gain read by each channel of a planar RGB output (`g(x, y)` in `out(x, y, c)`): the
// channels are unrolled in each thread, in the branch where the output has 3 from 0, so the gain's
// load is shared; an f16 alpha blend likewise in its one-point tiles (CUDA's source only: PoCL has
// no f16). Planned at 3840 x 2160 x 3, run at other sizes, 2 channels and 1, and from channel 1.
TEST(UserPipelines, AGainReadByEveryChannelIsLoadedOncePerThread) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "gin"), g(Float(32), 2, "gg");
        Var x("x"), y("y"), c("c");
        Func out("gout");
        out(x, y, c) = in(x, y, c) * g(x, y) + 0.125f;
        in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
        g.set_estimates({{0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
        const std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find("the 3 points of dim 2 unrolled in each thread") != std::string::npos, target != "host")
            << plan;
        Pipeline p = compiled({out}, target);
        for (auto [w, h, d, c0] :
             std::vector<std::array<int, 4>>{{64, 40, 3, 0}, {37, 29, 2, 0}, {1, 1, 1, 0}, {33, 7, 3, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + " from " +
                         std::to_string(c0));
            Buffer<float> a = random_buffer<float>({w, h, c0 + d}, 31), gb = random_buffer<float>({w, h}, 32);
            in.set(a);
            g.set(gb);
            Buffer<float> o(w, h, d);
            o.set_min(0, 0, c0);
            p.realize(o, jit_target(target));
            o.copy_to_host();
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return double(a(q[0], q[1], q[2])) * gb(q[0], q[1]) + 0.125; }, 1e-6))
                << plan;
        }
    });
    ImageParam a(Float(16), 3, "ba"), b(Float(16), 3, "bb"), al(Float(16), 2, "bal");
    Var x("x"), y("y"), c("c");
    Func blend("blend");
    Expr t = cast<float>(al(x, y));
    blend(x, y, c) = cast<float16_t>(cast<float>(a(x, y, c)) * t + cast<float>(b(x, y, c)) * (1.0f - t));
    a.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    b.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    al.set_estimates({{0, 3840}, {0, 2160}});
    blend.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    const std::string plan = schedule_with_solder({blend}, "cuda");
    EXPECT_NE(plan.find("[pointwise, 8 rows per block, the 3 points of dim 2 unrolled in each thread"),
              std::string::npos)
        << plan;
    EXPECT_EQ(plan.find("blend.vectorize("), std::string::npos) << plan;
}

// The same branch where the constant reads are of a small table (a gain and an offset) and each
// channel reads only its own channel of the input: an input of 2 channels or 1, as many as the
// output's, is not read beyond them though the branch splits the channels by 3.
TEST(UserPipelines, AnUnrolledChannelBranchReadsNoChannelBeyondTheInputs) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "cbin"), k(Float(32), 1, "cbk");
        Var x("x"), y("y"), c("c");
        Func out("cbout");
        out(x, y, c) = in(x, y, c) * k(0) + k(1);
        in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        k.set_estimates({{0, 2}});
        out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("the 3 points of dim 2 unrolled in each thread"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        Buffer<float> kb(2);
        kb(0) = 1.5f, kb(1) = -0.25f;
        k.set(kb);
        for (auto [w, h, d] : std::vector<std::array<int, 3>>{{64, 8, 3}, {37, 5, 2}, {9, 3, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d));
            auto a = random_buffer<float>({w, h, d}, 61);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h, d}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return a(q[0], q[1], q[2]) * 1.5 - 0.25; }, 1e-6))
                << plan;
        }
    });
}

// A global tone map of a planar RGB image (Reinhard's, its average a plain mean): each pixel's
// luminance, from its three channels, feeds a total reduction and each output channel. On a GPU
// the output's threads compute the 3 channels of their pixels together, and the pointwise cost
// counts what those read once per pixel (not the row at channel 0, which spans the 3 channels of
// every read), so the luminance is recomputed in the output's threads rather than stored: 2
// kernels (the mean, the output), not 3. Run at other sizes, 2 channels, and from channel 1.
TEST(UserPipelines, ALuminanceEveryChannelReadsIsRecomputedNotStored) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "tmin");
        Var x("x"), y("y"), c("c");
        Func lum("tmlum"), avg("tmavg"), out("tmout");
        lum(x, y) = max(0.25f * in(x, y, 0) + 0.5f * in(x, y, 1) + 0.25f * in(x, y, 2), 0.0f);
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "tmr");
        avg() = sum(lum(r.x, r.y)) / cast<float>(in.dim(0).extent() * in.dim(1).extent());
        Expr l = lum(x, y) / (avg() + 1e-3f);
        out(x, y, c) = in(x, y, c) * (l / (1.0f + l)) / (lum(x, y) + 1e-3f);
        in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
        out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
        const std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find(": 2 kernels,"), std::string::npos) << plan;
            EXPECT_NE(plan.find("the 3 points of dim 2 unrolled in each thread"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h, d, c0] : std::vector<std::array<int, 4>>{
                 {64, 40, 3, 0}, {37, 29, 3, 0}, {37, 29, 2, 0}, {9, 5, 2, 1}, {1, 1, 3, 0}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + " from " +
                         std::to_string(c0));
            const int in_d = std::max(3, c0 + d);
            Buffer<float> a = random_buffer<float>({w, h, in_d}, uint32_t(w + d), 0.0, 1.0);
            in.set(a);
            Buffer<float> o(w, h, d);
            o.set_min(0, 0, c0);
            p.realize(o, jit_target(target));
            o.copy_to_host();
            auto lm = [&](int i, int j) {
                return std::max(0.25 * a(i, j, 0) + 0.5 * a(i, j, 1) + 0.25 * a(i, j, 2), 0.0);
            };
            double mean = 0;
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++) mean += lm(i, j);
            mean /= double(w) * h;
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const double lv = lm(q[0], q[1]) / (mean + 1e-3);
                    return double(a(q[0], q[1], q[2])) * (lv / (1.0 + lv)) / (lm(q[0], q[1]) + 1e-3);
                },
                1e-4))
                << plan;
        }
    });
}

// Whole-image statistics (the mean of an image through a pointwise Func, the maximum of a uint8 one,
// a sum over a run-time number of a vector's points, each a 0-d reduction) standardize the image.
// On the GPU each reduction over an image is cut into slices of its outermost RVar, one block
// each, whose partials one block adds (total_reduction); planned at 1920 x 1080 and run at other
// sizes, larger ones included, and with the vector's sum over 0 points.
TEST(UserPipelines, WholeImageReductionsAreSplitIntoSlicesAtAnySize) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "tin"), bytes(UInt(8), 2, "tbytes"), vec(Float(32), 1, "tvec");
        Param<int> n("tn");
        Var x("x"), y("y"), c("c");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), 0, in.dim(2).extent(), "tr");
        RDom rb(0, bytes.dim(0).extent(), 0, bytes.dim(1).extent(), "trb");
        RDom rv(0, n, "trv");
        Expr count = cast<float>(in.dim(0).extent() * in.dim(1).extent() * in.dim(2).extent());
        Func mean("tmean"), peak("tpeak"), vsum("tvsum"), out("tout");
        Func twice("ttwice");  // (read through a pointwise Func, inlined into the reduction's slices)
        twice(x, y, c) = in(x, y, c) * 2.0f;
        mean() = sum(twice(r.x, r.y, r.z)) / count * 0.5f;
        peak() = maximum(cast<int>(bytes(rb.x, rb.y)));
        vsum() = sum(vec(rv));
        out(x, y, c) = (in(x, y, c) - mean()) / cast<float>(peak() + 1) + vsum();
        in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        bytes.set_estimates({{0, 1920}, {0, 1080}});
        vec.set_estimates({{0, 1 << 20}});
        n.set_estimate(1 << 20);
        out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            const size_t kernels = count_of(plan, "[total_reduction");
            // (The sum over a scalar parameter's points too: it may be empty, tn = 0 below, and its
            // partials are then bound to one slice, an allocation of no bytes being one Halide's
            // runtimes refuse.)
            EXPECT_EQ(kernels, 3u) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{2000, 1100}, {517, 263}, {37, 29}, {1, 1}}) {
            for (int len : {w * h + 3, 1, 0}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(len) + " points");
                auto a = random_buffer<float>({w, h, 3}, 71, -1, 1);
                auto b = random_buffer<uint8_t>({w, h}, 72, 0, 200);
                auto v = random_buffer<float>({std::max(len, 1)}, 73, 0, 1);
                in.set(a);
                bytes.set(b);
                vec.set(v);
                n.set(len);
                double m = 0, s = 0;
                int most = 0;
                a.for_each_value([&](float q) { m += q; });
                m /= double(w) * h * 3;
                b.for_each_value([&](uint8_t q) { most = std::max(most, int(q)); });
                for (int i = 0; i < len; i++) s += v(i);
                Buffer<float> o = realized<float>(p, {w, h, 3}, target);
                EXPECT_TRUE(matches(
                    o, [&](auto &q) { return (a(q[0], q[1], q[2]) - m) / (most + 1) + s; }, 1e-4))
                    << plan;
            }
        }
    });
}

// Each channel's minimum and maximum found together, a Tuple reduction over the plane (three results
// over many points each): its slices' partials are Tuples too. Right at any size.
TEST(UserPipelines, TupleReductionsToFewResultsAreSplitIntoSlices) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 3, "min");
        Var x("x"), y("y"), c("c");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "mr");
        Func mm("mm"), out("mout");
        mm(c) = {Float(32).max(), Float(32).min()};
        Expr v = in(r.x, r.y, c);
        mm(c) = {min(mm(c)[0], v), max(mm(c)[1], v)};
        out(x, y, c) = (in(x, y, c) - mm(c)[0]) / (mm(c)[1] - mm(c)[0] + 1e-6f);
        in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_TRUE(std::regex_search(plan, std::regex("k0_mm[$0-9]* \\[total_reduction"))) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{2000, 1100}, {517, 263}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h, 3}, 81, -3, 5);
            in.set(a);
            std::array<float, 3> lo, hi;
            lo.fill(std::numeric_limits<float>::max());
            hi.fill(std::numeric_limits<float>::lowest());
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < h; j++)
                    for (int i = 0; i < w; i++)
                        lo[k] = std::min(lo[k], a(i, j, k)), hi[k] = std::max(hi[k], a(i, j, k));
            Buffer<float> o = realized<float>(p, {w, h, 3}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return (a(q[0], q[1], q[2]) - lo[q[2]]) / (hi[q[2]] - lo[q[2]] + 1e-6f); }, 1e-5))
                << plan;
        }
    });
}

// A cross-entropy as users write it: each row's log-sum-exp (a maximum, then a sum of exponentials
// around it), minus the logit of the row's label, averaged into one value. The label's logit is one
// point of each row (a gather), not the whole table: the rows' reductions take blocks of their own,
// not one thread per row walking them. Right at other sizes.
TEST(UserPipelines, ACrossEntropysRowReductionsTakeBlocks) {
    for_each_target([](const std::string &target) {
        ImageParam lg(Float(32), 2, "xlogits"), lab(Int(32), 1, "xlabels");
        Var n("n");
        RDom k(0, lg.dim(0).extent(), "xk"), r(0, lg.dim(1).extent(), "xr");
        Func mx("xmx"), lse("xlse"), loss("xloss"), out("xout");
        mx(n) = maximum(lg(k, n));
        lse(n) = log(sum(exp(lg(k, n) - mx(n)))) + mx(n);
        loss(n) = lse(n) - lg(clamp(lab(n), 0, lg.dim(0).extent() - 1), n);
        out() = sum(loss(r)) / cast<float>(lg.dim(1).extent());
        lg.set_estimates({{0, 8192}, {0, 4096}});
        lab.set_estimates({{0, 4096}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_EQ(count_of(plan, "[block_reduction"), 2u) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [v, rows] : std::vector<std::pair<int, int>>{{1000, 300}, {37, 5}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(v) + " classes x " + std::to_string(rows) + " rows");
            auto a = random_buffer<float>({v, rows}, 91, -4, 4);
            auto l = random_buffer<int32_t>({rows}, 92, 0, v - 1);
            lg.set(a);
            lab.set(l);
            double want = 0;
            for (int j = 0; j < rows; j++) {
                double m = -1e30, s = 0;
                for (int i = 0; i < v; i++) m = std::max(m, double(a(i, j)));
                for (int i = 0; i < v; i++) s += std::exp(double(a(i, j)) - m);
                want += std::log(s) + m - a(std::clamp(l(j), 0, v - 1), j);
            }
            want /= rows;
            Buffer<float> o = p.realize({}, jit_target(target));
            o.copy_to_host();
            EXPECT_NEAR(o(), want, 1e-4 * std::max(1.0, std::abs(want))) << plan;
        }
    });
}

// Short rows' log-sum-exps, one per point of the root: each row's maximum, read by the sum of
// exponentials, is computed once in the root's thread, not again at every step of the sum (which
// Halide does for a Func with updates left unscheduled: the whole maximum per step).
TEST(UserPipelines, AReductionReadByAnotherInTheSameThreadIsComputedOnce) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "lin");
        Var n("n");
        RDom k(0, in.dim(0).extent(), "lk");
        Func mx("lmx"), out("llse");
        mx(n) = maximum(in(k, n));
        out(n) = log(sum(exp(in(k, n) - mx(n)))) + mx(n);
        in.set_estimates({{0, 8}, {0, 1 << 20}});
        out.set_estimates({{0, 1 << 20}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[pointwise"), std::string::npos) << plan;
            EXPECT_TRUE(std::regex_search(plan, std::regex("maximum[_0-9]*\\.compute_at\\(llse"))) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, rows] : std::vector<std::pair<int, int>>{{8, 1000}, {3, 77}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(rows));
            auto a = random_buffer<float>({w, rows}, 93, -4, 4);
            in.set(a);
            Buffer<float> o = realized<float>(p, {rows}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double m = -1e30, s = 0;
                    for (int i = 0; i < w; i++) m = std::max(m, double(a(i, q[0])));
                    for (int i = 0; i < w; i++) s += std::exp(double(a(i, q[0])) - m);
                    return std::log(s) + m;
                },
                1e-4))
                << plan;
        }
    });
}

// A joint histogram of two 8-bit images, 256 x 256 bins: too many for a block's shared memory, so
// each pixel's increment goes atomically to the Func's own bins, every pixel a thread of one launch
// (the bins of a chunk of rows each, zeroed, filled and merged, were 4x the pixels' bytes).
TEST(UserPipelines, AHistogramOfMoreBinsThanSharedMemoryHoldsIncrementsItsOwnBins) {
    for_each_target([](const std::string &target) {
        ImageParam a(UInt(8), 2, "ja"), b(UInt(8), 2, "jb");
        Var x("x"), y("y");
        RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "jr");
        Func h("joint");
        h(x, y) = 0;
        h(cast<int>(a(r.x, r.y)), cast<int>(b(r.x, r.y))) += 1;
        a.set_estimates({{0, 1920}, {0, 1080}});
        b.set_estimates({{0, 1920}, {0, 1080}});
        h.set_estimates({{0, 256}, {0, 256}});
        std::string plan = schedule_with_solder({h}, target);
        if (target != "host") {
            EXPECT_EQ(plan.find("chunk"), std::string::npos) << plan;
            EXPECT_NE(plan.find(".atomic()"), std::string::npos) << plan;
        }
        Pipeline p = compiled({h}, target);
        for (auto [w, hh] : sizes_with(640, 360)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(hh));
            auto ia = random_buffer<uint8_t>({w, hh}, 94, 0, 256), ib = random_buffer<uint8_t>({w, hh}, 95, 0, 256);
            a.set(ia);
            b.set(ib);
            std::vector<int32_t> want(256 * 256, 0);
            for (int j = 0; j < hh; j++)
                for (int i = 0; i < w; i++) want[ia(i, j) + 256 * ib(i, j)]++;
            Buffer<int32_t> o = realized<int32_t>(p, {256, 256}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[q[0] + 256 * q[1]]; }, 0))
                << plan;
        }
    });
}

// A first-order recursive filter along each of 2160 rows (a scan, each thread walking its row):
// its blocks take fewer threads than a warp, so that the rows spread over every SM, about two
// blocks per SM (68 blocks of 32 left half of the H200's 132 SMs idle). Right at other sizes.
TEST(UserPipelines, ScansAlongFewRowsSpreadOverTheSMs) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "sin");
        Var x("x"), y("y");
        RDom r(1, in.dim(0).extent() - 1, "sr");
        Func fwd("sfwd");
        fwd(x, y) = in(x, y);
        fwd(r, y) = 0.25f * in(r, y) + 0.75f * fwd(r - 1, y);
        in.set_estimates({{0, 4096}, {0, 2160}});
        fwd.set_estimates({{0, 4096}, {0, 2160}});
        std::string plan = schedule_with_solder({fwd}, target);
        if (target != "host") {
            // (Its steps 32 at a time: the scan reads the input at each, UserPipelines.RowScansThatReadAnInputWalkMoreStepsAtATime)
            EXPECT_NE(plan.find("stage 1 in blocks of 8, stage 1 walked 32 steps at a time]"), std::string::npos)
                << plan;
        }
        Pipeline p = compiled({fwd}, target);
        for (auto [w, h] : sizes_with(300, 70)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 96, -1, 1);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            std::vector<double> want(size_t(w) * h);
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++)
                    want[size_t(j) * w + i] = i == 0 ? a(0, j) : 0.25 * a(i, j) + 0.75 * want[size_t(j) * w + i - 1];
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[1]) * w + q[0]]; }, 1e-5))
                << plan;
        }
    });
}

// A Func refined by two in-place updates without an RDom (clipped where a mask is set, then
// squared with its sign), read by a 2 x 2 downsample: each point is read once, so each thread of
// the downsample computes its four points in registers, one launch; stored, the Func was written
// and read back (46.5 us against 20.0 for Anderson2021's on the H200). On a GPU each thread
// computes them at its own point, every stage's 2 x 2 loops unrolled (left where Halide places a
// Func with updates, they were 8 x 2 points per vector of 4 on the thread's stack, indexed at run
// time: 37.8 us; so, 16.0). Right at other sizes.
TEST(UserPipelines, AFuncRefinedInPlaceIsComputedInItsReadersThreads) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "pin"), mask(UInt(8), 2, "pmask");
        Var x("x"), y("y");
        Func f("pf"), out("pout");
        f(x, y) = in(x, y) * 1.5f;
        f(x, y) = select(mask(x, y) > 128, clamp(f(x, y), -0.5f, 0.5f), f(x, y));
        f(x, y) = f(x, y) * abs(f(x, y));
        out(x, y) = (f(2 * x, 2 * y) + f(2 * x + 1, 2 * y) + f(2 * x, 2 * y + 1) + f(2 * x + 1, 2 * y + 1)) * 0.25f;
        in.set_estimates({{0, 1920}, {0, 1080}});
        mask.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 960}, {0, 540}});
        std::string plan = schedule_with_solder({out}, target);
        EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
        if (target != "host") {
            // (The Funcs' names gain a suffix where a target before built them too: pf$1.)
            EXPECT_NE(plan.find(".compute_at(pout"), std::string::npos) << plan;
            for (const char *stage : {".unroll(x, 2,", ".update(0).unroll(y, 2,", ".update(1).unroll(x, 2,"})
                EXPECT_NE(plan.find(stage), std::string::npos) << stage << "\n" << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(960, 540)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({2 * w, 2 * h}, 97, -1, 1);
            auto m = random_buffer<uint8_t>({2 * w, 2 * h}, 98, 0, 256);
            in.set(a);
            mask.set(m);
            auto fv = [&](int i, int j) {
                double v = a(i, j) * 1.5f;
                if (m(i, j) > 128) v = std::clamp(v, -0.5, 0.5);
                return v * std::abs(v);
            };
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int i = 2 * q[0], j = 2 * q[1];
                    return (fv(i, j) + fv(i + 1, j) + fv(i, j + 1) + fv(i + 1, j + 1)) * 0.25;
                },
                1e-5))
                << plan;
        }
    });
}

// A gradient's magnitude and angle (a Tuple output) from a 3 x 3 cross of a clamped image: the
// clamped input, read through this one stencil only, is not staged per tile (L1 serves its taps:
// 60.4 -> 37.4 us on the H200), and the plan says why. Right at other sizes.
TEST(UserPipelines, AClampedInputReadThroughOneStencilIsNotStaged) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "gin");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        Func out("gpolar");
        Expr gx = cl(x + 1, y) - cl(x - 1, y), gy = cl(x, y + 1) - cl(x, y - 1);
        out(x, y) = {sqrt(gx * gx + gy * gy), atan2(gy, gx)};
        in.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[stencil_tile"), std::string::npos) << plan;
            EXPECT_NE(plan.find("read through one stencil only"), std::string::npos) << plan;
            EXPECT_EQ(plan.find(".compute_at("), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(640, 360)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 99, -1, 1);
            in.set(a);
            Realization r = p.realize({w, h}, jit_target(target));
            Buffer<float> mag = r[0], ang = r[1];
            mag.copy_to_host();
            ang.copy_to_host();
            auto at = [&](int i, int j) { return a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1)); };
            auto grads = [&](auto &q) {
                return std::pair<float, float>{at(q[0] + 1, q[1]) - at(q[0] - 1, q[1]),
                                               at(q[0], q[1] + 1) - at(q[0], q[1] - 1)};
            };
            EXPECT_TRUE(matches(
                mag,
                [&](auto &q) {
                    auto [gx, gy] = grads(q);
                    return std::sqrt(double(gx) * gx + double(gy) * gy);
                },
                1e-5))
                << plan;
            EXPECT_TRUE(matches(
                ang,
                [&](auto &q) {
                    auto [gx, gy] = grads(q);
                    return std::atan2(double(gy), double(gx));
                },
                1e-4))
                << plan;
        }
    });
}

// Scores by a product over channels (`sum(q(r, t) * k(r, j))`: Halide's inline sum names its vars
// as the expression meets them, t before j), then a softmax along j. Computed per block of the
// softmax's rows, the sum's threads cover j, the var its 1024 points of a block lie along: on t,
// whose extent in a block is one, one thread computed them all (46 ms at 16 heads on the H200).
// Only where the keys' count is constant: known only at run time, the row of scores a block would
// keep in shared memory grows with it, and the scores are stored instead (1024 keys planned, 16384
// run: 64 KB a block).
TEST(UserPipelines, AReductionComputedPerBlockSpreadsItsThreadsAlongItsPointsThere) {
    for_each_target([](const std::string &target) {
        auto define = [](ImageParam &q, ImageParam &k, Func &out) {
            Var j("j"), t("t");
            RDom rd(0, q.dim(0).extent(), "srd"), rj(0, k.dim(1).extent(), "srj");
            Func s("sscore"), m("smax"), e("sexp");
            s(j, t) = sum(q(rd, t) * k(rd, j));
            m(t) = maximum(s(rj, t));
            e(j, t) = exp(s(j, t) - m(t));
            out(j, t) = e(j, t) / sum(e(rj, t));
            q.set_estimates({{0, 64}, {0, 1024}});
            k.set_estimates({{0, 64}, {0, 1024}});
            out.set_estimates({{0, 1024}, {0, 1024}});
        };
        // (With contraction tiles the scores are stored instead, computed 4 x 4 per thread:
        // ContractionTiles.AttentionStoresItsScaledScores.)
        solder::autosched::PlannerOptions opt;
        opt.contraction_tiles = false;
        {
            ImageParam q(Float(32), 2, "fq"), k(Float(32), 2, "fk");
            Func out("fprob");
            define(q, k, out);
            for (ImageParam *in : {&q, &k}) in->dim(0).set_bounds(0, 64), in->dim(1).set_bounds(0, 1024);
            out.output_buffer().dim(0).set_bounds(0, 1024).dim(1).set_bounds(0, 1024);
            const std::string plan = schedule_with_solder({out}, target, opt);
            if (target != "host") {
                EXPECT_NE(plan.find("computed per block: sum"), std::string::npos) << plan;
                EXPECT_TRUE(std::regex_search(plan, std::regex("\\bsum[_0-9]*\\.gpu_threads\\(j\\)"))) << plan;
            }
        }
        ImageParam q(Float(32), 2, "sq"), k(Float(32), 2, "sk");
        Func out("sprob");
        define(q, k, out);
        std::string plan = schedule_with_solder({out}, target, opt);
        if (target != "host") {
            EXPECT_NE(plan.find("grow with the sizes the pipeline runs at"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [d, n] : std::vector<std::pair<int, int>>{{64, 1024}, {5, 300}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(d) + " x " + std::to_string(n));
            auto qa = random_buffer<float>({d, n}, 11, -1, 1), ka = random_buffer<float>({d, n}, 12, -1, 1);
            q.set(qa);
            k.set(ka);
            Buffer<float> o = realized<float>(p, {n, n}, target);
            std::vector<double> row(size_t(n), 0.0);
            int cached = -1;
            EXPECT_TRUE(matches(
                o,
                [&](auto &at) {
                    const int tt = at[1];
                    if (tt != cached) {
                        double mx = -1e30;
                        for (int jj = 0; jj < n; jj++) {
                            double v = 0;
                            for (int r = 0; r < d; r++) v += double(qa(r, tt)) * ka(r, jj);
                            row[size_t(jj)] = v;
                            mx = std::max(mx, v);
                        }
                        double total = 0;
                        for (auto &v : row) total += (v = std::exp(v - mx));
                        for (auto &v : row) v /= total;
                        cached = tt;
                    }
                    return row[size_t(at[0])];
                },
                1e-4))
                << plan;
        }
    });
}

// Each row's cumulative sum as a predicated reduction (`r.where(r <= x)`): a million results, each
// reading its row's points as its neighbours do. A thread per result, the neighbours' loads shared
// by a warp (1437 -> 144 us on the H200 against a block per result, each reading its row again).
TEST(UserPipelines, ResultsThatReadTheSamePointsAsTheirNeighboursTakeAThreadEach) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "tin");
        Var x("x"), y("y");
        RDom r(0, in.dim(0).extent(), "tr");
        r.where(r <= x);
        Func out("tcum");
        out(x, y) = 0.0f;
        out(x, y) += in(r, y);
        in.set_estimates({{0, 1024}, {0, 1024}});
        out.set_estimates({{0, 1024}, {0, 1024}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_EQ(plan.find("[block_reduction"), std::string::npos) << plan;
            EXPECT_EQ(plan.find("rfactor"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(300, 64)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 17, -1, 1);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int i = 0; i <= q[0]; i++) s += a(i, q[1]);
                    return s;
                },
                1e-4))
                << plan;
        }
    });
}

// The mean over a disk of a Param radius (`r.where(r.x * r.x + r.y * r.y <= radius * radius)`,
// edges mirrored). The predicate names only the RDom and a Param: every point skips the same
// steps, so the window is fused like any other (each thread reducing several rows' windows in
// registers), not a generic kernel of its own (395 -> 129 us on the H200; Anderson2021 240).
TEST(UserPipelines, AWindowWhosePredicateIsTheSameAtEveryPointIsFused) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "din");
        Param<int> radius("dradius");
        radius.set_estimate(3);
        Var x("x"), y("y");
        Func cl = BoundaryConditions::mirror_interior(in);
        RDom r(-radius, 2 * radius + 1, -radius, 2 * radius + 1, "dr");
        r.where(r.x * r.x + r.y * r.y <= radius * radius);
        Func win("dsum"), out("ddisk");
        win(x, y) = 0.0f;
        win(x, y) += cl(x + r.x, y + r.y);
        out(x, y) = win(x, y) * 0.01f;
        in.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_EQ(plan.find("[generic"), std::string::npos) << plan;
            EXPECT_NE(plan.find("reduced together in registers"), std::string::npos) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (int rad : {3, 0, 5}) {
            radius.set(rad);
            for (auto [w, h] : sizes_with(333, 97)) {
                if (w <= rad || h <= rad) continue;  // mirror_interior reaches at most one extent past an edge
                SCOPED_TRACE("radius " + std::to_string(rad) + ", " + std::to_string(w) + "x" + std::to_string(h));
                auto a = random_buffer<float>({w, h}, 23, -1, 1);
                in.set(a);
                Buffer<float> o = realized<float>(p, {w, h}, target);
                auto mirror = [](int i, int n) {
                    if (n == 1) return 0;
                    const int period = 2 * (n - 1);
                    i = ((i % period) + period) % period;
                    return i < n ? i : period - i;
                };
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        double s = 0;
                        for (int dy = -rad; dy <= rad; dy++)
                            for (int dx = -rad; dx <= rad; dx++)
                                if (dx * dx + dy * dy <= rad * rad) s += a(mirror(q[0] + dx, w), mirror(q[1] + dy, h));
                        return s * 0.01;
                    },
                    1e-4))
                    << plan;
            }
        }
    });
}

// Rows normalized by the mean of their even columns (`r.where(r % 2 == 0)`, the same at every
// point): the predicate no longer makes the sum generic, so the row template computes it per
// block; with CUDA's warp shuffles as well (lowered here for CUDA: no GPU needed), and run on the
// host and OpenCL at several sizes.
TEST(UserPipelines, ARowSumWhosePredicateIsTheSameAtEveryPointTakesTheRowTemplate) {
    auto build = [](ImageParam &in, Func &out) {
        Var x("x"), y("y");
        RDom r(0, in.dim(0).extent(), "er");
        r.where(r % 2 == 0);
        Func mean("emean");
        mean(y) = 0.0f;
        mean(y) += in(r, y) * 2.0f / cast<float>(in.dim(0).extent());
        out(x, y) = in(x, y) - mean(y);
        in.set_estimates({{0, 4096}, {0, 2048}});
        out.set_estimates({{0, 4096}, {0, 2048}});
    };
    {
        ImageParam in(Float(32), 2, "ein");
        Func out("enorm");
        build(in, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("[row"), std::string::npos) << plan;
        EXPECT_EQ(plan.find("generic"), std::string::npos) << plan;
        EXPECT_NO_THROW(Pipeline({out}).compile_to_lowered_stmt(::testing::TempDir() + "/even_rows.stmt", {in},
                                                                Halide::StmtOutputFormat::Text,
                                                                solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(Float(32), 2, "ein");
        Func out("enorm");
        build(in, out);
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(1000, 64)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 41, -1, 1);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double m = 0;
                    for (int i = 0; i < w; i += 2) m += a(i, q[1]) * 2.0 / w;
                    return a(q[0], q[1]) - m;
                },
                1e-4))
                << plan;
        }
    });
}

// Scatters that write a pure var as it is beside their bins: a histogram per channel of a planar
// image (`hist(in(r.x, r.y, c), c) += 1`) and sums of points scattered by a label per coordinate
// (`acc(label(r), d) += pts(r, d)`, a k-means step). Their pure vars have 3 and 2 points, so a
// thread per point of them walked the whole RDom (a 4K image's histograms took 458 ms on the
// H200); they run over their RDom's points instead, those vars a grid dim (or, for the histogram
// on CUDA, a loop in each chunk of rows; the sums in chunks of points too). Float atomics exist on
// CUDA, not on OpenCL, where the sums keep a thread per point of their pure var.
TEST(UserPipelines, ScattersBesideAPureVarRunOverTheirRDom) {
    auto define = [](ImageParam &img, ImageParam &pts, Func &hist, Func &acc) {
        Var i("i"), c("c"), k("k"), d("d");
        RDom r(0, img.dim(0).extent(), 0, img.dim(1).extent(), "r");
        hist(i, c) = 0;
        hist(cast<int>(img(r.x, r.y, c)), c) += 1;
        RDom p(0, pts.dim(0).extent(), "p");
        Func label("label");
        label(i) = clamp(cast<int>((pts(i, 0) + 1.0f) * 4.0f), 0, 7);
        acc(k, d) = 0.0f;
        acc(label(p), d) += pts(p, d);
        img.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
        pts.set_estimates({{0, 1 << 20}, {0, 2}});
        hist.set_estimates({{0, 256}, {0, 3}});
        acc.set_estimates({{0, 8}, {0, 2}});
    };
    {
        ImageParam img(UInt(8), 3, "cimg"), pts(Float(32), 2, "cpts");
        Func hist("chist"), acc("cacc");
        define(img, pts, hist, acc);
        const std::string plan = schedule_with_solder({hist, acc}, "cuda");
        // (Both outputs: their bins in shared memory where the output's extents, given when the
        // pipeline runs, fit.)
        EXPECT_TRUE(
            std::regex_search(plan, std::regex(R"(chist\S* \[generic, a scatter in chunks \(of rows, or of a 1-D )"
                                               R"(RDom's points\), their bins in shared memory where .* \(elsewhere )"
                                               R"(each increment atomic in global memory\), stage 1 over its RDom's )"
                                               R"(points\])")))
            << plan;
        // (The sums over 2^20 points in chunks of kScatterPointsPerChunk, their 16 bins in each
        // chunk's shared memory: CUDA has float atomics there.)
        EXPECT_TRUE(
            std::regex_search(plan, std::regex(R"(cacc\S* \[generic, a scatter in chunks \(of rows, or of a 1-D )"
                                               R"(RDom's points\), their bins in shared memory where .* \(elsewhere )"
                                               R"(each increment atomic in global memory\), stage 1 over its RDom's )"
                                               R"(points\])")))
            << plan;
        EXPECT_NO_THROW(Pipeline({hist, acc})
                            .compile_to_lowered_stmt(::testing::TempDir() + "/scatters_beside_pure.stmt", {img, pts},
                                                     Halide::StmtOutputFormat::Text, solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam img(UInt(8), 3, "img"), pts(Float(32), 2, "pts");
        Func hist("hist"), acc("acc");
        define(img, pts, hist, acc);
        std::string plan = schedule_with_solder({hist, acc}, target);
        if (target != "host") {
            EXPECT_TRUE(std::regex_search(plan, std::regex(R"(hist\S* \[generic, stage 1 over its RDom's points\])")))
                << plan;
            EXPECT_TRUE(std::regex_search(
                plan, std::regex(
                          R"(acc\S* \[generic(, stage 1 in blocks of \d+)?(, stage 1 walked \d+ steps at a time)?\])")))
                << plan;
        }
        Pipeline p = compiled({hist, acc}, target);
        for (auto [w, h] : sizes_with(640, 360)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<uint8_t>({w, h, 3}, 43, 0, 256);
            auto q = random_buffer<float>({w * 3, 2}, 44, -1, 1);
            img.set(a);
            pts.set(q);
            Buffer<int> hb(256, 3);
            Buffer<float> ab(8, 2);
            p.realize(Realization({hb, ab}), jit_target(target));
            hb.copy_to_host();
            ab.copy_to_host();
            std::vector<int> want(256 * 3, 0);
            a.for_each_element([&](int x, int y, int c) { want[size_t(a(x, y, c)) + 256 * size_t(c)]++; });
            EXPECT_TRUE(matches(
                hb, [&](auto &e) { return want[size_t(e[0]) + 256 * size_t(e[1])]; }, 0))
                << plan;
            std::vector<double> sums(16, 0.0);
            for (int n = 0; n < w * 3; n++) {
                const int l = std::clamp(int((q(n, 0) + 1.0f) * 4.0f), 0, 7);
                for (int d = 0; d < 2; d++) sums[size_t(l) + 8 * size_t(d)] += q(n, d);
            }
            EXPECT_TRUE(matches(
                ab, [&](auto &e) { return sums[size_t(e[0]) + 8 * size_t(e[1])]; }, 1e-2))
                << plan;
        }
    });
}

// Histograms per 8 x 8 cell (an oriented-gradient descriptor's shape): a scatter whose bin is
// data-dependent beside two pure cell dims, over an RDom of 64 points at each of 32400 cells, read
// by another Func. A thread per cell walking its 64 points made each increment wait on the
// previous one's store to global memory (82 us on the H200 for a 1920 x 1080 image's float bins;
// each increment atomic in global memory instead, 153); on CUDA a block per cell takes its bins in
// shared memory, its 64 threads one point each. (OpenCL has no shared-memory atomics here:
// PlannerOptions::shared_atomics; the counts run there and on the host at other cell counts.)
// Histograms of 8 bins per 8 x 8 cell (oriented-gradient histograms, a bilateral grid). At many
// cells (240 x 135 estimated) a thread per cell walks the cell's 64 pixels, the bins of its block's
// 128 cells in shared memory, no atomics (GenericParams::cell_threads); at fewer (80 x 45), or with
// cell_threads off, a block per cell adds its pixels atomically in shared memory (CUDA only:
// GenericParams::cell_lanes). Planned at each, run at other sizes on the host and OpenCL.
TEST(UserPipelines, ScattersOverASmallRDomAtManyCellsTakeAThreadOrABlockPerCell) {
    auto define = [](ImageParam &img, Func &hist, Func &out, bool counts, int cw, int ch) {
        Var b("b"), cx("cx"), cy("cy");
        RDom p(0, 8, 0, 8, "p");
        Expr v = img(cx * 8 + p.x, cy * 8 + p.y);
        hist(b, cx, cy) = counts ? Expr(0) : Expr(0.0f);
        hist(cast<int>(v / 32), cx, cy) += counts ? Expr(1) : cast<float>(v) / 255.0f;
        out(b, cx, cy) = hist(b, cx, cy) * 2;
        img.set_estimates({{0, cw * 8}, {0, ch * 8}});
        out.set_estimates({{0, 8}, {0, cw}, {0, ch}});
    };
    const std::string per_thread = "[generic, a thread per point of the pure vars its scatter writes as they are (a "
                                   "cell) walking its RDom, 128 cells per block, their bins in shared memory, written "
                                   "once through a copy]";
    const std::string per_block = "[generic, a block per point of the pure vars its scatter writes as they are, their "
                                  "bins in shared memory, its RDom over 64 threads, written once through a copy]";
    for (bool counts : {false, true})
        for (auto [cw, ch, cell_threads] :
             std::vector<std::tuple<int, int, bool>>{{240, 135, true}, {80, 45, true}, {240, 135, false}}) {
            SCOPED_TRACE(std::to_string(cw) + "x" + std::to_string(ch) + (cell_threads ? "" : ", cell_threads off"));
            ImageParam img(UInt(8), 2, "cimg");
            Func hist("chist"), out("cout");
            define(img, hist, out, counts, cw, ch);
            solder::autosched::PlannerOptions o;
            o.cell_threads = cell_threads;
            const std::string plan = schedule_with_solder({out}, "cuda", o);
            EXPECT_NE(plan.find(cw == 240 && cell_threads ? per_thread : per_block), std::string::npos) << plan;
            EXPECT_NO_THROW(Pipeline(out).compile_to_lowered_stmt(::testing::TempDir() + "/cell_hist.stmt", {img},
                                                                  Halide::StmtOutputFormat::Text,
                                                                  solder::make_target("cuda")))
                << plan;
        }
    for_each_target([&](const std::string &target) {
        for (auto [ew, eh] : std::vector<std::pair<int, int>>{{240, 135}, {80, 45}}) {
            SCOPED_TRACE("planned at " + std::to_string(ew) + "x" + std::to_string(eh) + " cells");
            ImageParam img(UInt(8), 2, "img");
            Func hist("hist"), out("out");
            define(img, hist, out, true, ew, eh);
            std::string plan = schedule_with_solder({out}, target);
            if (target == "opencl" && ew == 240) {
                EXPECT_NE(plan.find(per_thread), std::string::npos) << plan;
            }
            Pipeline p = compiled({out}, target);
            for (auto [cw, ch] : std::vector<std::pair<int, int>>{{80, 45}, {5, 3}, {1, 1}, {131, 5}, {300, 7}}) {
                SCOPED_TRACE(std::to_string(cw) + "x" + std::to_string(ch) + " cells");
                auto a = random_buffer<uint8_t>({cw * 8, ch * 8}, 45, 0, 256);
                img.set(a);
                Buffer<int> o = realized<int>(p, {8, cw, ch}, target);
                std::vector<int> want(size_t(8 * cw * ch), 0);
                a.for_each_element([&](int x, int y) { want[size_t(a(x, y) / 32 + 8 * (x / 8 + cw * (y / 8)))] += 2; });
                EXPECT_TRUE(matches(
                    o, [&](auto &e) { return want[size_t(e[0] + 8 * (e[1] + cw * e[2]))]; }, 0))
                    << plan;
            }
        }
    });
}

// Per-cell histograms of a 3-channel image with the cells' dims and the bins in other places:
// the bins between the cell dims, the bins outermost, and the channel (3 points) as the
// innermost cell dim. A thread per cell where the innermost cell dim spans a warp (the first two),
// otherwise not (GenericParams::cell_threads). Run on the host and OpenCL at other sizes.
TEST(UserPipelines, CellScattersWithTheBinsAnywhereMatch) {
    for (int layout : {0, 1, 2})
        for (auto &target : user_targets()) {
            SCOPED_TRACE("layout " + std::to_string(layout) + ", " + target);
            ImageParam img(UInt(8), 3, "img");
            Var b("b"), cx("cx"), cy("cy"), ch("ch");
            RDom p(0, 4, 0, 4, "p");
            Expr bin = cast<int>(img(cx * 4 + p.x, cy * 4 + p.y, ch) / 64);
            Func hist("hist"), out("out");
            if (layout == 0) {
                hist(cx, b, cy, ch) = 0;
                hist(cx, bin, cy, ch) += 1;
                out(cx, b, cy, ch) = hist(cx, b, cy, ch) * 2;
                out.set_estimates({{0, 256}, {0, 4}, {0, 128}, {0, 3}});
            } else if (layout == 1) {
                hist(cx, cy, ch, b) = 0;
                hist(cx, cy, ch, bin) += 1;
                out(cx, cy, ch, b) = hist(cx, cy, ch, b) * 2;
                out.set_estimates({{0, 256}, {0, 128}, {0, 3}, {0, 4}});
            } else {
                hist(ch, cx, cy, b) = 0;
                hist(ch, cx, cy, bin) += 1;
                out(ch, cx, cy, b) = hist(ch, cx, cy, b) * 2;
                out.set_estimates({{0, 3}, {0, 256}, {0, 128}, {0, 4}});
            }
            img.set_estimates({{0, 1024}, {0, 512}, {0, 3}});
            const std::string plan = schedule_with_solder({out}, target);
            if (target == "opencl") {
                EXPECT_EQ(plan.find("a thread per point of the pure vars its scatter writes") != std::string::npos,
                          layout != 2)
                    << plan;
            }
            Pipeline pp = compiled({out}, target);
            for (auto [cw, chh] : std::vector<std::pair<int, int>>{{70, 9}, {1, 1}, {300, 3}}) {
                SCOPED_TRACE(std::to_string(cw) + "x" + std::to_string(chh) + " cells");
                auto a = random_buffer<uint8_t>({cw * 4, chh * 4, 2}, 45, 0, 256);
                img.set(a);
                const std::vector<int> sizes = layout == 0   ? std::vector<int>{cw, 4, chh, 2}
                                               : layout == 1 ? std::vector<int>{cw, chh, 2, 4}
                                                             : std::vector<int>{2, cw, chh, 4};
                Buffer<int> o = realized<int>(pp, sizes, target);
                std::map<std::array<int, 4>, int> want;  // (cx, cy, ch, bin)
                a.for_each_element([&](int x, int y, int c) { want[{x / 4, y / 4, c, a(x, y, c) / 64}] += 2; });
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &e) {
                        const std::array<int, 4> k = layout == 0   ? std::array<int, 4>{e[0], e[2], e[3], e[1]}
                                                     : layout == 1 ? std::array<int, 4>{e[0], e[1], e[2], e[3]}
                                                                   : std::array<int, 4>{e[1], e[2], e[0], e[3]};
                        auto it = want.find(k);
                        return it == want.end() ? 0 : it->second;
                    },
                    0))
                    << plan;
            }
        }
}

// Local binary patterns with a 256-bin histogram per 8 x 8 cell (8-bit codes, an inlined stencil
// of the input; 16 of the bins used): at these few cells the scatter takes a block per cell adding
// atomically, and the codes it bins are stored, so that each bin is one load (Halide made the increments of a computed
// bin compare-and-swap loops: 70.5 us for 8160 cells on the H200, 13.7 from stored codes). Run on
// the host and OpenCL at other sizes.
TEST(UserPipelines, PerCellScattersStoreTheFuncsTheirBinsComeFrom) {
    for (auto &target : std::vector<std::string>{"cuda", "host", "opencl"}) {
        SCOPED_TRACE(target);
        ImageParam img(UInt(8), 2, "limg");
        Var x("x"), y("y"), b("b"), cx("cx"), cy("cy");
        Func cl = BoundaryConditions::repeat_edge(img);
        Func code("lcode"), hist("lhist"), out("lout");
        code(x, y) = cast<uint8_t>(select(cl(x - 1, y) >= cl(x, y), 1, 0) | select(cl(x + 1, y) >= cl(x, y), 2, 0) |
                                   select(cl(x, y - 1) >= cl(x, y), 4, 0) | select(cl(x, y + 1) >= cl(x, y), 8, 0));
        RDom p(0, 8, 0, 8, "p");
        hist(b, cx, cy) = 0;
        hist(cast<int>(code(cx * 8 + p.x, cy * 8 + p.y)), cx, cy) += 1;
        out(b, cx, cy) = hist(b, cx, cy) * 3;
        img.set_estimates({{0, 640}, {0, 480}});
        out.set_estimates({{0, 256}, {0, 80}, {0, 60}});
        const std::string plan = schedule_with_solder({out}, target);
        if (target == "cuda") {
            EXPECT_NE(plan.find("the bin of lhist's per-cell scatter is computed from it"), std::string::npos) << plan;
            EXPECT_NO_THROW(Pipeline(out).compile_to_lowered_stmt(
                ::testing::TempDir() + "/lbp.stmt", {img}, Halide::StmtOutputFormat::Text, solder::make_target("cuda")))
                << plan;
            continue;
        }
        Pipeline pp = compiled({out}, target);
        for (auto [cw, ch] : std::vector<std::pair<int, int>>{{80, 60}, {3, 5}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(cw) + "x" + std::to_string(ch) + " cells");
            auto a = random_buffer<uint8_t>({cw * 8, ch * 8}, 47, 0, 256);
            img.set(a);
            auto at = [&](int x0, int y0) {
                return int(a(std::clamp(x0, 0, cw * 8 - 1), std::clamp(y0, 0, ch * 8 - 1)));
            };
            std::vector<int> want(size_t(256 * cw * ch), 0);
            a.for_each_element([&](int x0, int y0) {
                const int c0 = at(x0, y0);
                const int k = (at(x0 - 1, y0) >= c0) | (at(x0 + 1, y0) >= c0) << 1 | (at(x0, y0 - 1) >= c0) << 2 |
                              (at(x0, y0 + 1) >= c0) << 3;
                want[size_t(k + 256 * (x0 / 8 + cw * (y0 / 8)))] += 3;
            });
            Buffer<int> o = realized<int>(pp, {256, cw, ch}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &e) { return want[size_t(e[0] + 256 * (e[1] + cw * e[2]))]; }, 0))
                << plan;
        }
    }
}

// A box filter along rows as a running sum (a scan along x with a Param radius, its first point a
// sum of its own), beside a prefix sum in place: the running sum reads the input at each step, so
// its walk is unrolled 32 steps at a time (their loads in flight together); the prefix sum reads
// only itself and keeps 8. Run on the host and OpenCL at other sizes and radii.
TEST(UserPipelines, RowScansThatReadAnInputWalkMoreStepsAtATime) {
    for_each_target([](const std::string &target) {
        ImageParam in(Float(32), 2, "in");
        Param<int> radius("radius");
        radius.set_estimate(7);
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        Func run("run"), out("out"), cs("cs");
        RDom k(-radius, 2 * radius + 1, "k");
        RDom rx(1, in.dim(0).extent() - 1, "rx");
        run(x, y) = undef<float>();
        run(0, y) = sum(cl(k, y));
        run(rx, y) = run(rx - 1, y) + cl(rx + radius, y) - cl(rx - radius - 1, y);
        out(x, y) = run(x, y) / cast<float>(2 * radius + 1);
        cs(x, y) = in(x, y);
        cs(rx, y) = cs(rx, y) + cs(rx - 1, y);
        in.set_estimates({{0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3840}, {0, 2160}});
        cs.set_estimates({{0, 3840}, {0, 2160}});
        std::string plan = schedule_with_solder({out, cs}, target);
        if (target != "host") {
            EXPECT_TRUE(
                std::regex_search(plan, std::regex(R"(run\S* \[generic[^\]]*, stage 2 walked 32 steps at a time\])")))
                << plan;
            EXPECT_TRUE(std::regex_search(plan, std::regex(R"(cs\S* \[generic[^\]]*\])"))) << plan;
            EXPECT_FALSE(std::regex_search(plan, std::regex(R"(cs\S* \[generic[^\]]*walked)"))) << plan;
        }
        Pipeline p = compiled({out, cs}, target);
        for (auto [w, h] : sizes_with(300, 20)) {
            for (int rad : {7, 2}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " radius " + std::to_string(rad));
                auto img = random_buffer<float>({w, h}, 46, -1, 1);
                in.set(img);
                radius.set(rad);
                Buffer<float> ob(w, h), cb(w, h);
                p.realize(Realization({ob, cb}), jit_target(target));
                ob.copy_to_host();
                cb.copy_to_host();
                auto at = [&](int xx, int yy) { return double(img(std::clamp(xx, 0, w - 1), yy)); };
                EXPECT_TRUE(matches(
                    ob,
                    [&](auto &q) {
                        double t = 0;
                        for (int d = -rad; d <= rad; d++) t += at(q[0] + d, q[1]);
                        return t / (2 * rad + 1);
                    },
                    1e-3))
                    << plan;
                EXPECT_TRUE(matches(
                    cb,
                    [&](auto &q) {
                        double t = 0;
                        for (int xx = 0; xx <= q[0]; xx++) t += img(xx, q[1]);
                        return t;
                    },
                    1e-3))
                    << plan;
            }
        }
    });
}

// An unsharp mask of an interleaved 8-bit RGB image (the channel innermost, 3 at the estimates):
// each thread computes its pixel's channels, unrolled in the output's branch for 3, its threads
// over the columns and rows (tiled over the channels, 5 of each 8 threads had nothing to do: 920
// us on the H200 for a 4K image, 113 so). Run with 3 channels and with 4 and 1 (the general
// layout), at other sizes.
TEST(UserPipelines, AnInterleavedImageTakesItsChannelsInEachThread) {
    auto define = [](ImageParam &in, Func &out) {
        Var c("c"), x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        RDom r(-1, 3, -1, 3, "r");
        Func box("box");
        box(c, x, y) = sum(cast<int>(cl(c, x + r.x, y + r.y)));
        Expr v = cast<int>(in(c, x, y));
        out(c, x, y) = cast<uint8_t>(clamp(v + (9 * v - box(c, x, y)) * 12 / 72, 0, 255));
        in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    };
    {
        ImageParam in(UInt(8), 3, "cin");
        Func out("cout");
        define(in, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_TRUE(std::regex_search(plan, std::regex(R"(cout\S* \[pointwise[^\]]*dim 0's points in each thread, the )"
                                                       R"(threads over dims 1 and 2, its 3 points unrolled where )"
                                                       R"(the output's dim 0 has 3 from 0)")))
            << plan;
        EXPECT_NO_THROW(Pipeline({out}).compile_to_lowered_stmt(::testing::TempDir() + "/interleaved.stmt", {in},
                                                                Halide::StmtOutputFormat::Text,
                                                                solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(UInt(8), 3, "in");
        Func out("out");
        define(in, out);
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (int channels : {3, 4, 1})
            for (auto [w, h] : sizes_with(640, 360)) {
                SCOPED_TRACE(std::to_string(channels) + "x" + std::to_string(w) + "x" + std::to_string(h));
                auto a = random_buffer<uint8_t>({channels, w, h}, 45, 0, 256);
                in.set(a);
                Buffer<uint8_t> o = realized<uint8_t>(p, {channels, w, h}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        int s = 0;
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++)
                                s += a(q[0], std::clamp(q[1] + dx, 0, w - 1), std::clamp(q[2] + dy, 0, h - 1));
                        const int v = a(q[0], q[1], q[2]), n = (9 * v - s) * 12;
                        // (Halide's division rounds down, C++'s towards zero.)
                        return std::clamp(v + (n >= 0 ? n / 72 : -((-n + 71) / 72)), 0, 255);
                    },
                    0))
                    << plan;
            }
    });
}

// Generations of the game of life on a board that wraps around, each read through repeat_image of
// the generation before (a Func other kernels store): each generation's kernel inlines the
// boundary condition at its 9 taps, as it does a boundary condition of an input, instead of
// computing it per tile (measured on the H200, four generations of a 4096 x 4096 board: 535 us
// per tile, 115 inlined; Anderson2021 271).
TEST(UserPipelines, ABoundaryConditionOfAStoredFuncIsInlinedAtTheTaps) {
    auto define = [](ImageParam &in, Func &out) {
        Var x("x"), y("y");
        Expr w = in.dim(0).extent(), h = in.dim(1).extent();
        Func g = BoundaryConditions::repeat_image(in);
        for (int s = 0; s < 3; s++) {
            Func next("gen" + std::to_string(s));
            Expr n = g(x - 1, y - 1) + g(x, y - 1) + g(x + 1, y - 1) + g(x - 1, y) + g(x + 1, y) + g(x - 1, y + 1) +
                     g(x, y + 1) + g(x + 1, y + 1);
            next(x, y) = cast<uint8_t>(n == 3 || (g(x, y) == 1 && n == 2));
            g = s == 2 ? next : BoundaryConditions::repeat_image(next, {{0, w}, {0, h}});
        }
        out(x, y) = g(x, y);
        in.set_estimates({{0, 2048}, {0, 2048}});
        out.set_estimates({{0, 2048}, {0, 2048}});
    };
    for_each_target([&](const std::string &target) {
        ImageParam in(UInt(8), 2, "in");
        Func out("out");
        define(in, out);
        std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_EQ(plan.find("computed per block: repeat_image"), std::string::npos) << plan;
            EXPECT_TRUE(std::regex_search(plan, std::regex(R"(inlined: [^\n]*repeat_image)"))) << plan;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : sizes_with(300, 200)) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<uint8_t> a = random_buffer<uint8_t>({w, h}, 46, 0, 2);
            in.set(a);
            Buffer<uint8_t> o = realized<uint8_t>(p, {w, h}, target);
            std::vector<uint8_t> b(a.data(), a.data() + size_t(w) * size_t(h)), next(b.size());
            for (int s = 0; s < 3; s++) {
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        int n = 0;
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++)
                                if (dx || dy) n += b[size_t(((y + dy + h) % h) * w + (x + dx + w) % w)];
                        const int alive = b[size_t(y * w + x)];
                        next[size_t(y * w + x)] = uint8_t(n == 3 || (alive == 1 && n == 2));
                    }
                b.swap(next);
            }
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return b[size_t(q[1] * w + q[0])]; }, 0))
                << plan;
        }
    });
}

// Three steps of a 7-point heat stencil on a volume: no step is computed per 32 x 32 x 1 tile of
// another's kernel, whose blocks each take one plane and would compute the step over three
// (measured on the H200 at 256^3: 423 us so, 234 us with the steps read at their taps through the
// caches; Anderson2021 256). Run at the estimates and at other sizes, down to one point.
TEST(UserPipelines, AStencilAlongAnUntiledDimIsNotComputedPerTile) {
    auto define = [](ImageParam &in, Func &out) {
        Var x("x"), y("y"), z("z");
        Func f = BoundaryConditions::repeat_edge(in);
        for (int s = 0; s < 3; s++) {
            Func g("heat" + std::to_string(s));
            g(x, y, z) = f(x, y, z) + 0.1f * (f(x - 1, y, z) + f(x + 1, y, z) + f(x, y - 1, z) + f(x, y + 1, z) +
                                              f(x, y, z - 1) + f(x, y, z + 1) - 6.0f * f(x, y, z));
            f = g;
        }
        out(x, y, z) = f(x, y, z);
        in.set_estimates({{0, 256}, {0, 256}, {0, 256}});
        out.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    };
    {
        ImageParam in(Float(32), 3, "cin");
        Func out("cout");
        define(in, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_FALSE(std::regex_search(plan, std::regex(R"(computed per block: [^\n]*heat)"))) << plan;
        EXPECT_FALSE(std::regex_search(plan, std::regex(R"(computed per block: [^\n]*repeat_edge)"))) << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam in(Float(32), 3, "in");
        Func out("out");
        define(in, out);
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (auto [w, h, d] : std::vector<std::array<int, 3>>{{64, 48, 40}, {37, 29, 5}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d));
            auto a = random_buffer<float>({w, h, d}, 47, -1, 1);
            in.set(a);
            Buffer<float> o = realized<float>(p, {w, h, d}, target);
            // (Only the input is clamped: each step reads the one before beyond the volume, so the
            // reference computes them over the volume padded by the steps still to come.)
            const int W = w + 6, H = h + 6, D = d + 6;
            auto idx = [&](int i, int j, int k) { return (size_t(k + 3) * H + size_t(j + 3)) * W + size_t(i + 3); };
            std::vector<double> cur(size_t(W) * H * D), next(cur.size());
            for (int k = -3; k < d + 3; k++)
                for (int j = -3; j < h + 3; j++)
                    for (int i = -3; i < w + 3; i++)
                        cur[idx(i, j, k)] =
                            a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1), std::clamp(k, 0, d - 1));
            for (int s = 0; s < 3; s++) {
                const int pad = 2 - s;
                for (int k = -pad; k < d + pad; k++)
                    for (int j = -pad; j < h + pad; j++)
                        for (int i = -pad; i < w + pad; i++)
                            next[idx(i, j, k)] =
                                cur[idx(i, j, k)] +
                                0.1 * (cur[idx(i - 1, j, k)] + cur[idx(i + 1, j, k)] + cur[idx(i, j - 1, k)] +
                                       cur[idx(i, j + 1, k)] + cur[idx(i, j, k - 1)] + cur[idx(i, j, k + 1)] -
                                       6 * cur[idx(i, j, k)]);
                cur.swap(next);
            }
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return cur[idx(q[0], q[1], q[2])]; }, 1e-4))
                << plan;
        }
    });
}

// Complex vectors stored interleaved (re, im innermost: a 2-D root of 2 points along dim 0) and
// multiplied point by point, in one kernel (its vectors of 2 along dim 0 hold an element's two
// parts); run with 2 parts and with 3, at other lengths.
TEST(UserPipelines, InterleavedComplexNumbersMultiplyInOneKernel) {
    auto define = [](ImageParam &a, ImageParam &b, Func &out) {
        Var c("c"), i("i");
        Expr re = a(0, i) * b(0, i) - a(1, i) * b(1, i), im = a(0, i) * b(1, i) + a(1, i) * b(0, i);
        out(c, i) = select(c == 0, re, c == 1, im, 0.0f);
        a.set_estimates({{0, 2}, {0, 1 << 20}});
        b.set_estimates({{0, 2}, {0, 1 << 20}});
        out.set_estimates({{0, 2}, {0, 1 << 20}});
    };
    {
        ImageParam a(Float(32), 2, "ca"), b(Float(32), 2, "cb");
        Func out("cprod");
        define(a, b, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
        EXPECT_NO_THROW(Pipeline({out}).compile_to_lowered_stmt(::testing::TempDir() + "/complex.stmt", {a, b},
                                                                Halide::StmtOutputFormat::Text,
                                                                solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
        Func out("prod");
        define(a, b, out);
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (int parts : {2, 3})
            for (int n : {1000, 37, 1}) {
                SCOPED_TRACE(std::to_string(parts) + "x" + std::to_string(n));
                auto av = random_buffer<float>({std::max(parts, 2), n}, 48, -1, 1);
                auto bv = random_buffer<float>({std::max(parts, 2), n}, 49, -1, 1);
                a.set(av);
                b.set(bv);
                Buffer<float> o = realized<float>(p, {parts, n}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        const int k = q[1];
                        if (q[0] == 0) return av(0, k) * bv(0, k) - av(1, k) * bv(1, k);
                        if (q[0] == 1) return av(0, k) * bv(1, k) + av(1, k) * bv(0, k);
                        return 0.0f;
                    },
                    1e-5))
                    << plan;
            }
    });
}

// A point cloud stored interleaved (x, y, z innermost: a 2-D root of 3 points along dim 0, which no
// vector width divides) transformed by an affine matrix in an input: each thread computes its
// point's coordinates, the threads along the points. Run with 3 coordinates out (the output's
// branch) and with 2 (a projection: the general layout), at other lengths.
TEST(UserPipelines, AnInterleavedPointCloudTakesItsCoordinatesInEachThread) {
    auto define = [](ImageParam &pts, ImageParam &m, Func &out) {
        Var c("c"), i("i");
        out(c, i) = m(0, c) * pts(0, i) + m(1, c) * pts(1, i) + m(2, c) * pts(2, i) + m(3, c);
        pts.set_estimates({{0, 3}, {0, 1 << 22}});
        m.set_estimates({{0, 4}, {0, 3}});
        out.set_estimates({{0, 3}, {0, 1 << 22}});
    };
    {
        ImageParam pts(Float(32), 2, "cpts"), m(Float(32), 2, "cm");
        Func out("cmoved");
        define(pts, m, out);
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_TRUE(std::regex_search(plan, std::regex(R"(cmoved\S* \[pointwise[^\]]*dim 0's points in each thread)")))
            << plan;
        EXPECT_NO_THROW(Pipeline({out}).compile_to_lowered_stmt(::testing::TempDir() + "/cloud.stmt", {pts, m},
                                                                Halide::StmtOutputFormat::Text,
                                                                solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam pts(Float(32), 2, "pts"), m(Float(32), 2, "m");
        Func out("moved");
        define(pts, m, out);
        std::string plan = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (int coords : {3, 2})
            for (int n : {3000, 37, 1}) {
                SCOPED_TRACE(std::to_string(coords) + "x" + std::to_string(n));
                auto a = random_buffer<float>({3, n}, 50, -1, 1);
                auto mm = random_buffer<float>({4, 3}, 51, -1, 1);
                pts.set(a);
                m.set(mm);
                Buffer<float> o = realized<float>(p, {coords, n}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        return mm(0, q[0]) * a(0, q[1]) + mm(1, q[0]) * a(1, q[1]) + mm(2, q[0]) * a(2, q[1]) +
                               mm(3, q[0]);
                    },
                    1e-5))
                    << plan;
            }
    });
}

// A histogram of a 1-D signal (an RDom of one dim): on CUDA in chunks of kScatterPointsPerChunk
// points, each chunk's 64 bins in its block's shared memory (a k-means step's sums and counts of 2^20
// points by 16 labels took 861 us with each increment atomic in global memory on the H200, 259 us
// so). Run at the estimate and at other lengths, down to one sample.
TEST(UserPipelines, AHistogramOfASignalGoesInChunksOfPoints) {
    auto define = [](ImageParam &sig, Func &hist) {
        Var i("i");
        RDom r(0, sig.dim(0).extent(), "r");
        hist(i) = 0;
        hist(clamp(cast<int>((sig(r) + 1.0f) * 32.0f), 0, 63)) += 1;
        sig.set_estimates({{0, 1 << 20}});
        hist.set_estimates({{0, 64}});
    };
    {
        ImageParam sig(Float(32), 1, "csig");
        Func hist("chist1");
        define(sig, hist);
        const std::string plan = schedule_with_solder({hist}, "cuda");
        EXPECT_NE(plan.find("bins in shared memory"), std::string::npos) << plan;
        EXPECT_NO_THROW(Pipeline({hist}).compile_to_lowered_stmt(::testing::TempDir() + "/signal_hist.stmt", {sig},
                                                                 Halide::StmtOutputFormat::Text,
                                                                 solder::make_target("cuda")))
            << plan;
    }
    for_each_target([&](const std::string &target) {
        ImageParam sig(Float(32), 1, "sig");
        Func hist("hist1");
        define(sig, hist);
        std::string plan = schedule_with_solder({hist}, target);
        Pipeline p = compiled({hist}, target);
        for (int n : {100000, 8193, 37, 1}) {
            SCOPED_TRACE(std::to_string(n));
            auto a = random_buffer<float>({n}, 52, -1, 1);
            sig.set(a);
            Buffer<int> o = realized<int>(p, {64}, target);
            std::vector<int> want(64, 0);
            for (int k = 0; k < n; k++) want[size_t(std::clamp(int((a(k) + 1.0f) * 32.0f), 0, 63))]++;
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[0])]; }, 0))
                << plan;
        }
    });
}

// A 0-d Func that sums an image and then adds one in a second update (generic: several updates),
// over a 2-D and over a 1-D RDom: its sum takes each increment atomically on CUDA, not the chunks
// of a histogram, which lay their threads over bin dims a 0-d Func lacks (Halide refused the CUDA
// schedule: "could not find var ... to reorder"). Lowered for CUDA; run on the host and OpenCL.
TEST(UserPipelines, AScalarWithSeveralUpdatesIsNoChunkedScatter) {
    for (int dims : {2, 1}) {
        SCOPED_TRACE(std::to_string(dims) + "-D RDom");
        auto define = [&](ImageParam &in, Func &t) {
            t() = 0;
            if (dims == 2) {
                RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
                t() += in(r.x, r.y);
                in.set_estimates({{0, 1024}, {0, 1024}});
            } else {
                RDom r(0, in.dim(0).extent(), "r");
                t() += in(r);
                in.set_estimates({{0, 1 << 20}});
            }
            t() += 1;
        };
        {
            ImageParam in(Int(32), dims, "cin");
            Func t("ctotal");
            define(in, t);
            const std::string plan = schedule_with_solder({t}, "cuda");
            EXPECT_EQ(plan.find("bins in shared memory"), std::string::npos) << plan;
            EXPECT_NO_THROW(Pipeline({t}).compile_to_lowered_stmt(::testing::TempDir() + "/scalar_updates.stmt", {in},
                                                                  Halide::StmtOutputFormat::Text,
                                                                  solder::make_target("cuda")))
                << plan;
        }
        for_each_target([&](const std::string &target) {
            ImageParam in(Int(32), dims, "in");
            Func t("total");
            define(in, t);
            std::string plan = schedule_with_solder({t}, target);
            Pipeline p = compiled({t}, target);
            for (auto [w, h] : sizes_with(300, 200)) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
                Buffer<int> a =
                    dims == 2 ? random_buffer<int>({w, h}, 53, 0, 100) : random_buffer<int>({w * h}, 53, 0, 100);
                in.set(a);
                Buffer<int> o = p.realize({}, jit_target(target));
                o.copy_to_host();
                int64_t want = 1;
                a.for_each_value([&](int v) { want += v; });
                EXPECT_EQ(int64_t(o()), want) << plan;
            }
        });
    }
}

// Fixed-point image code in the style of mobile camera pipelines, through Halide's intrinsics: a
// 5 x 5 binomial blur of an 8-bit image built from widening adds and multiplies, rounded back by
// rounding_shift_right and saturating_cast; the detail boosted in Q4 by a Param and added back with
// saturation; the halving average of the image and its blur as a second output. And each row's
// 64-bit FNV-1a hash (a fold Halide cannot prove associative) with its popcount. Against C++ at
// every size, bit for bit.
TEST(UserPipelines, FixedPointIntrinsicsAndA64BitRowHash) {
    for_each_target([](const std::string &target) {
        ImageParam in(UInt(8), 2, "in");
        Param<uint8_t> amount("amount");
        amount.set_estimate(24);
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        Func v("v"), blur("blur"), sharp("sharp"), soft("soft"), hash("hash"), ones("ones");
        v(x, y) = widening_add(cl(x, y - 2), cl(x, y + 2)) + widening_add(cl(x, y - 1), cl(x, y + 1)) * 4 +
                  widening_mul(cl(x, y), cast<uint8_t>(6));
        Expr h = widening_add(v(x - 2, y), v(x + 2, y)) + widening_add(v(x - 1, y), v(x + 1, y)) * 4 +
                 widening_mul(v(x, y), cast<uint16_t>(6));
        blur(x, y) = saturating_cast<uint8_t>(rounding_shift_right(h, 8));
        Expr detail = cast<int16_t>(in(x, y)) - cast<int16_t>(blur(x, y));
        sharp(x, y) = saturating_cast<uint8_t>(cast<int32_t>(in(x, y)) +
                                               rounding_shift_right(widening_mul(detail, cast<int16_t>(amount)), 4));
        soft(x, y) = halving_add(in(x, y), blur(x, y));
        RDom r(0, in.dim(0).extent(), "r");
        hash(y) = Expr(uint64_t(14695981039346656037ull));
        hash(y) = (hash(y) ^ cast<uint64_t>(in(r, y))) * Expr(uint64_t(1099511628211ull));
        ones(y) = cast<int32_t>(popcount(hash(y)));
        in.set_estimates({{0, 1920}, {0, 1080}});
        sharp.set_estimates({{0, 1920}, {0, 1080}});
        soft.set_estimates({{0, 1920}, {0, 1080}});
        ones.set_estimates({{0, 1080}});
        const std::string plan = schedule_with_solder({sharp, soft, ones}, target);
        Pipeline p = compiled({sharp, soft, ones}, target);
        for (int amt : {24, 200}) {
            amount.set(uint8_t(amt));
            for (auto [w, hgt] : sizes_with(1920, 1080)) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(hgt) + " amount " + std::to_string(amt));
                Buffer<uint8_t> a(w, hgt);
                std::mt19937 rng(uint32_t(w * 7 + hgt + amt));
                a.for_each_value([&](uint8_t &e) { e = uint8_t(rng() & 255); });
                a.set_host_dirty();  // (for_each_value does not mark it)
                in.set(a);
                Buffer<uint8_t> got_sharp(w, hgt), got_soft(w, hgt);
                Buffer<int32_t> got_ones(hgt);
                p.realize(Realization({got_sharp, got_soft, got_ones}), jit_target(target));
                got_sharp.copy_to_host(), got_soft.copy_to_host(), got_ones.copy_to_host();
                auto px = [&](int i, int j) { return int(a(std::clamp(i, 0, w - 1), std::clamp(j, 0, hgt - 1))); };
                auto vert = [&](int i, int j) {
                    return px(i, j - 2) + px(i, j + 2) + 4 * (px(i, j - 1) + px(i, j + 1)) + 6 * px(i, j);
                };
                int bad = 0;
                for (int j = 0; j < hgt && bad < 5; j++)
                    for (int i = 0; i < w && bad < 5; i++) {
                        const int hs =
                            vert(i - 2, j) + vert(i + 2, j) + 4 * (vert(i - 1, j) + vert(i + 1, j)) + 6 * vert(i, j);
                        const int b = std::min((hs + 128) >> 8, 255);
                        const int boost = ((px(i, j) - b) * amt + 8) >> 4;  // rounds half up, as Halide
                        const int want_sharp = std::clamp(px(i, j) + boost, 0, 255);
                        const int want_soft = (px(i, j) + b) >> 1;
                        if (got_sharp(i, j) != want_sharp || got_soft(i, j) != want_soft) {
                            ADD_FAILURE()
                                << "at " << i << ", " << j << ": sharp " << int(got_sharp(i, j)) << " vs " << want_sharp
                                << ", soft " << int(got_soft(i, j)) << " vs " << want_soft << "\n"
                                << plan;
                            bad++;
                        }
                    }
                for (int j = 0; j < hgt; j++) {
                    uint64_t fnv = 14695981039346656037ull;
                    for (int i = 0; i < w; i++) fnv = (fnv ^ a(i, j)) * 1099511628211ull;
                    ASSERT_EQ(got_ones(j), __builtin_popcountll(fnv)) << "row " << j;
                }
            }
        }
    });
}
