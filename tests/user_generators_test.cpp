// Libraries CMake built from generators written as users write them (tests/generators/
// user_generators.cpp), each scheduled by the Solder plugin for the host and for OpenCL, run at
// sizes other than their estimates against references computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <string>

#include "HalideBuffer.h"
#include "tests/support/test_processes.h"
#include "tests/support/user_pipeline.h"
#include "user_channel_stats.h"
#include "user_channel_stats_cl.h"
#include "user_equalize.h"
#include "user_equalize_cl.h"
#include "user_param_sum_pasted_cl.h"

namespace user_generators {

using Halide::Runtime::Buffer;

// (A runtime buffer sharing random_buffer's allocation: the libraries take halide_buffer_t.)
template<typename T> Buffer<T> random_image(std::vector<int> shape, uint32_t seed, double lo, double hi) {
    return *solder::testing::random_buffer<T>(shape, seed, lo, hi).get();
}

TEST(UserGenerators, EqualizeMatchesItsReference) {
    const int bins = 64;  // (the libraries' GeneratorParam)
    for (bool opencl : {false, true}) {
        for (auto [w, h] : std::vector<std::pair<int, int>>{{1920, 1080}, {37, 23}, {1, 1}, {641, 5}}) {
            SCOPED_TRACE((opencl ? "opencl " : "host ") + std::to_string(w) + "x" + std::to_string(h));
            Buffer<uint8_t> in = random_image<uint8_t>({w, h}, uint32_t(w + h), 0, 255.99);
            Buffer<uint8_t> out(w, h);
            Buffer<int32_t> hist(bins);
            const int rc = opencl ? user_equalize_cl(in, out, hist) : user_equalize(in, out, hist);
            ASSERT_EQ(rc, 0);
            out.copy_to_host();
            hist.copy_to_host();
            std::vector<int64_t> want_hist(bins, 0);
            in.for_each_value([&](uint8_t v) { want_hist[size_t(int(v) * bins / 256)]++; });
            std::vector<int64_t> cdf(bins);
            for (int b = 0; b < bins; b++) cdf[size_t(b)] = want_hist[size_t(b)] + (b ? cdf[size_t(b - 1)] : 0);
            for (int b = 0; b < bins; b++) EXPECT_EQ(hist(b), want_hist[size_t(b)]) << "bin " << b;
            int bad = 0;
            out.for_each_element([&](int x, int y) {
                const int64_t want =
                    std::clamp<int64_t>(cdf[size_t(int(in(x, y)) * bins / 256)] * 255 / (int64_t(w) * h), 0, 255);
                if (out(x, y) != want && bad++ == 0)
                    ADD_FAILURE() << "at (" << x << ", " << y << "): " << int(out(x, y)) << ", want " << want;
            });
            EXPECT_EQ(bad, 0);
        }
    }
}

TEST(UserGenerators, ChannelStatsMatchesItsReference) {
    const float gain = 0.75f;
    for (bool opencl : {false, true}) {
        for (auto [w, h, c] : std::vector<std::array<int, 3>>{{1024, 768, 3}, {37, 23, 3}, {1, 1, 1}, {301, 7, 4}}) {
            SCOPED_TRACE((opencl ? "opencl " : "host ") + std::to_string(w) + "x" + std::to_string(h) + "x" +
                         std::to_string(c));
            Buffer<float> in = random_image<float>({w, h, c}, uint32_t(w * 3 + c), -1, 1);
            Buffer<float> value(c), centred(w, h, c);
            Buffer<int32_t> px(c), py(c);
            const int rc = opencl ? user_channel_stats_cl(in, gain, value, px, py, centred)
                                  : user_channel_stats(in, gain, value, px, py, centred);
            ASSERT_EQ(rc, 0);
            for (auto *b : {&value, &centred}) b->copy_to_host();
            px.copy_to_host();
            py.copy_to_host();
            for (int k = 0; k < c; k++) {
                float best = -INFINITY;
                int bx = 0, by = 0;
                double mean = 0;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        const float v = in(x, y, k) * gain;
                        mean += v;
                        if (v >= best) best = v, bx = x, by = y;  // (ties: the later point; none in random data)
                    }
                mean /= double(w) * h;
                EXPECT_EQ(value(k), best) << "channel " << k;
                EXPECT_EQ(px(k), bx) << "channel " << k;
                EXPECT_EQ(py(k), by) << "channel " << k;
                int bad = 0;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        auto at = [&](int i) { return double(in(std::clamp(i, 0, w - 1), y, k)) * gain; };
                        const double want = (at(x - 1) + 2 * at(x) + at(x + 1)) / 4 - mean;
                        if (std::abs(centred(x, y, k) - want) > 1e-4 * (1 + std::abs(want)) && bad++ == 0)
                            ADD_FAILURE() << "centred at (" << x << ", " << y << ", " << k << "): " << centred(x, y, k)
                                          << ", want " << want;
                    }
                EXPECT_EQ(bad, 0);
            }
        }
    }
}

// The plugin's CUDA schedule of a sum over a scalar Input's first n values, a scaled vector and a
// channel mix (tests/generators/param_sum_algorithm.h), pasted into a generator
// (tests/generators/param_sum_pasted.cpp) and built for OpenCL: the source compiled where Halide's
// .schedule.h puts it (only Func, Var, RVar, TailStrategy and MemoryType declared there), named the
// parameter and the inputs' sizes through its helpers, and the library runs at n = 0, where no
// slice of the sum is left, and beyond, with inputs aligned and not.
TEST(UserGenerators, PastedScheduleOfAParameterBoundedSumRuns) {
    const std::string src = solder::testing::read_file(SOLDER_PARAM_SUM_SCHEDULE);
    EXPECT_NE(src.find("total_reduction"), std::string::npos) << src;
    EXPECT_NE(src.find(".bound("), std::string::npos) << src;
    EXPECT_NE(src.find("solder_param(\"n\")"), std::string::npos) << src;
    EXPECT_NE(src.find("Halide::Expr aligned_"), std::string::npos) << src;
    const int len = 100003;
    Buffer<float> values = random_image<float>({len}, 41, -1, 1);
    for (auto [n, tokens_len, channels, outs] : std::vector<std::tuple<int, int, int, int>>{
             {0, 64, 8, 12}, {1, 37, 5, 7}, {4097, 1, 1, 1}, {len, 256, 96, 192}}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", " + std::to_string(tokens_len) + " tokens of " +
                     std::to_string(channels) + " channels into " + std::to_string(outs));
        Buffer<float> tokens = random_image<float>({tokens_len, channels}, uint32_t(n + 1), -1, 1);
        Buffer<float> weights = random_image<float>({channels, outs}, uint32_t(n + 2), -1, 1);
        Buffer<float> total = Buffer<float>::make_scalar(), scaled(len), mixed(tokens_len, outs);
        ASSERT_EQ(user_param_sum_pasted_cl(values, n, tokens, weights, total, scaled, mixed), 0);
        total.copy_to_host();
        scaled.copy_to_host();
        mixed.copy_to_host();
        double want = 0;
        for (int i = 0; i < n; i++) want += values(i);
        EXPECT_NEAR(total(), want, 1e-3 + 1e-5 * n);
        for (int i = 0; i < len; i += 997) EXPECT_EQ(scaled(i), values(i) * 0.5f + 1.0f) << i;
        int bad = 0;
        for (int o = 0; o < outs; o++)
            for (int t = 0; t < tokens_len; t++) {
                double m = o < channels ? tokens(t, o) : 0.0;
                for (int c = 0; c < channels; c++) m += double(weights(c, o)) * tokens(t, c);
                bad += std::abs(mixed(t, o) - m) > 1e-4 * (1 + std::abs(m));
            }
        EXPECT_EQ(bad, 0);
    }
}

}  // namespace user_generators
