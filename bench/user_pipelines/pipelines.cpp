// Pipelines written the way Halide users write them, none of them a bundled app: ImageParams whose
// extents drive the RDoms, boundary conditions, inline reductions (`sum`, `minimum`), scans, a
// histogram, a gather, a scalar Param in the index math. Each is scheduled through an
// auto-scheduler's plugin (Solder's, or Halide's Anderson2021, Li2018, Mullapudi2016) with its
// estimates, as a user's generator would be, and compiled ahead of time for CUDA; `ref` compiles
// it for the host with every Func at root, the reference the runner checks every GPU output with.
//   user_pipelines_gen OUT_DIR SCHEDULER [PIPELINE]
// SCHEDULER: ref, runtime (the Halide runtime for the host and CUDA, once), solder, anderson2021,
// li2018, mullapudi2016. Plugins are loaded from $SOLDER_PLUGIN and $HALIDE_PLUGIN_DIR. Writes
// OUT_DIR/PIPELINE_SCHEDULER.{a,h} and, for the auto-schedulers, the schedule's source (.sched.txt).
// $SOLDER_KNOB=KEY=VALUE passes one more parameter to Solder's plugin (`register_tiles=0`), and
// $SOLDER_TAG names the libraries instead of SCHEDULER (letters and digits only).
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include "Halide.h"

using namespace Halide;

namespace {

// A pipeline: its outputs and its arguments in order (inputs, then scalar Params).
struct P {
    std::vector<Func> outs;
    std::vector<Argument> args;
};
Var x("x"), y("y"), c("c"), n("n");

// Softmax down the columns (over the outer dim) of 4096 x 2048 f32.
P colsoftmax() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(1).extent(), "r");
    Func m("m"), e("e"), s("s"), out("out");
    m(x) = maximum(in(x, r));
    e(x, y) = exp(in(x, y) - m(x));
    s(x) = sum(e(x, r));
    out(x, y) = e(x, y) / s(x);
    in.set_estimates({{0, 4096}, {0, 2048}});
    out.set_estimates({{0, 4096}, {0, 2048}});
    return {{out}, {in}};
}
// Mean over the channels of an NCHW f32 tensor (a reduction over a middle dim).
P chmean() {
    ImageParam in(Float(32), 4, "in");
    RDom r(0, in.dim(2).extent(), "r");
    Func out("out");
    out(x, y, n) = sum(in(x, y, r, n)) / cast<float>(in.dim(2).extent());
    in.set_estimates({{0, 128}, {0, 128}, {0, 64}, {0, 16}});
    out.set_estimates({{0, 128}, {0, 128}, {0, 16}});
    return {{out}, {in}};
}
// A 4096-bin histogram of a 3840 x 2160 16-bit image's top 12 bits.
P hist4k() {
    ImageParam in(UInt(16), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func h("h");
    h(x) = 0;
    h(cast<int>(in(r.x, r.y) >> 4)) += 1;
    in.set_estimates({{0, 3840}, {0, 2160}});
    h.set_estimates({{0, 4096}});
    return {{h}, {in}};
}
// A 3 x 3 median of an 8-bit 4K image (a min/max network), edges repeated.
P median3() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func mx("mx"), mn("mn"), md("md"), out("out");
    Expr a = cl(x, y - 1), b = cl(x, y), d = cl(x, y + 1);
    mx(x, y) = max(max(a, b), d);
    mn(x, y) = min(min(a, b), d);
    md(x, y) = max(min(a, b), min(max(a, b), d));
    Expr lo = max(max(mn(x - 1, y), mn(x, y)), mn(x + 1, y));
    Expr hi = min(min(mx(x - 1, y), mx(x, y)), mx(x + 1, y));
    Expr mid = max(min(md(x - 1, y), md(x, y)), min(max(md(x - 1, y), md(x, y)), md(x + 1, y)));
    out(x, y) = max(min(lo, mid), min(max(lo, mid), hi));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// Rows of 4096 x 8192 f32 gathered through an index buffer (clamped), scaled.
P rowperm() {
    ImageParam in(Float(32), 2, "in"), idx(Int(32), 1, "idx");
    Func out("out");
    out(x, y) = in(x, clamp(idx(y), 0, in.dim(1).extent() - 1)) * 2.0f;
    in.set_estimates({{0, 4096}, {0, 8192}});
    idx.set_estimates({{0, 8192}});
    out.set_estimates({{0, 4096}, {0, 8192}});
    return {{out}, {in, idx}};
}
// A matrix-vector product, 8192 x 8192 f32.
P gemv() {
    ImageParam A(Float(32), 2, "A"), v(Float(32), 1, "v");
    RDom k(0, A.dim(0).extent(), "k");
    Func out("out");
    out(y) = sum(A(k, y) * v(k));
    A.set_estimates({{0, 8192}, {0, 8192}});
    v.set_estimates({{0, 8192}});
    out.set_estimates({{0, 8192}});
    return {{out}, {A, v}};
}
// The cumulative sum along each row of 4096 x 4096 f32 (a scan along the innermost dim).
P prefix_rows() {
    ImageParam in(Float(32), 2, "in");
    RDom r(1, in.dim(0).extent() - 1, "r");
    Func cs("cs");
    cs(x, y) = in(x, y);
    cs(r, y) = cs(r, y) + cs(r - 1, y);
    in.set_estimates({{0, 4096}, {0, 4096}});
    cs.set_estimates({{0, 4096}, {0, 4096}});
    return {{cs}, {in}};
}
// A bilinear resize of a planar RGB f32 image by a scalar Param (2x up at the estimate).
P resize() {
    ImageParam in(Float(32), 3, "in");
    Param<float> sc("sc");
    sc.set_estimate(0.5f);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func out("out");
    Expr fx = (x + 0.5f) / sc - 0.5f, fy = (y + 0.5f) / sc - 0.5f;
    Expr ix = cast<int>(floor(fx)), iy = cast<int>(floor(fy));
    Expr wx = fx - ix, wy = fy - iy;
    out(x, y, c) =
        lerp(lerp(cl(ix, iy, c), cl(ix + 1, iy, c), wx), lerp(cl(ix, iy + 1, c), cl(ix + 1, iy + 1, c), wx), wy);
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, sc}};
}
// A 5 x 5 weighted window of a 4K f32 image, its weights a buffer, edges repeated (inline sum).
P conv5() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, 5, 0, 5, "k");
    Func out("out");
    out(x, y) = sum(cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w}};
}
// A separable 5-tap binomial blur of a 4K 16-bit RGB image, 32-bit sums.
P blur16() {
    ImageParam in(UInt(16), 3, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func bx("bx"), out("out");
    bx(x, y, c) =
        cast<uint32_t>(cl(x - 2, y, c)) + 4 * cl(x - 1, y, c) + 6 * cl(x, y, c) + 4 * cl(x + 1, y, c) + cl(x + 2, y, c);
    out(x, y, c) = cast<uint16_t>(
        (bx(x, y - 2, c) + 4 * bx(x, y - 1, c) + 6 * bx(x, y, c) + 4 * bx(x, y + 1, c) + bx(x, y + 2, c) + 128) >> 8);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}
// conv5 written as a reduction Func that is the output itself.
P conv5b() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, 5, 0, 5, "k");
    Func conv("conv");
    conv(x, y) = 0.0f;
    conv(x, y) += cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    conv.set_estimates({{0, 3840}, {0, 2160}});
    return {{conv}, {in, w}};
}
// conv5 written as a reduction Func, then a ReLU.
P conv5c() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, 5, 0, 5, "k");
    Func conv("conv"), out("out");
    conv(x, y) = 0.0f;
    conv(x, y) += cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y);
    out(x, y) = max(conv(x, y), 0.0f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w}};
}
// A 3 x 3 box filter of a mirrored 4K f32 image.
P box3() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::mirror_image(in);
    RDom r(-1, 3, -1, 3, "r");
    Func out("out");
    out(x, y) = sum(cl(x + r.x, y + r.y)) / 9.0f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 5 x 5 erosion (minimum) of an 8-bit 4K image.
P erode5() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-2, 5, -2, 5, "r");
    Func out("out");
    out(x, y) = minimum(cl(x + r.x, y + r.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A depthwise 3 x 3 filter of 1920 x 1080 x 16 f32, one weight set per channel, zero outside.
P dw3() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 3, "w");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    RDom k(0, 3, 0, 3, "k");
    Func out("out");
    out(x, y, c) = sum(cl(x + k.x - 1, y + k.y - 1, c) * w(k.x, k.y, c));
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    w.set_estimates({{0, 3}, {0, 3}, {0, 16}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    return {{out}, {in, w}};
}
// A separable 7-tap blur, each pass an inline `sum` over a 1-D RDom with its taps in a buffer.
P gauss7() {
    ImageParam in(Float(32), 2, "in"), k(Float(32), 1, "k");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(0, 7, "r");
    Func bx("bx"), out("out");
    bx(x, y) = sum(cl(x + r - 3, y) * k(r));
    out(x, y) = sum(bx(x, y + r - 3) * k(r));
    in.set_estimates({{0, 3840}, {0, 2160}});
    k.set_estimates({{0, 7}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, k}};
}
// A 5 x 5 range-weighted mean (a bilateral filter's core): two window sums, the weights and the
// weighted values, divided.
P rangeblur() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::mirror_image(in);
    RDom r(-2, 5, -2, 5, "r");
    Func wsum("wsum"), vsum("vsum"), out("out");
    Expr d = cl(x + r.x, y + r.y) - cl(x, y);
    Expr wt = exp(-d * d * 8.0f);
    wsum(x, y) = sum(wt);
    vsum(x, y) = sum(wt * cl(x + r.x, y + r.y));
    out(x, y) = vsum(x, y) / wsum(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 3 x 3 colour matrix applied to a planar RGB image, as a sum over the input's channels.
P colormat() {
    ImageParam in(Float(32), 3, "in"), m(Float(32), 2, "m");
    RDom r(0, 3, "r");
    Func out("out");
    out(x, y, c) = sum(in(x, y, r) * m(r, c));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    m.set_estimates({{0, 3}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, m}};
}
// A 2 x 2 box downsample (a pyramid level) with an RDom.
P down2() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, 2, 0, 2, "r");
    Func out("out");
    out(x, y) = sum(in(2 * x + r.x, 2 * y + r.y)) * 0.25f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in}};
}
// An integral image: a scan along x, then along y.
P integral() {
    ImageParam in(Float(32), 2, "in");
    RDom rx(1, in.dim(0).extent() - 1, "rx"), ry(1, in.dim(1).extent() - 1, "ry");
    Func sx("sx"), sxy("sxy");
    sx(x, y) = in(x, y);
    sx(rx, y) += sx(rx - 1, y);
    sxy(x, y) = sx(x, y);
    sxy(x, ry) += sxy(x, ry - 1);
    in.set_estimates({{0, 1920}, {0, 1080}});
    sxy.set_estimates({{0, 1920}, {0, 1080}});
    return {{sxy}, {in}};
}
// The position of each 3 x 3 window's minimum (a Tuple reduction), as an offset code.
P argmin3() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-1, 3, -1, 3, "r");
    Func am("am"), out("out");
    am(x, y) = {cl(x, y), 0};
    Expr v = cl(x + r.x, y + r.y);
    am(x, y) = {select(v < am(x, y)[0], v, am(x, y)[0]), select(v < am(x, y)[0], (r.y + 1) * 3 + r.x + 1, am(x, y)[1])};
    out(x, y) = am(x, y)[1];
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// conv5 with the window's size taken from the weights buffer (`RDom r(0, w.width(), 0, w.height())`).
P convp() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, w.dim(0).extent(), 0, w.dim(1).extent(), "k");
    Func out("out");
    out(x, y) = sum(cl(x + k.x - w.dim(0).extent() / 2, y + k.y - w.dim(1).extent() / 2) * w(k.x, k.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w}};
}
const std::map<std::string, std::function<P()>> kPipelines = {{"colsoftmax", colsoftmax},
                                                              {"chmean", chmean},
                                                              {"hist4k", hist4k},
                                                              {"median3", median3},
                                                              {"rowperm", rowperm},
                                                              {"gemv", gemv},
                                                              {"prefix_rows", prefix_rows},
                                                              {"resize", resize},
                                                              {"conv5", conv5},
                                                              {"blur16", blur16},
                                                              {"conv5b", conv5b},
                                                              {"conv5c", conv5c},
                                                              {"box3", box3},
                                                              {"erode5", erode5},
                                                              {"dw3", dw3},
                                                              {"gauss7", gauss7},
                                                              {"rangeblur", rangeblur},
                                                              {"colormat", colormat},
                                                              {"down2", down2},
                                                              {"integral", integral},
                                                              {"argmin3", argmin3},
                                                              {"convp", convp}};

// Every Func of the pipeline computed at root: the reference schedule.
void all_at_root(const std::vector<Func> &outs) {
    std::map<std::string, Internal::Function> env;
    for (auto &o : outs) {
        auto calls = Internal::find_transitive_calls(o.function());
        env.insert(calls.begin(), calls.end());
        env.emplace(o.name(), o.function());
    }
    for (auto &[name, f] : env) Func(f).compute_root();
}

std::string env_or(const char *name, const std::string &fallback) {
    const char *v = std::getenv(name);
    return v ? v : fallback;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT_DIR ref|runtime|solder|anderson2021|li2018|mullapudi2016 [PIPELINE]\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1], which = argv[2], only = argc > 3 ? argv[3] : "";
    const Target gpu("host-cuda-cuda_capability_86-no_runtime");
    if (which == "runtime") {
        compile_standalone_runtime(dir + "/runtime.o", Target("host-cuda-cuda_capability_86"));
        return 0;
    }
    std::string scheduler;
    if (which == "solder") {
        load_plugin(env_or("SOLDER_PLUGIN", "build/lib/libautoschedule_solder.so"));
        scheduler = "Solder";
    } else if (which != "ref") {
        const std::map<std::string, std::string> names = {
            {"anderson2021", "Anderson2021"}, {"li2018", "Li2018"}, {"mullapudi2016", "Mullapudi2016"}};
        if (!names.count(which)) {
            fprintf(stderr, "unknown scheduler '%s'\n", which.c_str());
            return 2;
        }
        load_plugin(env_or("HALIDE_PLUGIN_DIR", ".") + "/libautoschedule_" + which + ".so");
        scheduler = names.at(which);
    }
    int failed = 0;
    for (auto &[name, make] : kPipelines) {
        if (!only.empty() && only != name) continue;
        P p = make();
        const std::string fn = name + "_" + env_or("SOLDER_TAG", which);
        try {
            Pipeline pipeline(p.outs);
            if (which == "ref") {
                all_at_root(p.outs);
                pipeline.compile_to_static_library(dir + "/" + fn, p.args, fn, Target("host-no_runtime"));
            } else {
                std::map<std::string, std::string> params{{"parallelism", "132"}};
                if (which == "solder" && std::getenv("SOLDER_KNOB")) {
                    const std::string knob = std::getenv("SOLDER_KNOB");  // KEY=VALUE
                    params[knob.substr(0, knob.find('='))] = knob.substr(knob.find('=') + 1);
                }
                auto r = pipeline.apply_autoscheduler(gpu, AutoschedulerParams(scheduler, params));
                if (FILE *f = fopen((dir + "/" + fn + ".sched.txt").c_str(), "w")) {
                    fputs(r.schedule_source.c_str(), f);
                    fclose(f);
                }
                pipeline.compile_to_static_library(dir + "/" + fn, p.args, fn, gpu);
            }
            printf("built %s\n", fn.c_str());
        } catch (const std::exception &e) {
            printf("FAILED %s: %s\n", fn.c_str(), e.what());
            failed++;
        }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}
