#include "schedules/generic.h"

#include "autosched/generic_reason.h"
#include "schedules/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace {

constexpr int kTileX = 32, kTileY = 8, kThreads1D = 256;
constexpr int kHostChunk = 1024, kHostVector = 8;

void pure_loops(ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> pure, const Target &target,
                const std::string &tag) {
    pure = fold_into_three(w, s, pure, tag);
    if (is_gpu_target(target)) {
        if (pure.size() >= 2) {
            Var bx(tag + "_bx"), by(tag + "_by"), tx(tag + "_tx"), ty(tag + "_ty");
            w.gpu_tile(s, pure[0], pure[1], bx, by, tx, ty, kTileX, kTileY, TailStrategy::GuardWithIf);
            if (pure.size() == 3) w.gpu_blocks(s, pure[2]);
        } else {
            Var bx(tag + "_bx"), tx(tag + "_tx");
            w.gpu_tile(s, pure[0], bx, tx, kThreads1D, TailStrategy::GuardWithIf);
        }
        return;
    }
    if (pure.size() >= 2) {
        w.parallel(s, pure.back());
        if (s.update < 0) w.vectorize(s, pure[0], kHostVector, TailStrategy::GuardWithIf);
        return;
    }
    Var xo(tag + "_xo"), xi(tag + "_xi");
    w.split(s, pure[0], xo, xi, kHostChunk, TailStrategy::GuardWithIf);
    w.parallel(s, xo);
    if (s.update < 0) w.vectorize(s, xi, kHostVector, TailStrategy::GuardWithIf);
}

// An update that writes no pure var as it is: its RDom's points at once, atomically, where legal.
void reduction_loops(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, const Target &target,
                     const std::string &tag) {
    if (!is_gpu_target(target)) {  // serial on the host
        w.unscheduled(s);
        return;
    }
    if (!autosched::atomic_update(fn, s.update, target)) {
        w.gpu_single_thread(s);
        return;
    }
    w.atomic(s);
    const auto &rvars = fn.update(s.update).schedule().rvars();
    VarOrRVar all = RVar(rvars[0].var);
    for (size_t i = 1; i < rvars.size(); i++) {
        RVar next(tag + "_r" + std::to_string(i));
        w.fuse(s, all, RVar(rvars[i].var), next);
        all = next;
    }
    RVar ro(tag + "_ro"), ri(tag + "_ri");
    w.split(s, all, ro, ri, kThreads1D, TailStrategy::GuardWithIf);
    w.gpu_blocks(s, ro);
    w.gpu_threads(s, ri);
}

}  // namespace

void schedule_generic_kernel(ScheduleWriter &w, Func f, const Target &target) {
    w.compute_root(f);
    const Internal::Function fn = f.function();
    if (fn.has_extern_definition()) return;
    const std::string name = f.name();
    for (int stage = 0; stage <= int(fn.updates().size()); stage++) {
        const StageRef s{f, stage - 1};
        const std::string tag = name + "_g" + std::to_string(stage);
        std::vector<VarOrRVar> pure = stage_pure_vars(fn, stage);
        if (!pure.empty()) pure_loops(w, s, pure, target, tag);
        else if (stage > 0) reduction_loops(w, s, fn, target, tag);
        else if (is_gpu_target(target)) w.gpu_single_thread(s);  // a scalar Func's pure definition
    }
}

}  // namespace solder
