// Which Funcs are point scans (autosched/model/generic_reason.h): scans at each point of their two
// innermost pure dims, whose points a GPU computes per tile, apart from each other. A Func
// wrongly taken for one would be computed per tile while reading points of other tiles.
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
