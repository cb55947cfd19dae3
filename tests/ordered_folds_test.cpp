// Arg-max and arg-min folds Halide cannot split (autosched/ordered_folds.h): Solder cuts them into
// chunks folded in parallel, then folds the chunks in order. The results must be the serial fold's
// exactly, ties and infinities included, at the estimates and at other sizes, on the host and
// OpenCL; the reference is the same pipeline, built apart, run as Halide runs it unscheduled.
// (Not NaNs: without strict_float Halide lets LLVM assume there are none, and a comparison with
// one then goes either way, in the reference too.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace ordered_folds {

// The pipelines: an inline argmax over a whole image (a Tuple output of x, y and the value), a
// hand-written arg-min over a parameter's range of a 1-D input from a non-zero start (the Func's
// element on the left of the comparison), each row's inline argmin (a Tuple output too), and an
// argmax over the image's first three columns.
struct Folds {
    ImageParam img{Float(32), 2, "img"}, vec{Float(32), 1, "vec"};
    Param<int> first{"first"}, count{"count"};
    Var x{"x"}, y{"y"};
    Func whole{"whole"}, low{"low"}, rows{"rows"}, left{"left"};
    Folds() {
        RDom r(0, img.dim(0).extent(), 0, img.dim(1).extent(), "r");
        whole() = argmax(img(r.x, r.y));
        RDom s(first, count, "s");
        low() = Tuple(-1, std::numeric_limits<float>::infinity());
        low() = Tuple(select(low()[1] > vec(s), s, low()[0]), select(low()[1] > vec(s), vec(s), low()[1]));
        RDom q(0, img.dim(0).extent(), "q");
        rows(y) = argmin(q, img(q, y));
        img.set_estimates({{0, 1500}, {0, 800}});
        vec.set_estimates({{0, 100000}});
        first.set_estimate(7);
        count.set_estimate(90000);
        rows.set_estimates({{0, 800}});
        // (Over the first 3 columns: the chunks are cut along the outer RVar, 86 rows of 3 points.)
        RDom t(0, 3, 0, img.dim(1).extent(), "t");
        left() = argmax(t, img(min(t.x, img.dim(0).extent() - 1), t.y));
    }
    std::vector<Func> outputs() const { return {whole, low, rows, left}; }
};

// Values of few levels (ties everywhere), with infinities of both signs where `specials`.
Buffer<float> levels(std::vector<int> shape, uint32_t seed, bool specials) {
    Buffer<float> b(shape);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> level(0, 6), special(0, 40);
    b.for_each_value([&](float &v) {
        v = float(level(rng)) * 0.5f;
        if (!specials) return;
        const int s = special(rng);
        if (s == 0) v = std::numeric_limits<float>::infinity();
        if (s == 1) v = -std::numeric_limits<float>::infinity();
    });
    b.set_host_dirty();  // (else a GPU run may take the device copy, never made, as current)
    return b;
}

struct Results {
    int wx = 0, wy = 0, li = 0, tx = 0, ty = 0;
    float wv = 0, lv = 0, tv = 0;
    std::vector<int> ri;
    std::vector<float> rv;
};

Results run(Folds &f, Pipeline &p, const std::string &target, const Buffer<float> &img, const Buffer<float> &vec,
            int first, int count) {
    f.img.set(img);
    f.vec.set(vec);
    f.first.set(first);
    f.count.set(count);
    Buffer<int> wx = Buffer<int>::make_scalar(), wy = Buffer<int>::make_scalar(), li = Buffer<int>::make_scalar();
    Buffer<float> wv = Buffer<float>::make_scalar(), lv = Buffer<float>::make_scalar();
    Buffer<int> ri(img.height()), tx = Buffer<int>::make_scalar(), ty = Buffer<int>::make_scalar();
    Buffer<float> rv(img.height()), tv = Buffer<float>::make_scalar();
    p.realize({wx, wy, wv, li, lv, ri, rv, tx, ty, tv}, solder::make_target(target));
    for (Buffer<> b : std::vector<Buffer<>>{wx, wy, wv, li, lv, ri, rv, tx, ty, tv}) b.copy_to_host();
    Results r;
    r.wx = wx(), r.wy = wy(), r.wv = wv(), r.li = li(), r.lv = lv(), r.tx = tx(), r.ty = ty(), r.tv = tv();
    for (int i = 0; i < img.height(); i++) r.ri.push_back(ri(i)), r.rv.push_back(rv(i));
    return r;
}

TEST(OrderedFolds, ArgMaxAndArgMinFoldsCutIntoChunksGiveTheSerialFoldsResultOnEveryTarget) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE(target);
        Folds ours, ref;
        const std::string plan = schedule_with_solder(ours.outputs(), target);
        // (The inline argmax and argmin are Funcs of their own, named so, that the outputs read.)
        size_t cut = 0;
        for (size_t at = plan.find(": an arg-max or arg-min fold Halide cannot split"); at != std::string::npos;
             at = plan.find(": an arg-max or arg-min fold Halide cannot split", at + 1))
            cut++;
        EXPECT_EQ(cut, 4u) << plan;
        EXPECT_NE(plan.find(ours.low.name() + ": an arg-max or arg-min fold"), std::string::npos) << plan;
        // (No reason about them suggests the form Halide proves: they already run in parallel.)
        EXPECT_EQ(plan.find("Halide proves an arg-max written"), std::string::npos) << plan;
        Pipeline mine(ours.outputs()), theirs(ref.outputs());
        ASSERT_EQ(failure_of([&] { mine.compile_jit(solder::make_target(target)); }), "") << plan;
        theirs.compile_jit(get_host_target());
        // The estimates, sizes of no chunk's multiple, one row or one point, with and without
        // infinities; ranges from the start, from within, of one point.
        struct Case {
            int w, h, n, first, count;
            bool specials;
        };
        for (const Case &c : {Case{1500, 800, 100000, 7, 90000, false}, Case{1500, 800, 100000, 7, 90000, true},
                              Case{517, 263, 4099, 0, 4099, true}, Case{2049, 1, 300, 299, 1, false},
                              Case{1, 1, 1, 0, 1, true}, Case{3, 700, 70000, 1234, 60001, false}}) {
            SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + ", " + std::to_string(c.count) + " from " +
                         std::to_string(c.first) + (c.specials ? ", infinities" : ""));
            const Buffer<float> img = levels({c.w, c.h}, uint32_t(c.w * 31 + c.h), c.specials);
            const Buffer<float> vec = levels({c.n}, uint32_t(c.n), c.specials);
            const Results got = run(ours, mine, target, img, vec, c.first, c.count);
            const Results want = run(ref, theirs, "host", img, vec, c.first, c.count);
            EXPECT_EQ(got.wx, want.wx);
            EXPECT_EQ(got.wy, want.wy);
            EXPECT_EQ(got.wv, want.wv);
            EXPECT_EQ(got.li, want.li);
            EXPECT_EQ(got.lv, want.lv);
            EXPECT_EQ(got.tx, want.tx);
            EXPECT_EQ(got.ty, want.ty);
            EXPECT_EQ(got.tv, want.tv);
            for (int i = 0; i < c.h; i++) {
                ASSERT_EQ(got.ri[size_t(i)], want.ri[size_t(i)]) << "row " << i;
                ASSERT_EQ(got.rv[size_t(i)], want.rv[size_t(i)]) << "row " << i;
            }
        }
    }
}

// Lowered for CUDA: Halide accepts the chunks' schedule.
TEST(OrderedFolds, TheCutFoldsLowerForCuda) {
    Folds f;
    schedule_with_solder(f.outputs(), "cuda");
    EXPECT_EQ(failure_of([&] { lower_for_cuda(f.outputs(), "ordered_folds"); }), "");
}

// What is not such a fold stays as written: a non-strict comparison (>=: the last point of the
// extreme wins, which a chunk's untouched initial value could displace), a fold that reads
// another element of itself, and one of 1024 points or fewer.
TEST(OrderedFolds, OtherFoldsAreLeftAsTheyAre) {
    ImageParam in(Float(32), 1, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func last("last"), counted("counted"), small("small");
    last() = Tuple(0, -std::numeric_limits<float>::infinity());
    last() = Tuple(select(in(r) >= last()[1], r, last()[0]), select(in(r) >= last()[1], in(r), last()[1]));
    counted() = Tuple(0, -std::numeric_limits<float>::infinity());
    counted() = Tuple(select(in(r) > counted()[1], counted()[0] + 1, counted()[0]),
                      select(in(r) > counted()[1], in(r), counted()[1]));
    RDom few(0, 1000, "few");
    small() = argmax(in(few));
    in.set_estimates({{0, 100000}});
    const std::string plan = schedule_with_solder({last, counted, small}, "host");
    EXPECT_EQ(plan.find("an arg-max or arg-min fold"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("_chunks"), std::string::npos) << plan;
    EXPECT_NE(plan.find(last.name() + ": generic template: Halide cannot prove"), std::string::npos) << plan;
    EXPECT_NE(plan.find("Halide proves an arg-max written"), std::string::npos) << plan;
}

}  // namespace ordered_folds
