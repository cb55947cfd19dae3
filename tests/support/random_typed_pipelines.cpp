#include "tests/support/random_typed_pipelines.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>

#include "Halide.h"
#include "tests/support/lowered_launches.h"
#include "tests/support/user_pipeline.h"

namespace solder::testing {

using namespace Halide;

namespace {

// The image's type and the range its values keep: the stages compute in 32 bits (int, or float
// for half floats) and narrow back, clamped to the range.
struct ValueType {
    Type t;
    bool fp = false;
    int lo = 0, hi = 0;  // (half floats: 0 to 2)

    Expr wide(const Expr &e) const { return cast(fp ? Float(32) : Int(32), e); }
    Expr narrow(const Expr &e) const { return fp ? cast(t, e) : cast(t, clamp(e, lo, hi)); }
    // (k1 e1 + k2 e2) / 2^s of two wide values, rounded (integers) or exact (floats).
    Expr mix(const Expr &e1, int k1, const Expr &e2, int k2, int s) const {
        if (fp) return (e1 * float(k1) + e2 * float(k2)) * (1.0f / float(1 << s));
        return (e1 * k1 + e2 * k2 + (1 << (s - 1))) >> s;
    }
    // The bin of `bins` a wide value falls in.
    Expr bin(const Expr &e, int bins) const {
        if (fp) return clamp(cast<int>(e * (float(bins) / 2.0f)), 0, bins - 1);
        return clamp((e - lo) * bins / (hi - lo + 1), 0, bins - 1);
    }
};

ValueType value_type(int k) {
    switch (k) {
    case 0: return {UInt(8), false, 0, 255};
    case 1: return {UInt(16), false, 0, 4095};  // (a 12-bit sensor's values)
    case 2: return {Int(16), false, -2048, 2047};
    default: return {Float(16), true, 0, 2};
    }
}

struct TypedPipeline {
    ValueType vt;
    std::optional<ImageParam> in, rgb;  // (rgb: a 3-channel planar image of the same size and type)
    Param<int> knee{"knee"}, shift{"shift"};
    Param<float> gain{"gain"};
    std::vector<Func> outputs;
    std::vector<std::string> kinds;
    enum class Shape { Image, Rows, Bins, Planar, Interleaved };
    // Per output: over the image's points, its rows, the bins, or 3 channels of each point (the
    // channel outermost: planar; innermost: interleaved).
    std::vector<Shape> shapes;
    std::vector<double> tol;  // per output: the absolute difference allowed (integers: 0)
    std::optional<Pipeline> pipeline;
    Pipeline &pipe() {
        if (!pipeline) pipeline.emplace(outputs);
        return *pipeline;
    }
};

constexpr int kEstimateW = 256, kEstimateH = 192, kBins = 32, kColors = 3;
using Shape = TypedPipeline::Shape;

void build(uint64_t seed, TypedPipeline &p) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
    const ValueType vt = value_type(pick(4));
    p.vt = vt;
    p.in.emplace(vt.t, 2, "in");
    p.rgb.emplace(vt.t, 3, "rgb");
    ImageParam &in = *p.in;
    Var x("x"), y("y"), i("i"), c("c");
    Expr W = in.dim(0).extent(), H = in.dim(1).extent();
    const Region whole = {{0, W}, {0, H}};
    auto w = [&](const Func &f, const Expr &u, const Expr &v) { return vt.wide(f(u, v)); };
    std::vector<Func> fs;
    Func base("base");
    base(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
    fs.push_back(base);
    const int stages = 3 + pick(6);
    for (int s = 0; s < stages; s++) {
        Func a = fs[fs.size() - 1 - size_t(pick(std::min<int>(3, int(fs.size()))))];
        Func b = fs[size_t(pick(int(fs.size())))];
        // (Half floats' data-dependent indices read the input: a rounding elsewhere cannot move a bin.)
        Func src = vt.fp ? base : a;
        const std::string n = std::to_string(s);
        Func f("f" + n);
        switch (pick(11)) {
        case 0:
            p.kinds.push_back("average");
            f(x, y) = select(a(x, y) > b(x, y), vt.narrow(vt.mix(w(a, x, y), 3, w(b, x, y), 1, 2)),
                             vt.narrow(vt.mix(w(a, x, y), 1, w(b, x, y), 1, 1)));
            break;
        case 1: {
            p.kinds.push_back("stencil");
            const int bc = pick(3);
            Func c = bc == 0   ? BoundaryConditions::repeat_edge(a, whole)
                     : bc == 1 ? BoundaryConditions::mirror_interior(a, whole)
                               : BoundaryConditions::constant_exterior(a, cast(vt.t, vt.lo), whole);
            Expr sum3 = pick(2) ? w(c, x - 1, y) + 2 * w(c, x, y) + w(c, x + 1, y)
                                : w(c, x, y - 1) + 2 * w(c, x, y) + w(c, x, y + 1);
            f(x, y) = vt.narrow(vt.fp ? sum3 * 0.25f : (sum3 + 2) >> 2);
            break;
        }
        case 2: {
            p.kinds.push_back("lookup_table");
            Func lut("lut" + n);
            if (vt.fp) {
                lut(i) = cast(vt.t, cast<float>(i * i) * (2.0f / (63.0f * 63.0f)));
                f(x, y) = vt.narrow(w(a, x, y) * 0.5f + vt.wide(lut(vt.bin(w(base, x, y), 64))) * 0.5f);
            } else {
                // (A tone curve with a knee at a parameter, over every value of the range.)
                lut(i) = vt.narrow(vt.lo + select(i < p.knee, i + i / 2, p.knee + p.knee / 2 + (i - p.knee) / 3));
                f(x, y) = lut(clamp(w(a, x, y) - vt.lo, 0, vt.hi - vt.lo));
            }
            break;
        }
        case 3: {
            p.kinds.push_back("equalization");
            Func hist("hist" + n), cdf("cdf" + n);
            RDom r(0, W, 0, H, "rh" + n);
            hist(i) = 0;
            hist(vt.bin(w(src, r.x, r.y), 64)) += 1;
            cdf(i) = hist(i);
            RDom rb(1, 63, "rc" + n);
            cdf(rb) = cdf(rb - 1) + cdf(rb);
            Expr count = cdf(vt.bin(w(src, x, y), 64));
            if (vt.fp)
                f(x, y) = vt.narrow(w(a, x, y) * 0.5f + cast<float>(count) / cast<float>(W * H));
            else
                f(x, y) = vt.narrow(vt.lo + count * (vt.hi - vt.lo) / (W * H));
            break;
        }
        case 4: {
            p.kinds.push_back("row_mean");
            RDom r(0, W, "r" + n);
            Func m("mean" + n);
            m(y) = vt.fp ? sum(w(a, r, y)) / cast<float>(W) : sum(w(a, r, y)) / W;
            f(x, y) = vt.narrow(vt.mix(w(a, x, y), 1, m(y), 1, 1));
            break;
        }
        case 5: {
            // An IIR filter stored in the image's type, updated in place along one dim.
            const bool along_y = pick(2);
            p.kinds.push_back(along_y ? "scan_y" : "scan_x");
            f(x, y) = a(x, y);
            if (along_y) {
                RDom r(1, H - 1, "ry" + n);
                f(x, r) = vt.narrow(vt.mix(w(f, x, r - 1), 3, w(f, x, r), 1, 2));
            } else {
                RDom r(1, W - 1, "rx" + n);
                f(r, y) = vt.narrow(vt.mix(w(f, r - 1, y), 3, w(f, r, y), 1, 2));
            }
            break;
        }
        case 6:
            p.kinds.push_back("absolute_difference");
            // (absd of two narrow values: unsigned of their width, or the float type.)
            f(x, y) = vt.narrow((vt.fp ? 0 : vt.lo) + vt.wide(absd(a(x, y), b(x, y))));
            break;
        case 7: {
            p.kinds.push_back("resample");
            Func c = BoundaryConditions::repeat_edge(a, whole);
            Func d("down" + n);
            Expr s4 = w(c, 2 * x, 2 * y) + w(c, 2 * x + 1, 2 * y) + w(c, 2 * x, 2 * y + 1) + w(c, 2 * x + 1, 2 * y + 1);
            d(x, y) = vt.narrow(vt.fp ? s4 * 0.25f : (s4 + 2) >> 2);
            f(x, y) = vt.narrow(vt.mix(w(a, x, y), 1, w(d, x / 2, y / 2), 1, 1));
            break;
        }
        case 8: {
            p.kinds.push_back("row_argmax");
            RDom r(0, W, "ra" + n);
            Func am("argmax" + n);
            am(y) = argmax(src(r, y));
            Expr mixed = vt.mix(w(a, x, y), 1, vt.wide(am(y)[1]), 1, 1);
            f(x, y) = vt.narrow(vt.fp ? mixed + 0.0625f * cast<float>(am(y)[0] % 4) : mixed + am(y)[0] % 8);
            break;
        }
        case 9:
            if (vt.fp) {
                p.kinds.push_back("min_max");
                f(x, y) = vt.narrow(max(w(a, x, y), w(b, x, y)) * 0.75f + min(w(a, x, y), w(b, x, y)) * 0.25f);
            } else if (vt.t.is_uint()) {
                // Wrapping arithmetic in the narrow type, and bits (masked back to the range).
                p.kinds.push_back("wrapping_bits");
                f(x, y) = ((a(x, y) + b(x, y) * cast(vt.t, 3)) ^ (a(x, y) >> 2)) & cast(vt.t, vt.hi);
            } else {
                p.kinds.push_back("bit_masks");
                f(x, y) = (a(x, y) & cast(vt.t, 0x7f0)) | (b(x, y) & cast(vt.t, 0xf));
            }
            break;
        default:
            p.kinds.push_back("parameter_scale");
            if (vt.fp)
                f(x, y) = vt.narrow(w(a, x, y) * p.gain);
            else
                f(x, y) = vt.narrow(vt.lo + (((w(a, x, y) - vt.lo) * 3) >> p.shift));
            break;
        }
        fs.push_back(f);
    }
    const double image_tol = vt.fp ? 4e-3 : 0;
    p.outputs = {fs.back()};
    p.shapes = {Shape::Image};
    p.tol = {image_tol};
    if (fs.size() > 3 && pick(3) == 0) {
        p.outputs.push_back(fs[fs.size() / 2]);
        p.shapes.push_back(Shape::Image), p.tol.push_back(image_tol);
    }
    // Drawn after the stages (the stages stay the same for every seed): an 8-bit preview of the
    // last stage, a histogram of the input as an output of its own, the last stage's row sums in 32
    // bits, and a specialization on the first output.
    if (pick(3) == 0) {
        p.kinds.push_back("preview_u8");
        Func prev("preview");
        Expr v = w(fs.back(), x, y);
        prev(x, y) = vt.fp ? cast<uint8_t>(clamp(v * 127.0f, 0.0f, 255.0f))
                           : cast<uint8_t>(clamp((v - vt.lo) * 255 / (vt.hi - vt.lo), 0, 255));
        p.outputs.push_back(prev);
        p.shapes.push_back(Shape::Image), p.tol.push_back(vt.fp ? 1 : 0);
    }
    if (pick(3) == 0) {
        p.kinds.push_back("histogram_output");
        Func counts("counts");
        RDom r(0, W, 0, H, "rco");
        counts(i) = 0;
        counts(vt.bin(w(base, r.x, r.y), kBins)) += 1;
        p.outputs.push_back(counts);
        p.shapes.push_back(Shape::Bins), p.tol.push_back(0);
    }
    if (pick(3) == 0) {
        p.kinds.push_back("row_sums");
        Func rs("row_sums");
        RDom r(0, W, "rrs");
        Func last = fs.back();
        if (vt.fp)
            rs(y) = sum(cast<float>(last(r, y)));
        else if (vt.t.is_uint())
            rs(y) = sum(cast<uint32_t>(last(r, y)));
        else
            rs(y) = sum(cast<int32_t>(last(r, y)));
        p.outputs.push_back(rs);
        p.shapes.push_back(Shape::Rows), p.tol.push_back(vt.fp ? 4e-3 * kEstimateW : 0);
    }
    // Colour, drawn after the above: the last stage spread over 3 channels of planar and of
    // interleaved outputs (each channel its own mix with a neighbour), and a luma from a second,
    // 3-channel input (clamped at its edges) blended with the last stage.
    if (pick(3) == 0) {
        p.kinds.push_back("planar_channels");
        Func last = fs.back(), other = fs[size_t(pick(int(fs.size())))];
        Func clamped = BoundaryConditions::repeat_edge(other, whole);
        Func planar("planar");
        Expr a = w(last, x, y), b = w(clamped, x + c - 1, y);
        planar(x, y, c) = vt.narrow(vt.fp ? (a * (3 - cast<float>(c)) + b * (1 + cast<float>(c))) * 0.25f
                                          : (a * (3 - c) + b * (1 + c) + 2) >> 2);
        p.outputs.push_back(planar);
        p.shapes.push_back(Shape::Planar), p.tol.push_back(image_tol);
    }
    if (pick(3) == 0) {
        p.kinds.push_back("interleaved_channels");
        Func last = fs.back();
        Func inter("interleaved");
        Expr v = w(last, x, y);
        inter(c, x, y) = vt.narrow(select(c == 0, v, c == 1, vt.mix(v, 1, w(base, x, y), 1, 1), w(base, x, y)));
        p.outputs.push_back(inter);
        p.shapes.push_back(Shape::Interleaved), p.tol.push_back(image_tol);
    }
    if (pick(3) == 0) {
        p.kinds.push_back("luma_input");
        Func rgb = BoundaryConditions::repeat_edge(*p.rgb);
        Func luma("luma"), blended("blended");
        auto ch = [&](int k) { return vt.wide(rgb(x, y, k)); };
        luma(x, y) = vt.narrow(vt.fp ? ch(0) * 0.25f + ch(1) * 0.5f + ch(2) * 0.25f
                                     : (ch(0) * 77 + ch(1) * 150 + ch(2) * 29 + 128) >> 8);
        blended(x, y) = vt.narrow(vt.mix(w(luma, x, y), 1, w(fs.back(), x, y), 1, 1));
        p.outputs.push_back(blended);
        p.shapes.push_back(Shape::Image), p.tol.push_back(image_tol);
    }
    if (pick(4) == 0) {
        p.kinds.push_back("specialized");
        p.outputs[0].specialize(p.shift > 1);
    }
    in.set_estimates({{0, kEstimateW}, {0, kEstimateH}});
    p.knee.set_estimate(100);
    p.shift.set_estimate(2);
    p.gain.set_estimate(0.75f);
    p.rgb->set_estimates({{0, kEstimateW}, {0, kEstimateH}, {0, kColors}});
    for (size_t o = 0; o < p.outputs.size(); o++) {
        switch (p.shapes[o]) {
        case Shape::Image: p.outputs[o].set_estimates({{0, kEstimateW}, {0, kEstimateH}}); break;
        case Shape::Rows: p.outputs[o].set_estimates({{0, kEstimateH}}); break;
        case Shape::Bins: p.outputs[o].set_estimates({{0, kBins}}); break;
        case Shape::Planar: p.outputs[o].set_estimates({{0, kEstimateW}, {0, kEstimateH}, {0, kColors}}); break;
        case Shape::Interleaved: p.outputs[o].set_estimates({{0, kColors}, {0, kEstimateW}, {0, kEstimateH}}); break;
        }
    }
}

Buffer<> random_input(const ValueType &vt, const std::vector<int> &shape, uint32_t seed) {
    if (vt.t == UInt(8)) return random_buffer<uint8_t>(shape, seed, 0, 256);
    if (vt.t == UInt(16)) return random_buffer<uint16_t>(shape, seed, 0, vt.hi + 1);
    if (vt.t == Int(16)) return random_buffer<int16_t>(shape, seed, vt.lo, vt.hi + 1);
    return random_buffer<float16_t>(shape, seed, 0, 2);
}

// The outputs over w x h points from (x0, y0); 1-D outputs over the rows from y0, bins from 0.
// Output `o`'s buffer shape over w x h points from (x0, y0).
BufferShape output_shape(const TypedPipeline &p, size_t o, int w, int h, int x0, int y0) {
    switch (p.shapes[o]) {
    case Shape::Image: return {{w, h}, {x0, y0}};
    case Shape::Rows: return {{h}, {y0}};
    case Shape::Bins: return {{kBins}, {}};
    case Shape::Planar: return {{w, h, kColors}, {x0, y0, 0}};
    case Shape::Interleaved: return {{kColors, w, h}, {0, x0, y0}};
    }
    return {};
}

std::vector<Buffer<>> run(TypedPipeline &p, const Target &t, const Buffer<> &input, const Buffer<> &rgb, int w, int h,
                          int knee, int shift, int x0 = 0, int y0 = 0) {
    Pipeline &pipe = p.pipe();
    p.in->set(input);
    p.rgb->set(rgb);
    p.knee.set(knee);
    p.shift.set(shift);
    p.gain.set(0.75f);
    std::vector<Buffer<>> bufs;
    for (size_t o = 0; o < p.outputs.size(); o++)
        bufs.push_back(output_shape(p, o, w, h, x0, y0).buffer(p.outputs[o].type()));
    return realize_into(pipe, bufs, t);
}

// The pipeline planned for CUDA and lowered: what its launches would ask of the device at the run
// sizes and at larger ones than it was planned for (lowered_launches.h), or "". The buffers as
// `run` makes them.
std::string cuda_launches_at_sizes(TypedPipeline &cuda, uint64_t seed) {
    const Halide::Module m = cuda_module(cuda.outputs);
    for (auto [w, h, x0, y0] : random_family_launch_sizes(kEstimateW, kEstimateH)) {
        std::map<std::string, int64_t> at;
        add_buffer_sizes(at, cuda.in->name(), {w, h});
        add_buffer_sizes(at, cuda.rgb->name(), {w, h, kColors});
        for (size_t o = 0; o < cuda.outputs.size(); o++) {
            const BufferShape shape = output_shape(cuda, o, w, h, x0, y0);
            add_buffer_sizes(at, cuda.outputs[o].name(), shape.extents, shape.mins);
        }
        const int knee = 40 + int(seed % 200), shift = 1 + int(seed % 3);
        const std::string beyond = launches_beyond_cuda(cuda_launches(
            m, at, {{"knee", Expr(int32_t(knee))}, {"shift", Expr(int32_t(shift))}, {"gain", Expr(0.75f)}}));
        if (!beyond.empty())
            return "planned for CUDA, at " + std::to_string(w) + "x" + std::to_string(h) + ", " + beyond;
    }
    return "";
}

}  // namespace

TypedPipelineFuncs random_typed_pipeline(uint64_t seed, const std::string &target) {
    TypedPipeline p;
    build(seed, p);
    if (target.empty()) {
        schedule_every_func_at_root(p.outputs);
    } else {
        schedule_with_solder(p.outputs, target);
    }
    return {p.outputs, {*p.in, *p.rgb, p.knee, p.shift, p.gain}};
}

RandomTypedResult run_random_typed_pipelines(const std::vector<uint64_t> &seeds, const std::string &target,
                                             bool plan_only) {
    RandomTypedResult res;
    const Target host = get_host_target(), t = make_target(target);
    for (uint64_t seed : seeds) {
        std::string plan, mismatch;
        TypedPipeline ours, ref;
        std::string failure = failure_of([&] {
            build(seed, ours);
            build(seed, ref);
            res.kinds.insert(res.kinds.end(), ours.kinds.begin(), ours.kinds.end());
            std::ostringstream type_name;
            type_name << ours.vt.t;
            res.types.push_back(type_name.str());
            plan = schedule_with_solder(ours.outputs, target);
            schedule_every_func_at_root(ref.outputs);
            if (plan_only) return;
            ours.pipe().compile_jit(t);
            if (target == "opencl") {
                TypedPipeline cuda;
                build(seed, cuda);
                plan += "\n(planned for CUDA and lowered)\n" + schedule_with_solder(cuda.outputs, "cuda");
                const std::string beyond = cuda_launches_at_sizes(cuda, seed);
                if (!beyond.empty()) throw std::runtime_error(beyond);
            }
            ref.pipe().compile_jit(host);
            for (auto [w, h, x0, y0] : random_family_sizes(kEstimateW, kEstimateH)) {
                Buffer<> input = random_input(ours.vt, {w, h}, uint32_t(seed * 7 + uint64_t(w)));
                Buffer<> rgb = random_input(ours.vt, {w, h, kColors}, uint32_t(seed * 11 + uint64_t(h)));
                const int knee = 40 + int(seed % 200), shift = 1 + int(seed % 3);
                std::vector<Buffer<>> want;
                try {
                    want = run(ref, host, input, rgb, w, h, knee, shift, x0, y0);
                } catch (const Halide::Error &) {
                    // (Halide refuses a window away from the origin for some pipelines themselves: a
                    // scan's update writes the rows its RDom names whatever the window.)
                    if (x0 != 0 || y0 != 0) continue;
                    throw;
                }
                auto got = run(ours, t, input, rgb, w, h, knee, shift, x0, y0);
                for (size_t o = 0; o < got.size() && mismatch.empty(); o++) {
                    std::string d = first_difference(got[o], want[o], ours.tol[o]);
                    if (!d.empty())
                        mismatch = "output " + std::to_string(o) + " (" + ours.outputs[o].name() + ") at " +
                                   std::to_string(w) + "x" + std::to_string(h) + " from (" + std::to_string(x0) + ", " +
                                   std::to_string(y0) + "): " + d;
                }
                if (!mismatch.empty()) return;
            }
        });
        if (failure.empty()) failure = mismatch;
        if (!failure.empty()) {
            std::string kinds;
            for (auto &k : ours.kinds) kinds += (kinds.empty() ? "" : ",") + k;
            res.failed_seeds.push_back(seed);
            std::ostringstream type_name;
            type_name << ours.vt.t;
            res.messages.push_back("seed " + std::to_string(seed) + " (" + type_name.str() + ": " + kinds + ") on " +
                                   target + ": " + failure + "\n" + plan);
        }
    }
    return res;
}

}  // namespace solder::testing
