// Pipelines of 8- and 16-bit elements as users write them. Pipelines in Halide's own BFloat(16) type,
// as a user's generator for an LLM's activations would be: bf16 inputs and outputs, conversions,
// and arithmetic in bf16 itself. Halide 21 cannot compile any bf16 operation for CUDA (issue 8311),
// so for GPU targets Solder rewrites them (autosched/bf16_on_gpu.h). Each pipeline is planned at
// its estimates, run on the host and on OpenCL at other sizes against a plain C++ reference
// (core/bf16.h), and compiled for CUDA. And 8- and 16-bit buffers not declared 16-byte aligned,
// which the plan names for CUDA.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "Halide.h"
#include "autosched/bf16_on_gpu.h"
#include "core/bf16.h"
#include "runtime/targets.h"
#include "tests/support/test_processes.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

float f32(bfloat16_t v) { return float(v); }
// The host reference's rounding: every bf16 operation rounds its f32 result.
float rnd(float f) { return solder::round_to_bf16(f); }

// Whether `got` is `want` or a bf16 unit in the last place from it.
bool within_an_ulp(float got, float want) {
    if (got == want) return true;
    const float ulp = std::ldexp(1.0f, std::ilogb(std::max(std::abs(want), 1e-30f)) - 7);
    return std::abs(got - want) <= ulp * 1.0001f;
}

void compiles_for_cuda(const std::vector<Func> &outs, const std::vector<Argument> &args, const std::string &name) {
    const std::string plan = schedule_with_solder(outs, "cuda");
    EXPECT_NE(plan.find(solder::autosched::kBf16EmulatedReason), std::string::npos) << plan;
    EXPECT_NO_THROW(Pipeline(outs).compile_to_object(::testing::TempDir() + "/" + name + ".o", args, name,
                                                     solder::make_target("cuda")))
        << plan;
}

}  // namespace

// RMSNorm over rows of bf16 activations whose length is the input's extent: widened to f32 for the
// sum of squares and the scaling, the result stored as bf16, beside the rows' f32 scales.
struct RmsNorm {
    ImageParam x{BFloat(16), 2, "x"};
    ImageParam w{BFloat(16), 1, "w"};
    Func ss{"ss"}, scale{"scale"}, out{"out"};
    RmsNorm() {
        Var i("i"), j("j");
        RDom r(0, x.dim(0).extent(), "r");
        ss(j) = sum(cast<float>(x(r, j)) * cast<float>(x(r, j)));
        scale(j) = 1.0f / sqrt(ss(j) / cast<float>(x.dim(0).extent()) + 1e-5f);
        out(i, j) = cast(BFloat(16), cast<float>(x(i, j)) * scale(j) * cast<float>(w(i)));
        x.set_estimates({{0, 4096}, {0, 1024}});
        w.set_estimates({{0, 4096}});
        out.set_estimates({{0, 4096}, {0, 1024}});
        scale.set_estimates({{0, 1024}});
    }
};

TEST(NarrowTypes, RmsNormAnySizeExact) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        RmsNorm p;
        const std::string plan = schedule_with_solder({p.out, p.scale}, target);
        EXPECT_EQ(plan.find(solder::autosched::kBf16EmulatedReason) != std::string::npos, target != "host") << plan;
        // OpenCL kernels cannot hold bf16 without cl_half: they run on the host, and a kernel there
        // writes no side output (the scales beside the rows), so the plan is made without them.
        EXPECT_EQ(plan.find("planned without side outputs") != std::string::npos, target == "opencl") << plan;
        Pipeline pipe = compiled({p.out, p.scale}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{4096, 3}, {37, 29}, {1, 1}, {517, 5}}) {
            SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(h));
            auto x = random_buffer<bfloat16_t>({w, h}, 11, -3, 3);
            Buffer<bfloat16_t> wt(w);
            for (int i = 0; i < w; i++) wt(i) = bfloat16_t(0.5f + 0.01f * float(i % 97));
            wt.set_host_dirty();
            p.x.set(x);
            p.w.set(wt);
            Buffer<bfloat16_t> o(w, h);
            Buffer<float> s(h);
            pipe.realize({o, s}, solder::make_target(target));
            o.copy_to_host();
            s.copy_to_host();
            for (int j = 0; j < h; j++) {
                double ss = 0;
                for (int i = 0; i < w; i++) ss += double(f32(x(i, j))) * f32(x(i, j));
                const float want_s = float(1.0 / std::sqrt(ss / w + 1e-5));
                ASSERT_NEAR(s(j), want_s, 1e-4 * want_s) << "row " << j << "\n" << plan;
                for (int i = 0; i < w; i++) {
                    // The stored value is the f32 product rounded once: exact but for the f32
                    // sum's own order, which may move a product across a rounding boundary.
                    const float want = rnd(f32(x(i, j)) * s(j) * f32(wt(i)));
                    ASSERT_TRUE(within_an_ulp(f32(o(i, j)), want))
                        << "(" << i << "," << j << "): " << f32(o(i, j)) << " vs " << want << "\n"
                        << plan;
                }
            }
        }
    }
    RmsNorm p;
    compiles_for_cuda({p.out, p.scale}, {p.x, p.w}, "bf16_rmsnorm");
}

// Arithmetic in bf16 itself: products, sums, a quotient, min/max, abs, comparisons and select, a
// constant, a cast from f64, and a column sum accumulated in bf16 (an update over an RDom).
struct Bf16Math {
    ImageParam in{BFloat(16), 2, "in"};
    Param<float> bias{"bias"};
    Func a{"a"}, b{"b"}, colsum{"colsum"}, out{"out"};
    Bf16Math() {
        Var x("x"), y("y");
        const Expr half(bfloat16_t(0.5f)), three(bfloat16_t(3.0f)), one(bfloat16_t(1.0f));
        a(x, y) = in(x, y) * in(x, y) + half - in(x, y) / three;
        b(x, y) = select(a(x, y) < in(x, y) || in(x, y) >= one, max(a(x, y), abs(in(x, y))),
                         cast(BFloat(16), cast<double>(min(a(x, y), in(x, y))) + cast<double>(bias)));
        RDom r(0, in.dim(1).extent(), "r");
        colsum(x) = cast(BFloat(16), 0.0f);
        colsum(x) += b(x, r);
        out(x, y) = b(x, y) - colsum(x) * half;
        in.set_estimates({{0, 2048}, {0, 512}});
        bias.set_estimate(0.25f);
        out.set_estimates({{0, 2048}, {0, 512}});
    }
};

TEST(NarrowTypes, ArithmeticInBf16AnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Bf16Math p;
        const std::string plan = schedule_with_solder({p.out}, target);
        Pipeline pipe = compiled({p.out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 40}, {1, 1}, {37, 3}}) {
            SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(h));
            auto in = random_buffer<bfloat16_t>({w, h}, 5, -2, 2);
            p.in.set(in);
            p.bias.set(0.25f);
            Buffer<bfloat16_t> o = realize_on<bfloat16_t>(pipe, {w, h}, target);
            // The reference rounds after each operation, as the GPU path does.
            std::vector<float> bv(size_t(w) * size_t(h)), cs(size_t(w), 0.0f);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    const float v = f32(in(x, y));
                    const float av = rnd(rnd(rnd(v * v) + 0.5f) - rnd(v / 3.0f));
                    const float bvv = (av < v || v >= 1.0f) ? rnd(std::max(av, std::abs(v)))
                                                            : rnd(float(double(std::min(av, v)) + 0.25));
                    bv[size_t(y) * size_t(w) + size_t(x)] = bvv;
                    cs[size_t(x)] = rnd(cs[size_t(x)] + bvv);
                }
            int off = 0;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    const float want = rnd(bv[size_t(y) * size_t(w) + size_t(x)] - rnd(cs[size_t(x)] * 0.5f));
                    const float got = f32(o(x, y));
                    if (target == "host") {
                        // Halide's own emulation on the host rounds otherwise (a multiply and an
                        // add fused into one rounding, a division by a constant taken as a product
                        // with its bf16 reciprocal): a few units of the last place apart.
                        ASSERT_NEAR(got, want, 0.04 * (1 + std::abs(want) + std::abs(cs[size_t(x)]))) << x << "," << y;
                    } else if (got != want) {
                        off++;
                    }
                }
            if (target != "host") {
                EXPECT_EQ(off, 0) << plan;
            }
        }
    }
    Bf16Math p;
    compiles_for_cuda({p.out}, {p.in, p.bias}, "bf16_math");
}

// The rewrite leaves a pipeline without bf16 as it is, and touches nothing for the host.
TEST(NarrowTypes, RewritesOnlyBf16ForGpus) {
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2.0f;
    EXPECT_TRUE(solder::autosched::emulate_bf16_for_gpu({f}, solder::make_target("cuda")).empty());
    RmsNorm p;
    EXPECT_TRUE(solder::autosched::emulate_bf16_for_gpu({p.out}, solder::make_target("host")).empty());
    // (The sum of squares is the inline reduction's own Func, which ss calls.)
    const auto names = solder::autosched::emulate_bf16_for_gpu({p.out, p.scale}, solder::make_target("opencl"));
    ASSERT_EQ(names.size(), 2u);
    EXPECT_EQ(names.back(), p.out.name());
    EXPECT_NE(names.front().find("sum"), std::string::npos) << names.front();
    // Once rewritten, nothing is left to rewrite.
    EXPECT_TRUE(solder::autosched::emulate_bf16_for_gpu({p.out, p.scale}, solder::make_target("opencl")).empty());
}

// 16-bit buffers not declared 16-byte aligned: the plan says what declaring them aligned gives, and
// once they are, the CUDA kernel's branch for whole vectors loads and stores 8 bytes at a time (the
// RMSNorm without its scales as a second output: a row kernel writing one beside its rows has no
// such branch).
TEST(NarrowTypes, DeclaredAlignmentGivesWideAccessesOnCuda) {
    for (bool aligned : {false, true}) {
        SCOPED_TRACE(aligned ? "declared aligned" : "not declared");
        RmsNorm p;
        if (aligned) {
            p.x.set_host_alignment(16);
            p.w.set_host_alignment(16);
            p.out.output_buffer().set_host_alignment(16);
        }
        const std::string plan = schedule_with_solder({p.out}, "cuda");
        EXPECT_EQ(plan.find("x: 8- or 16-bit elements in a buffer not declared 16-byte aligned") != std::string::npos,
                  !aligned)
            << plan;
        const std::string stmt = ::testing::TempDir() + "/bf16_aligned.stmt";
        Pipeline(p.out).compile_to_lowered_stmt(stmt, {p.x, p.w}, Halide::StmtOutputFormat::Text,
                                                solder::make_target("cuda"));
        const std::string text = read_file(stmt);
        EXPECT_EQ(text.find("ld.global.nc.v4.b16") != std::string::npos, aligned) << plan;
    }
}

// The same for 8-bit images (a gain on a u8 image), and only for CUDA.
struct Gain {
    ImageParam in{UInt(8), 2, "img"};
    Func out{"gained"};
    explicit Gain(bool aligned) {
        Var x("x"), y("y");
        out(x, y) = cast<uint8_t>(min(cast<uint16_t>(in(x, y)) * 3 / 2, 255));
        in.set_estimates({{0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3840}, {0, 2160}});
        if (aligned) {
            in.set_host_alignment(16);
            out.output_buffer().set_host_alignment(16);
        }
    }
};

TEST(NarrowTypes, EightBitBuffersToo) {
    for (bool aligned : {false, true}) {
        SCOPED_TRACE(aligned ? "declared aligned" : "not declared");
        Gain on_cl(aligned), g(aligned);
        EXPECT_EQ(schedule_with_solder({on_cl.out}, "opencl").find("not declared 16-byte aligned"), std::string::npos);
        const std::string plan = schedule_with_solder({g.out}, "cuda");
        EXPECT_EQ(plan.find("img: 8- or 16-bit elements in a buffer not declared 16-byte aligned") != std::string::npos,
                  !aligned)
            << plan;
        const std::string stmt = ::testing::TempDir() + "/u8_aligned.stmt";
        Pipeline(g.out).compile_to_lowered_stmt(stmt, {g.in}, Halide::StmtOutputFormat::Text,
                                                solder::make_target("cuda"));
        EXPECT_EQ(read_file(stmt).find("ld.global.nc.v2.b32") != std::string::npos, aligned) << plan;
    }
}

// 8-bit loads at shuffled points (an upsampling's x / 2, a mirror's reversal): Halide 21's CUDA
// backend loads such vectors densely and shuffles them, and LLVM's NVPTX code generator fails an
// assertion (the process aborts). The plan leaves the Funcs that load so unvectorized on CUDA,
// and says why; an 8-bit stencil through a mirrored boundary (its index under a select, gathered
// lane by lane) and a 16-bit upsampling keep their vectors.
struct Resampled {
    ImageParam in;
    Func out{"resampled"};
    Resampled(Type t, int kind) : in(t, 2, "img") {
        Var x("x"), y("y");
        Expr W = in.dim(0).extent();
        Func c = BoundaryConditions::mirror_image(in);
        if (kind == 0)
            out(x, y) = cast(t, (cast<int>(in(x / 2, y / 2)) + in(x, y) + 1) / 2);
        else if (kind == 1)
            out(x, y) = in(W - 1 - x, y);
        else
            out(x, y) = cast(t, (cast<int>(c(x - 1, y)) + 2 * c(x, y) + c(x + 1, y) + 2) / 4);
        in.set_estimates({{0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3840}, {0, 2160}});
    }
};

TEST(NarrowTypes, NarrowShuffledLoadsStayScalarOnCuda) {
    for (auto [t, kind, scalar] :
         {std::tuple{UInt(8), 0, true}, std::tuple{UInt(8), 1, true}, std::tuple{Int(8), 0, true},
          std::tuple{UInt(8), 2, false}, std::tuple{UInt(16), 0, true}, std::tuple{UInt(32), 0, false}}) {
        SCOPED_TRACE(std::to_string(t.bits()) + "-bit, kind " + std::to_string(kind));
        Resampled r(t, kind);
        const std::string plan = schedule_with_solder({r.out}, "cuda");
        // (Named as Halide made the name unique: each pass makes a Func "resampled".)
        const std::string name = r.out.name();
        EXPECT_EQ(plan.find(name + ": loads 8- or 16-bit values at shuffled points") != std::string::npos, scalar)
            << plan;
        // (The mirrored stencil takes stencil tiles, one point per thread, vectors or not.)
        if (kind != 2) {
            EXPECT_EQ(plan.find(".vectorize(") != std::string::npos, !scalar) << plan;
        }
        Pipeline(r.out).compile_to_lowered_stmt(::testing::TempDir() + "/u8_shuffled.stmt", {r.in},
                                                Halide::StmtOutputFormat::Text, solder::make_target("cuda"));
        Resampled on_cl(t, kind);
        EXPECT_EQ(schedule_with_solder({on_cl.out}, "opencl").find("shuffled points"), std::string::npos);
    }
}

// The same where the upsampling is an output written beside its reader's kernel (a side output):
// the reader computes it again from a copy, inlined, so the whole kernel stays unvectorized on CUDA
// (a random narrow-type pipeline's 8-bit preview of such an output aborted LLVM before).
TEST(NarrowTypes, SideOutputsLoadingShuffledEightBitsKeepTheirKernelScalarOnCuda) {
    ImageParam in(UInt(8), 2, "img");
    Var x("x"), y("y");
    Func up("up"), preview("preview");
    up(x, y) = cast<uint8_t>((cast<int>(in(x / 2, y / 2)) + in(x, y) + 1) / 2);
    preview(x, y) = cast<uint8_t>(up(x, y) / 2 + 10);
    in.set_estimates({{0, 3840}, {0, 2160}});
    up.set_estimates({{0, 3840}, {0, 2160}});
    preview.set_estimates({{0, 3840}, {0, 2160}});
    const std::string plan = schedule_with_solder({preview, up}, "cuda");
    ASSERT_NE(plan.find("writes " + preview.name() + " and " + up.name() + " (side output)"), std::string::npos)
        << plan;
    for (const Func &f : {up, preview})
        EXPECT_NE(plan.find(f.name() + ": loads 8- or 16-bit values at shuffled points"), std::string::npos) << plan;
    EXPECT_EQ(plan.find(".vectorize("), std::string::npos) << plan;
    Pipeline({preview, up})
        .compile_to_lowered_stmt(::testing::TempDir() + "/u8_side.stmt", {in}, Halide::StmtOutputFormat::Text,
                                 solder::make_target("cuda"));
}
