// Vector accesses at sizes known only at run time (schedules/writer/aligned_vectors.h): a pipeline
// written with its extents from its input gets, on CUDA, a branch of each vectorized output whose
// loads and stores are whole 16-byte vectors, beside the general branch; both branches run on the
// host and match a plain C++ reference at sizes that take either.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <tuple>

#include "schedules/writer/schedule_writer.h"
#include "tests/support/user_pipeline.h"
#include "tests/support/test_processes.h"

using namespace Halide;
using namespace solder::testing;

namespace {

struct RowNorm {
    ImageParam in{Float(32), 2, "an_in"};
    Func out{"an_out"}, mean{"an_mean"};
    RowNorm() {
        Var x("x"), y("y");
        RDom r(0, in.dim(0).extent(), "r");
        mean(y) = sum(in(r, y)) / cast<float>(in.dim(0).extent());
        out(x, y) = in(x, y) - mean(y);
        in.set_estimates({{0, 4096}, {0, 2048}});
        out.set_estimates({{0, 4096}, {0, 2048}});
    }
};

struct Scale {
    ImageParam in{Float(32), 2, "as_in"};
    Func out{"as_out"};
    Scale() {
        Var x("x"), y("y");
        out(x, y) = in(x, y) * 3.0f + 1.0f;
        in.set_estimates({{0, 4096}, {0, 2048}});
        out.set_estimates({{0, 4096}, {0, 2048}});
    }
};

// A Func's name as the schedule's source writes it (a Func named alike earlier in the process, as
// when several test files run in one, is "an_out$1": an_out_1).
std::string ident(const Func &f) {
    std::string s = f.name();
    for (char &ch : s)
        if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
    return s;
}

std::string cuda_stmt(const std::vector<Func> &outs, const std::vector<Argument> &args, const std::string &name) {
    std::string stmt = ::testing::TempDir() + "/" + name + ".stmt";
    Pipeline(outs).compile_to_lowered_stmt(stmt, args, Text, solder::make_target("cuda"));
    return read_file(stmt);
}

}  // namespace

TEST(AlignedVectors, RunTimeExtentsGetWholeVectorsOnCuda) {
    RowNorm n;
    std::string src = schedule_with_solder({n.out}, "cuda");
    const std::string o = ident(n.out);
    EXPECT_NE(src.find(o + ".specialize((" + o + ".output_buffer().dim(0).extent()) % 4 == 0"), std::string::npos)
        << src;
    // A generator's schedule has its pipeline in scope, not its inputs: the source finds them by name.
    EXPECT_NE(src.find("(solder_input_field(\"an_in\", \"stride\", 1)) % 4 == 0"), std::string::npos) << src;
    EXPECT_NE(src.find("auto solder_input_field = [&](const std::string &name"), std::string::npos) << src;
    std::string ptx = cuda_stmt({n.out}, {n.in}, "aligned_row_norm");
    EXPECT_NE(ptx.find("ld.global.nc.v4"), std::string::npos);
    EXPECT_NE(ptx.find("st.global.v4"), std::string::npos);

    Scale s;
    src = schedule_with_solder({s.out}, "cuda");
    EXPECT_NE(src.find(ident(s.out) + ".specialize("), std::string::npos) << src;
    ptx = cuda_stmt({s.out}, {s.in}, "aligned_scale");
    EXPECT_NE(ptx.find("ld.global.nc.v4"), std::string::npos);
    EXPECT_NE(ptx.find("st.global.v4"), std::string::npos);
}

// A Tuple's several buffers are not named by the condition: it keeps one branch, and plans and
// compiles as before.
TEST(AlignedVectors, TupleOutputsKeepOneBranch) {
    ImageParam in(Float(32), 2, "at_in");
    Var x("x"), y("y");
    Func t("at_t");
    t(x, y) = Tuple(in(x, y) * 2.0f, in(x, y) + 1.0f);
    in.set_estimates({{0, 4096}, {0, 2048}});
    t.set_estimates({{0, 4096}, {0, 2048}});
    std::string src;
    ASSERT_NO_THROW(src = schedule_with_solder({t}, "cuda"));
    EXPECT_EQ(src.find(".specialize("), std::string::npos) << src;
    EXPECT_NO_THROW(cuda_stmt({t}, {in}, "aligned_tuple"));
}

// Solder makes the branch for CUDA only: on the host alignment buys nothing, and the branch would
// compile each vectorized output twice. Its condition does not depend on the target, so a row
// normalization scheduled through the writer with the branch runs both branches on the host,
// checked against a plain C++ reference.
TEST(AlignedVectors, BothBranchesMatchOnTheHost) {
    EXPECT_EQ(schedule_with_solder({RowNorm().out}, "host").find(".specialize("), std::string::npos);
    RowNorm n;
    solder::ScheduleWriter writer({n.out});
    writer.guard_every_tail({true, true, true});
    writer.compute_root(n.mean);
    writer.vectorize({n.out}, n.out.args()[0], 4, TailStrategy::GuardWithIf);
    writer.finish();
    ASSERT_NE(writer.source("").find(".specialize("), std::string::npos) << writer.source("");
    Pipeline p({n.out});
    p.compile_jit(solder::make_target("host"));
    // 64 x 8 and 4096 x 3 take the aligned branch, the others the general one; an output whose
    // rows start at 1 (a crop of a larger one) the general one too.
    for (auto [w, h, shifted] : std::vector<std::tuple<int, int, bool>>{
             {64, 8, false}, {4096, 3, false}, {37, 29, false}, {1, 1, false}, {63, 8, true}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (shifted ? " from x = 1" : ""));
        const int in_w = shifted ? w + 1 : w, x0 = shifted ? 1 : 0;
        Buffer<float> a = random_buffer<float>({in_w, h}, 7, -2, 2);
        n.in.set(a);
        Buffer<float> o(w, h);
        o.set_min(x0, 0);
        p.realize(o);
        for (int y = 0; y < h; y++) {
            double m = 0;
            for (int x = 0; x < in_w; x++) m += a(x, y);
            m /= in_w;
            for (int x = x0; x < x0 + w; x++) ASSERT_NEAR(o(x, y), a(x, y) - m, 1e-4) << x << "," << y;
        }
    }
}

// Halide 21's CUDA backend fails an LLVM assertion (aborting the compiler) on a guarded vector of
// 64-bit values: such stages stay serial in each thread at run-time sizes. A user's uint8 sharpen
// with a float64 column energy over the image's rows.
TEST(AlignedVectors, SixtyFourBitValuesCompileForCudaAtAnySize) {
    ImageParam in(UInt(8), 2, "a64_in");
    Var x("x"), y("y");
    Func c = BoundaryConditions::repeat_edge(in);
    Func s("a64_s"), sharp("a64_sharp"), energy("a64_energy");
    s(x, y) = cast<int16_t>(c(x, y)) * 5 - cast<int16_t>(c(x - 1, y)) - cast<int16_t>(c(x + 1, y));
    sharp(x, y) = saturating_cast<uint8_t>(s(x, y));
    RDom ry(0, in.dim(1).extent(), "ry");
    Expr d = cast<double>(s(x, ry));
    energy(x) = sum(d * d);
    in.set_estimates({{0, 1920}, {0, 1080}});
    sharp.set_estimates({{0, 1920}, {0, 1080}});
    energy.set_estimates({{0, 1920}});
    std::string src = schedule_with_solder({sharp, energy}, "cuda");
    EXPECT_EQ(src.find(ident(energy) + ".vectorize("), std::string::npos) << src;
    std::string ptx = cuda_stmt({sharp, energy}, {in}, "aligned_64_bit");
    EXPECT_NE(ptx.find(".entry"), std::string::npos);
}

// An output whose channels each thread unrolls in a branch of its own (3 channels from 0; each
// channel reads the whole pixel) gets its aligned branch inside that branch as well as beside the
// general schedule: four kernels, the aligned ones with 16-byte accesses.
TEST(AlignedVectors, AnUnrolledChannelBranchHasAnAlignedBranchInside) {
    ImageParam in(Float(32), 3, "ach_in");
    Var x("x"), y("y"), c("c");
    Func out("ach_out");
    Expr l = (in(x, y, 0) + in(x, y, 1) + in(x, y, 2)) / 3.0f;
    out(x, y, c) = l + (in(x, y, c) - l) * 1.5f;
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    std::string src = schedule_with_solder({out}, "cuda");
    const std::string o = ident(out);
    const std::string branch = o + ".specialize(" + o + ".output_buffer().dim(2).extent() == 3 && " + o +
                               ".output_buffer().dim(2).min() == 0)";
    EXPECT_NE(src.find(branch + ".unroll(" + o + "_ci);"), std::string::npos) << src;
    EXPECT_NE(src.find(branch + ".specialize((" + o + ".output_buffer().dim(0).extent()) % 4 == 0"), std::string::npos)
        << src;
    EXPECT_NE(src.find("\n" + o + ".specialize((" + o + ".output_buffer().dim(0).extent()) % 4 == 0"),
              std::string::npos)
        << src;
    std::string ptx = cuda_stmt({out}, {in}, "aligned_channels");
    size_t kernels = 0;
    for (size_t at = ptx.find(".entry"); at != std::string::npos; at = ptx.find(".entry", at + 1)) kernels++;
    EXPECT_EQ(kernels, 4u);
    EXPECT_NE(ptx.find("ld.global.nc.v4"), std::string::npos);
    EXPECT_NE(ptx.find("st.global.v4"), std::string::npos);
}

// Halide 21's CUDA backend drops the conversion of a vector to float16 (the stores write the halves
// of the f32 bits): an alpha blend of f16 images computed in f32, and an f32 output reading an f16
// rounding inlined into it, keep their conversions, one point at a time. f16 arithmetic with no
// conversion (a * b + a of f16 images) is computed right in vectors, but the backend loads and
// stores f16 vectors one element at a time: every kernel with f16 values takes one point per
// thread in 32 x 8 tiles (two such kernels reading the same inputs launched as one).
TEST(AlignedVectors, ConversionsToF16StayScalarOnCuda) {
    Var x("x"), y("y");
    ImageParam a(Float(16), 2, "h16_a"), b(Float(16), 2, "h16_b"), in(Float(32), 2, "h16_in");
    Func blend("h16_blend"), rounded("h16_rounded"), err("h16_err"), math("h16_math");
    blend(x, y) = cast<float16_t>(cast<float>(a(x, y)) * 0.25f + cast<float>(b(x, y)) * 0.75f);
    rounded(x, y) = cast<float16_t>(in(x, y));
    err(x, y) = in(x, y) - cast<float>(rounded(x, y));
    math(x, y) = a(x, y) * b(x, y) + a(x, y);
    for (ImageParam *p : {&a, &b, &in}) p->set_estimates({{0, 4096}, {0, 2048}});
    for (Func *f : {&blend, &err, &math}) f->set_estimates({{0, 4096}, {0, 2048}});
    std::string src = schedule_with_solder({blend, err, math}, "cuda");
    EXPECT_EQ(src.find(ident(blend) + ".vectorize("), std::string::npos) << src;
    EXPECT_EQ(src.find(ident(err) + ".vectorize("), std::string::npos) << src;
    EXPECT_NE(src.find(blend.name() + " converts to float16"), std::string::npos) << src;
    EXPECT_EQ(src.find(ident(math) + ".vectorize("), std::string::npos) << src;
    // (math and blend read the same inputs: launched together, a point of each per thread.)
    EXPECT_NE(src.find("k0_" + blend.name() + "_horizontal [pointwise, 8 rows per block]"), std::string::npos) << src;
    EXPECT_NE(src.find(blend.name() + " -> " + math.name() + ": launched together"), std::string::npos) << src;
    const std::string together = cuda_stmt({blend, math}, {a, b}, "f16_together");
    size_t launches = 0;
    for (size_t at = together.find("halide_cuda_run("); at != std::string::npos;
         at = together.find("halide_cuda_run(", at + 1))
        launches++;
    EXPECT_EQ(launches, 1u) << together;
    // Each kernel converting to f16 rounds with cvt.rn.f16.f32 (a vector store would have none).
    std::string ptx = cuda_stmt({blend, err}, {a, b, in}, "f16_conversions");
    size_t kernels = 0, conversions = 0;
    for (size_t at = ptx.find(".entry"); at != std::string::npos; at = ptx.find(".entry", at + 1)) kernels++;
    for (size_t at = ptx.find("cvt.rn.f16.f32"); at != std::string::npos; at = ptx.find("cvt.rn.f16.f32", at + 1))
        conversions++;
    EXPECT_GE(kernels, 2u);
    EXPECT_GE(conversions, kernels) << ptx;
}
