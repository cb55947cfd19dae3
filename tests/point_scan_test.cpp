// Which Funcs are point scans (autosched/model/generic_reason.h): scans at each point of their two
// innermost pure dims, whose points a GPU computes per tile, apart from each other. A Func
// wrongly taken for one would be computed per tile while reading points of other tiles. And which
// scans may run their innermost RVar's steps at once, a step of the outer RVars at a time.
#include <gtest/gtest.h>

#include "Halide.h"
#include "autosched/model/generic_reason.h"

using namespace Halide;
using solder::autosched::point_scan;
using solder::autosched::point_scan_dims;

namespace {

struct Scans {
    ImageParam in{Float(32), 2, "scan_in"};
    Param<int> steps{"scan_steps"};
    Var x{"x"}, y{"y"}, t{"t"}, c{"c"};
    RDom r{1, steps, "r"};
};

}  // namespace

TEST(PointScans, AStepAtEachPixelIsOne) {
    Scans s;
    Func f("grow");
    f(s.x, s.y, s.t) = s.in(s.x, s.y);
    f(s.x, s.y, s.r) = max(f(s.x, s.y, s.r - 1), s.in(s.x, s.y + s.r));
    EXPECT_TRUE(point_scan(f.function()));
    EXPECT_EQ(point_scan_dims(f.function()), std::vector<int>{2});
}

TEST(PointScans, ScanDimsMayLieBetweenPureDimsAndStepsBeConstant) {
    Scans s;
    Func f("between");
    f(s.x, s.y, s.t, s.c) = s.in(s.x, s.y) * cast<float>(s.c);
    f(s.x, s.y, s.r, s.c) = f(s.x, s.y, s.r - 1, s.c) + 1.0f;
    f(s.x, s.y, 0, s.c) = f(s.x, s.y, 0, s.c) * 2.0f;
    EXPECT_TRUE(point_scan(f.function()));
    EXPECT_EQ(point_scan_dims(f.function()), std::vector<int>{2});
}

TEST(PointScans, ScansAlongTheTiledDimsAreNot) {
    Scans s;
    Func rows("rows"), cols("cols");
    rows(s.x, s.y) = s.in(s.x, s.y);
    rows(s.r, s.y) = rows(s.r - 1, s.y) + rows(s.r, s.y);  // along x: neighbouring points
    cols(s.x, s.y) = s.in(s.x, s.y);
    cols(s.x, s.r) = cols(s.x, s.r - 1) + cols(s.x, s.r);  // down y
    EXPECT_FALSE(point_scan(rows.function()));
    EXPECT_FALSE(point_scan(cols.function()));
}

TEST(PointScans, PureVarsOutOfPlaceAreNot) {
    Scans s;
    Func moved("moved"), plain("plain");
    moved(s.x, s.y, s.t) = s.in(s.x, s.y);
    moved(s.x, s.y, s.x + s.r) = 0.0f;  // a pure var in a step's place: a shift, not a scan
    plain(s.x, s.y) = s.in(s.x, s.y);
    EXPECT_FALSE(point_scan(moved.function()));
    EXPECT_FALSE(point_scan(plain.function()));  // no update at all
}

// Scans whose innermost RVar's steps may run at once, one step of the outer RVars at a time
// (innermost_rvar_parallel_per_step): the generic template then lays those steps over the threads.
TEST(RvarSteps, StepsThatReadOnlyTheOuterStepBeforeRunAtOnce) {
    Scans s;
    Func windows("windows");
    RDom w(0, s.in.dim(1).extent(), 1, 5, "w");
    windows(s.x, s.y, s.t) = s.in(s.x, s.y);
    // Each height's maxima from the height before, at this row and 2^(t - 1) rows down.
    windows(s.x, w.x, w.y) = max(windows(s.x, w.x, w.y - 1), windows(s.x, w.x + clamp(1 << (w.y - 1), 1, 16), w.y - 1));
    EXPECT_TRUE(solder::autosched::innermost_rvar_parallel_per_step(windows.function(), 0));
}

TEST(RvarSteps, StepsThatReadTheirOwnOuterStepDoNot) {
    Scans s;
    Func down("down"), one("one"), shifted("shifted");
    RDom w(1, s.in.dim(1).extent(), 0, 3, "w");
    down(s.x, s.y, s.t) = s.in(s.x, s.y);
    down(s.x, w.x, w.y) = down(s.x, w.x - 1, w.y) + 1.0f;  // a running sum down the rows
    EXPECT_FALSE(solder::autosched::innermost_rvar_parallel_per_step(down.function(), 0));
    // One RVar only: nothing outer to step.
    one(s.x, s.y) = s.in(s.x, s.y);
    one(s.x, s.r) = one(s.x, s.r - 1) * 0.5f;
    EXPECT_FALSE(solder::autosched::innermost_rvar_parallel_per_step(one.function(), 0));
    // Two steps of the innermost RVar write one point (w.x and w.x + 1 meet at w.x / 2).
    shifted(s.x, s.y, s.t) = s.in(s.x, s.y);
    shifted(s.x, w.x / 2, w.y + 1) = shifted(s.x, w.x, w.y) * 2.0f;
    EXPECT_FALSE(solder::autosched::innermost_rvar_parallel_per_step(shifted.function(), 0));
}
