#include "schedules/fused_templates.h"

#include "schedules/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace {

std::vector<Var> pure_vars(const Func &f) {
    std::vector<Var> v;
    for (auto &a : f.function().args()) v.emplace_back(a);
    return v;
}

// Marks dims as GPU blocks: up to three; extra outer dims are fused into the third.
void blocks_over(Func f, const std::vector<VarOrRVar> &dims, const std::string &tag) {
    for (auto &d : fold_into_three(f, dims, tag)) f.gpu_blocks(d);
}

// A Func computed once per block: its pure dims spread over threads when it has any. A reduction
// with one RVar is split across the block's threads first (rfactor): 256 partial results, each
// thread striding over the row (coalesced), then one short serial pass over the partials.
void block_level(Func f, Func root, const Var &at, const Target &t) {
    f.compute_at(root, at);
    if (!is_gpu_target(t)) return;
    auto fn = f.function();
    auto thread_stage = [&](Stage st, const std::vector<VarOrRVar> &pure) {
        if (pure.empty()) st.gpu_single_thread();
        else st.gpu_threads(pure[0]);
    };
    thread_stage(f, stage_pure_vars(fn, 0));
    for (int u = 0; u < int(fn.updates().size()); u++) {
        const auto &rvars = fn.update(u).schedule().rvars();
        if (u == 0 && fn.updates().size() == 1 && rvars.size() == 1) {
            RVar r(rvars[0].var), ro(f.name() + "_ro"), ri(f.name() + "_ri");
            Var lane(f.name() + "_lane");
            Func partial = f.update(0).split(r, ro, ri, 256, TailStrategy::GuardWithIf).rfactor(ri, lane);
            partial.compute_at(root, at).gpu_threads(lane);
            partial.update(0).gpu_threads(lane);
        }
        thread_stage(f.update(u), stage_pure_vars(fn, u + 1));
    }
}

}  // namespace

void schedule_row_kernel(Func root, int inner_dims, const std::vector<Func> &at_block, const Target &target) {
    root.compute_root();
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    Var xo(tag + "_xo"), xi(tag + "_xi");
    int rank = int(v.size());
    inner_dims = std::max(1, std::min(inner_dims, rank));
    if (is_gpu_target(target)) {
        root.split(v[0], xo, xi, 256, TailStrategy::GuardWithIf);
        root.gpu_threads(xi);
        std::vector<VarOrRVar> blocks;
        for (int d = inner_dims; d < rank; d++) blocks.push_back(v[d]);
        Var at = xo;
        if (blocks.empty()) {
            root.gpu_blocks(xo);  // a small root owned by one block per 256-wide strip
        } else {
            at = v[inner_dims];
            blocks_over(root, blocks, tag);
        }
        for (Func f : at_block) block_level(f, root, at, target);
    } else {
        if (rank > inner_dims) root.parallel(v[rank - 1]);
        root.vectorize(v[0], 8, TailStrategy::GuardWithIf);
        Var at = rank > inner_dims ? v[inner_dims] : Var::outermost();
        for (Func f : at_block) f.compute_at(root, at);
    }
}

void schedule_stencil_kernel(Func root, const std::vector<Func> &at_tile, const Target &target) {
    root.compute_root();
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    Var xo(tag + "_xo"), yo(tag + "_yo"), xi(tag + "_xi"), yi(tag + "_yi");
    if (is_gpu_target(target)) {
        root.gpu_tile(v[0], v[1], xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        std::vector<VarOrRVar> outer;
        for (size_t d = 2; d < v.size(); d++) outer.push_back(v[d]);
        if (!outer.empty()) blocks_over(root, outer, tag + "_o");
        for (Func f : at_tile) {
            f.compute_at(root, xo);
            std::vector<Var> fv = pure_vars(f);
            if (fv.size() >= 2) f.gpu_threads(fv[0], fv[1]);
            else if (fv.size() == 1) f.gpu_threads(fv[0]);
            else f.gpu_single_thread();
        }
    } else {
        root.tile(v[0], v[1], xo, yo, xi, yi, 64, 16, TailStrategy::GuardWithIf).parallel(yo).vectorize(xi, 8);
        for (Func f : at_tile) {
            f.compute_at(root, xo);
            std::vector<Var> fv = pure_vars(f);
            if (!fv.empty()) f.vectorize(fv[0], 8, TailStrategy::GuardWithIf);
        }
    }
}

void schedule_horizontal_1d(const std::vector<Func> &roots, const Target &target) {
    Var bx("h_bx"), tx("h_tx");
    for (size_t i = 0; i < roots.size(); i++) {
        Func f = roots[i];
        Var x(f.function().args()[0]);
        f.compute_root();
        if (is_gpu_target(target)) f.gpu_tile(x, bx, tx, 256, TailStrategy::GuardWithIf);
        else f.split(x, bx, tx, 1024, TailStrategy::GuardWithIf).parallel(bx).vectorize(tx, 8);
        if (i > 0) f.compute_with(roots[0], bx);
    }
}

}  // namespace solder
