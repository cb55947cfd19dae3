// Runs the two libraries the Solder plugin scheduled, at sizes other than their estimates, and
// checks every value against plain C++. Exit 0 only if everything matches.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "HalideBuffer.h"
#include "local_contrast.h"
#include "row_softmax.h"

using Halide::Runtime::Buffer;

namespace {

float value(int x, int y) { return float((x * 7919 + y * 104729) % 1000) / 1000.0f; }

int check_local_contrast(int w, int h, int radius, float gain) {
    Buffer<float> in(w, h), out(w, h);
    in.for_each_element([&](int x, int y) { in(x, y) = value(x, y); });
    if (local_contrast(in, radius, gain, out) != 0) return 1;
    auto at = [&](int x, int y) { return double(in(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))); };
    int bad = 0;
    const double n = 2 * radius + 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double m = 0;
            for (int dy = -radius; dy <= radius; dy++) {
                double row = 0;
                for (int dx = -radius; dx <= radius; dx++) row += at(x + dx, y + dy);
                m += row / n;
            }
            m /= n;
            const double want = m + gain * (in(x, y) - m);
            bad += std::abs(out(x, y) - want) > 1e-4 * (1 + std::abs(want));
        }
    std::printf("local_contrast %dx%d radius %d: %s\n", w, h, radius, bad ? "MISMATCH" : "ok");
    return bad ? 1 : 0;
}

int check_row_softmax() {
    const int C = 200, R = 48;  // the generator's rows and cols: the tensor layer's shapes are fixed
    Buffer<float> in(C, R), out(C, R);
    in.for_each_element([&](int c, int r) { in(c, r) = 4 * value(c, r) - 2; });
    if (row_softmax(in, out) != 0) return 1;
    int bad = 0;
    for (int r = 0; r < R; r++) {
        double mx = -1e30, s = 0;
        for (int c = 0; c < C; c++) mx = std::max(mx, double(in(c, r)));
        for (int c = 0; c < C; c++) s += std::exp(in(c, r) - mx);
        for (int c = 0; c < C; c++) bad += std::abs(out(c, r) - std::exp(in(c, r) - mx) / s) > 1e-5;
    }
    std::printf("row_softmax %dx%d: %s\n", C, R, bad ? "MISMATCH" : "ok");
    return bad ? 1 : 0;
}

}  // namespace

int main() {
    int failed = 0;
    for (auto [w, h, r] : std::vector<std::array<int, 3>>{{1920, 1080, 2}, {333, 71, 3}, {5, 4, 1}, {1, 1, 2}})
        failed += check_local_contrast(w, h, r, 1.5f);
    failed += check_row_softmax();
    std::printf("%s\n", failed ? "FAILED" : "all match");
    return failed ? 1 : 0;
}
