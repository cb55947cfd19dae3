// Thirty-fifth set: six histograms and scatters whose bins are counted when the pipeline runs, as
// users write them: a joint histogram of two images over a Param count of bins per axis; image
// equalization to a Param number of levels (histogram, cumulative scan over the levels, lookup);
// the largest value per label of a label image, into a Param count of labels; per-tile histograms
// of 64 x 64 tiles (the first step of CLAHE); a weighted histogram of orientations, its bin
// count an input's extent; and per-class sums of feature vectors, classes an input's extent.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), i("i"), j("j"), t("t"), u("u");

// A joint histogram of two 8-bit 2K images, each value range cut into `nb` bins (a Param, 32 at
// the estimate), as counts normalized to a joint probability.
P joint_hist_param() {
    ImageParam a(UInt(8), 2, "a"), bimg(UInt(8), 2, "bimg");
    Param<int> nb("nb");
    nb.set_estimate(32);
    RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "r");
    Expr ba = min(cast<int>(a(r.x, r.y)) * nb / 256, nb - 1);
    Expr bb = min(cast<int>(bimg(r.x, r.y)) * nb / 256, nb - 1);
    Func counts("counts"), joint("joint");
    counts(i, j) = 0;
    counts(ba, bb) += 1;
    joint(i, j) = cast<float>(counts(i, j)) / cast<float>(a.dim(0).extent() * a.dim(1).extent());
    a.set_estimates({{0, 2048}, {0, 2048}});
    bimg.set_estimates({{0, 2048}, {0, 2048}});
    joint.set_estimates({{0, 32}, {0, 32}});
    return {{joint}, {a, bimg, nb}};
}

// A 16-bit 4K image equalized to `levels` output levels (a Param, 1024 at the estimate): its
// histogram over that many bins, the cumulative counts by a scan over the levels, and each pixel
// looked up in them.
P equalize_levels() {
    ImageParam in(UInt(16), 2, "in");
    Param<int> levels("levels");
    levels.set_estimate(1024);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    // (In 64 bits: a 16-bit value times 65536 levels overflows 32.)
    Expr level = clamp(cast<int>(cast<int64_t>(in(r.x, r.y)) * levels / 65536), 0, levels - 1);
    Func hist("hist"), cdf("cdf"), out("out");
    hist(i) = 0;
    hist(level) += 1;
    RDom s(1, levels - 1, "s");
    cdf(i) = hist(0);
    cdf(s) = cdf(s - 1) + hist(s);
    Expr at = clamp(cast<int>(cast<int64_t>(in(x, y)) * levels / 65536), 0, levels - 1);
    Expr total = cast<float>(in.dim(0).extent() * in.dim(1).extent());
    out(x, y) = cast<uint16_t>(clamp(cast<float>(cdf(at)) / total * 65535.0f, 0.0f, 65535.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, levels}};
}

// The largest value under each label of a label image (labels clamped to `nlabels`, a Param, 256
// at the estimate): a scatter of max, the output one value per label.
P label_max() {
    ImageParam labels(Int(32), 2, "labels"), val(Float(32), 2, "val");
    Param<int> nlabels("nlabels");
    nlabels.set_estimate(256);
    RDom r(0, val.dim(0).extent(), 0, val.dim(1).extent(), "r");
    Func most("most");
    most(i) = -1e30f;
    Expr l = clamp(labels(r.x, r.y) % nlabels, 0, nlabels - 1);
    most(l) = max(most(l), val(r.x, r.y));
    labels.set_estimates({{0, 2048}, {0, 2048}});
    val.set_estimates({{0, 2048}, {0, 2048}});
    most.set_estimates({{0, 256}});
    return {{most}, {labels, val, nlabels}};
}

// Per-tile histograms of an 8-bit 4K image in 64 x 64 tiles, 64 bins each (CLAHE's first step),
// each clipped at a Param count and normalized to the tile's points.
P tile_hists() {
    ImageParam in(UInt(8), 2, "in");
    Param<int> clip("clip");
    clip.set_estimate(256);
    RDom p(0, 64, 0, 64, "p");
    Func th("th"), norm("norm");
    th(i, t, u) = 0;
    th(cast<int>(in(t * 64 + p.x, u * 64 + p.y)) / 4, t, u) += 1;
    norm(i, t, u) = cast<float>(min(th(i, t, u), clip)) / 4096.0f;
    in.set_estimates({{0, 3840}, {0, 2176}});
    norm.set_estimates({{0, 64}, {0, 60}, {0, 34}});
    return {{norm}, {in, clip}};
}

// A histogram of gradient orientations weighted by magnitude over a 2K f32 image (a HOG cell
// over the whole image), each bin then scaled by a gain: the bin count is the gains' extent (36
// at the estimate).
P orient_hist() {
    ImageParam in(Float(32), 2, "in"), gain(Float(32), 1, "gain");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func gx("gx"), gy("gy"), ohist("ohist"), binned("binned");
    gx(x, y) = cl(x + 1, y) - cl(x - 1, y);
    gy(x, y) = cl(x, y + 1) - cl(x, y - 1);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Expr nbins = gain.dim(0).extent();
    Expr ang = atan2(gy(r.x, r.y), gx(r.x, r.y)) + 3.14159265f;
    Expr k = clamp(cast<int>(ang / 6.2831853f * cast<float>(nbins)), 0, nbins - 1);
    ohist(i) = 0.0f;
    ohist(k) += sqrt(gx(r.x, r.y) * gx(r.x, r.y) + gy(r.x, r.y) * gy(r.x, r.y));
    binned(i) = ohist(i) * gain(i);
    in.set_estimates({{0, 1920}, {0, 1080}});
    gain.set_estimates({{0, 36}});
    binned.set_estimates({{0, 36}});
    return {{binned}, {in, gain}};
}

// Per-class sums and counts of 16-dim feature vectors (a million points), the class of each point
// an input (clamped to the class count: the centroid input's extent), then the means.
P class_means() {
    ImageParam feat(Float(32), 2, "feat"), cls(Int(32), 1, "cls"), cent(Float(32), 2, "cent");
    RDom r(0, feat.dim(1).extent(), "r");
    Expr k = clamp(cls(r) % cent.dim(1).extent(), 0, cent.dim(1).extent() - 1);
    Func sums("sums"), cnt("cnt"), means("means");
    sums(j, i) = 0.0f;
    sums(j, k) += feat(j, r);
    cnt(i) = 0;
    cnt(k) += 1;
    means(j, i) = select(cnt(i) > 0, sums(j, i) / cast<float>(cnt(i)), cent(j, i));
    feat.set_estimates({{0, 16}, {0, 1 << 20}});
    cls.set_estimates({{0, 1 << 20}});
    cent.set_estimates({{0, 16}, {0, 64}});
    means.set_estimates({{0, 16}, {0, 64}});
    return {{means}, {feat, cls, cent}};
}

}  // namespace

void add_pipelines_ai(Registry &r) {
    r.emplace("jointhistp", joint_hist_param);
    r.emplace("eqlevels", equalize_levels);
    r.emplace("labelmax", label_max);
    r.emplace("tilehist", tile_hists);
    r.emplace("orienthist", orient_hist);
    r.emplace("classmeans", class_means);
}

}  // namespace user_pipelines
