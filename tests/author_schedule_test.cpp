// Pipelines whose author scheduled some Funcs before auto-scheduling (`a.compute_at(out, y)`,
// `out.tile(...)`, `b.compute_root().vectorize(x, 8)`): Solder clears those directives, keeps each
// compute_root() as a stored Func and says so in the plan. Before, a compute_at into a Func Solder
// retiled failed Halide's "invalid location" check on CUDA, a split stopped the writer ("could not
// find split dimension"), and a compute_root() Func without GPU loops ran on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "autosched/author_schedule.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;
using solder::autosched::AuthorSchedule;
using solder::autosched::clear_author_schedules;

namespace author_schedule {

// One pipeline of every kind of stage a directive can sit on: a pure Func, updates over an RDom
// (one whose RVar Halide calls pure, one a scan), a histogram and a specialized Func.
struct Stages {
    ImageParam in{Float(32), 2, "in"};
    Param<int> gain{"gain"};
    Var x{"x"}, y{"y"};
    RDom r{0, 8, 0, 4, "r"}, k{0, 8, "k"}, q{1, 3, "q"};
    Func a{"a"}, rows{"rows"}, hist{"hist"}, spec{"spec"}, out{"out"};
    Stages() {
        a(x, y) = in(x, y) * 2.f;
        rows(x, y) = 0.f;
        rows(k, y) += a(k, y);
        rows(x, q) = rows(x, q - 1) + rows(x, q);
        hist(x) = 0;
        hist(clamp(cast<int>(in(r.x, r.y)), 0, 7)) += 1;
        spec(x, y) = a(x, y) * cast<float>(gain);
        out(x, y) = spec(x, y) + rows(x % 8, y % 4) + cast<float>(hist(x % 8));
        out.bound(x, 0, 64).set_estimates({{0, 64}, {0, 32}});
        in.set_estimates({{0, 64}, {0, 32}});
        gain.set_estimate(2);
    }
    std::vector<Func> funcs() { return {a, rows, hist, spec, out}; }
};

std::string dims_text(const Internal::StageSchedule &s) {
    std::string t;
    for (auto &d : s.dims())
        t += d.var + "/" + std::to_string(int(d.for_type)) + "/" + std::to_string(int(d.dim_type)) + "/" +
             std::to_string(int(d.device_api)) + " ";
    return t + "| " + std::to_string(s.splits().size()) + " splits";
}

std::string schedule_text(const Func &f) {
    const Internal::Function fn = f.function();
    std::string t;
    for (auto &sd : fn.schedule().storage_dims())
        t += sd.var + (sd.alignment.defined() || sd.fold_factor.defined() ? "*" : "") + " ";
    t += std::string(fn.schedule().memoized() ? "memoized " : "") + (fn.schedule().async() ? "async " : "");
    t += "\n  " + dims_text(fn.definition().schedule());
    for (auto &sp : fn.definition().specializations()) t += "\n  specialized: " + dims_text(sp.definition.schedule());
    for (auto &u : fn.updates())
        t += "\n  update: " + dims_text(u.schedule()) + (u.schedule().atomic() ? " atomic" : "");
    return t;
}

TEST(AuthorSchedules, ClearedStagesAreThoseOfFreshlyDefinedFuncs) {
    Stages fresh, scheduled;
    fresh.spec.specialize(fresh.gain == 1);
    Stages &s = scheduled;
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), t("t");
    RVar rxo("rxo"), rxi("rxi"), qo("qo"), qi("qi");
    ASSERT_EQ(failure_of([&] {
                  s.a.compute_at(s.out, s.y).store_root().vectorize(s.x, 4).reorder_storage(s.y, s.x).memoize();
                  s.rows.compute_root().align_storage(s.x, 8).tile(s.x, s.y, xo, yo, xi, yi, 4, 4).parallel(yo);
                  s.rows.update(0).split(s.k, rxo, rxi, 4).unroll(rxi).reorder(s.y, rxo).parallel(s.y);
                  s.rows.update(1).split(s.q, qo, qi, 2).reorder(s.x, qi);
                  s.hist.compute_root().async();
                  s.hist.update(0).atomic().parallel(s.r.y);
                  s.spec.specialize(s.gain == 1).vectorize(s.x, 8);
                  s.spec.fuse(s.x, s.y, t);
                  s.a.compute_with(s.rows, s.y);
                  s.out.gpu_tile(s.x, s.y, xo, yo, xi, yi, 16, 8);
              }),
              "");

    const std::vector<AuthorSchedule> cleared = clear_author_schedules({s.out});
    std::map<std::string, std::vector<std::string>> said;
    for (auto &c : cleared) said[c.func] = c.directives;
    const auto has = [&](const Func &f, const std::string &d) {
        const auto &v = said[f.name()];
        return std::find(v.begin(), v.end(), d) != v.end();
    };
    EXPECT_TRUE(has(s.a, "compute_at(" + s.out.name() + ", y)"));
    EXPECT_TRUE(has(s.a, "store_root()"));
    EXPECT_TRUE(has(s.a, "memoize"));
    EXPECT_TRUE(has(s.a, "vectorize"));
    EXPECT_TRUE(has(s.rows, "compute_root()"));
    EXPECT_TRUE(has(s.rows, "parallel"));
    EXPECT_TRUE(has(s.rows, "update(0).unroll"));
    EXPECT_TRUE(has(s.rows, "update(1).split"));
    EXPECT_TRUE(has(s.hist, "async"));
    EXPECT_TRUE(has(s.hist, "update(0).atomic"));
    EXPECT_TRUE(has(s.spec, "vectorize"));  // (the specialization's)
    EXPECT_TRUE(has(s.spec, "split"));      // (the fuse)
    EXPECT_TRUE(has(s.a, "compute_with"));
    EXPECT_TRUE(has(s.out, "gpu_blocks"));
    for (auto &c : cleared) EXPECT_EQ(c.computed_at_root, c.func == s.rows.name() || c.func == s.hist.name()) << c.func;

    // What is left is the schedule of the same Funcs never scheduled, the RVars' purity included,
    // and the author's bound on the output stays.
    const std::vector<Func> f = fresh.funcs(), g = scheduled.funcs();
    for (size_t i = 0; i < f.size(); i++) EXPECT_EQ(schedule_text(g[i]), schedule_text(f[i])) << f[i].name();
    EXPECT_EQ(s.out.function().schedule().bounds().size(), 1u);
    EXPECT_TRUE(clear_author_schedules({s.out}).empty());
}

// The reference: the row sums of a's first 8 x 4 points summed down their rows, the histogram of
// in's values there, and out.
std::vector<float> reference(const Buffer<float> &in, int w, int h, int gain) {
    float rows[4][8];
    int hist[8] = {0};
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) {
            rows[y][x] = 2.f * in(x, y) + (y > 0 ? rows[y - 1][x] : 0.f);
            hist[std::min(7, std::max(0, int(in(x, y))))]++;
        }
    std::vector<float> out(size_t(w) * size_t(h));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out[size_t(y) * size_t(w) + size_t(x)] =
                2.f * in(x, y) * float(gain) + rows[y % 4][x % 8] + float(hist[x % 8]);
    return out;
}

TEST(AuthorSchedules, APipelineItsAuthorScheduledRunsCorrectlyOnEveryTarget) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        Stages s;
        Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
        s.a.compute_at(s.out, s.y).vectorize(s.x, 4);
        s.rows.compute_root().split(s.x, xo, xi, 4);
        s.hist.compute_root();
        s.spec.compute_root();  // (a pointwise Func the plan would otherwise inline)
        s.hist.update(0).atomic().parallel(s.r.y);
        s.out.tile(s.x, s.y, xo, yo, xi, yi, 16, 8).parallel(yo);
        const std::string plan = schedule_with_solder({s.out}, target);
        EXPECT_NE(plan.find(s.a.name() + ": scheduled before auto-scheduling (compute_at(" + s.out.name() +
                            ", y), split, vectorize): replaced by the plan"),
                  std::string::npos)
            << plan;
        EXPECT_NE(plan.find(s.rows.name() + ": scheduled before auto-scheduling (compute_root(), split): kept stored"),
                  std::string::npos)
            << plan;
        // The author's roots are roots of the plan (on a GPU: kernels of their own).
        for (const Func &f : {s.rows, s.hist, s.spec})
            EXPECT_NE(plan.find(" writes " + f.name() + ": "), std::string::npos) << f.name() << "\n" << plan;
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({s.out}, "author_scheduled"));
            // Scheduled again, for the host: the CUDA schedule is cleared in turn, and it runs.
            schedule_with_solder({s.out}, "host");
        }
        Pipeline p(s.out);
        p.compile_jit(solder::make_target(target == "cuda" ? "host" : target));
        for (int h : {32, 29, 1}) {
            SCOPED_TRACE("height " + std::to_string(h));
            Buffer<float> in = random_buffer<float>({64, std::max(h, 4)}, uint32_t(h), 0, 9);
            s.in.set(in);
            s.gain.set(h % 3);
            Buffer<float> got = p.realize({64, h}, solder::make_target(target == "cuda" ? "host" : target));
            got.copy_to_host();
            const std::vector<float> want = reference(in, 64, h, h % 3);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < 64; x++)
                    ASSERT_NEAR(got(x, y), want[size_t(y) * 64 + size_t(x)], 1e-3f) << x << ", " << y;
        }
    }
}

}  // namespace author_schedule
