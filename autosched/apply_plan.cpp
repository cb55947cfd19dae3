#include "autosched/apply_plan.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/horizontal/horizontal.h"
#include "schedules/registry.h"
#include "schedules/split_k/split_k.h"
#include "schedules/split_k/split_k_schedule.h"
#include "schedules/writer/schedule_writer.h"

namespace solder::autosched {
using namespace Halide;

namespace {

// Whether `pred` holds for a Func of `names` or one inlined into those (transitively; inputs'
// names have no Func and are skipped).
bool any_inlined_closure(const std::vector<std::string> &names, const Plan &plan,
                         const std::function<Func(const std::string &)> &get,
                         const std::function<bool(const Internal::Function &)> &pred) {
    std::set<std::string> inlined, seen;
    for (auto &p : plan.funcs)
        if (p.placement == Placement::Inline) inlined.insert(p.func);
    std::vector<std::string> todo = names;
    while (!todo.empty()) {
        std::string name = todo.back();
        todo.pop_back();
        if (!seen.insert(name).second) continue;
        Func f;
        try {
            f = get(name);
        } catch (const std::exception &) {
            continue;  // an input's name: nothing computed
        }
        if (pred(f.function())) return true;
        for (auto &[callee, fn] : Internal::find_direct_calls(f.function()))
            if (inlined.count(callee)) todo.push_back(callee);
    }
    return false;
}

// Whether kernel `k` computes in floats of `bits` bits: a Func computed in it, or one inlined into
// those, holds one anywhere in its definitions. OpenCL kernels cannot hold float64 without the
// target's cl_doubles, nor float16 without its cl_half.
bool kernel_uses_float(const KernelPlan &k, const Plan &plan, const std::function<Func(const std::string &)> &get,
                       int bits) {
    return any_inlined_closure(k.funcs, plan, get, [bits](const Internal::Function &f) {
        return has_value_of_type(f, [bits](const Type &t) { return t.is_float() && t.bits() == bits; });
    });
}

// The pipeline's Funcs by name, and its inputs by the plan's name for them (the Funcs ImageParams
// are called through).
std::map<std::string, Func> funcs_by_name(const std::vector<Func> &outputs) {
    std::map<std::string, Func> funcs;
    for (auto &fn : pipeline_functions(outputs)) funcs.emplace(fn.name(), Func(fn));
    for (auto &[name, fn] : Internal::build_environment([&] {
             std::vector<Internal::Function> o;
             for (auto &f : outputs) o.push_back(f.function());
             return o;
         }()))
        if (is_input_wrapper(fn)) {
            const auto *c = fn.definition().values()[0].as<Internal::Call>();
            funcs.emplace(c->param.name(), Func(fn));
        }
    return funcs;
}

// The Funcs of `funcs` by name (funcs_by_name), throwing where the plan names one the pipeline
// lacks. `funcs` must outlive the lookup.
std::function<Func(const std::string &)> func_lookup(const std::map<std::string, Func> &funcs) {
    return [&funcs](const std::string &name) {
        auto it = funcs.find(name);
        if (it == funcs.end()) throw std::runtime_error("the plan names Func '" + name + "', which the pipeline lacks");
        return it->second;
    };
}

// Whether kernel `k` counts bits (counts_bits) in a Func computed in it or inlined into those.
bool kernel_counts_bits(const KernelPlan &k, const Plan &plan, const std::function<Func(const std::string &)> &get) {
    return any_inlined_closure(k.funcs, plan, get, counts_bits);
}

// Whether kernel `k` calls what only the host compiles (calls_host_only: a require(), a print()) in
// a Func computed in it or inlined into those.
bool kernel_calls_host_only(const KernelPlan &k, const Plan &plan,
                            const std::function<Func(const std::string &)> &get) {
    return any_inlined_closure(k.funcs, plan, get, calls_host_only);
}

// Whether kernel `k` launches with others (horizontal fusion, split-K partials launched together),
// which apply_plan cannot run on the host.
bool launched_with_others(const KernelPlan &k) {
    return !k.with.empty() || (k.split && (!k.split->group.empty() || !k.split->launched_with.empty()));
}

// The kernels that must run on the host, each with why; with `launched_together`, only those
// launched with others (launched_with_others), else only the others.
std::vector<std::pair<std::string, std::string>> hosted_kernels(const Plan &plan, const Target &target,
                                                                const std::function<Func(const std::string &)> &get,
                                                                bool launched_together = false) {
    std::vector<std::pair<std::string, std::string>> hosted;
    if (!is_gpu_target(target)) return hosted;
    const bool opencl = target.has_feature(Target::OpenCL);
    for (auto &k : plan.kernels) {
        if (launched_with_others(k) != launched_together) continue;
        if (kernel_calls_host_only(k, plan, get))
            hosted.push_back({k.name, kOnHostRequireReason});
        else if (!opencl)
            continue;
        else if (!target.has_feature(Target::CLDoubles) && kernel_uses_float(k, plan, get, 64))
            hosted.push_back({k.name, kOnHostReason});
        else if (!target.has_feature(Target::CLHalf) && kernel_uses_float(k, plan, get, 16))
            hosted.push_back({k.name, kOnHostF16Reason});
        else if (kernel_counts_bits(k, plan, get))
            hosted.push_back({k.name, kOnHostBitCountReason});
    }
    return hosted;
}

}  // namespace

const char *const kNoF16VectorsReason =
    "converts to float16, which Halide 21's CUDA backend gets wrong in vectors: not vectorized";
const char *const kNoNarrowShuffleVectorsReason =
    "loads 8- or 16-bit values at shuffled points (x / k, x % k, a reversal), on which in vectors LLVM's code "
    "generator for Halide 21's CUDA backend fails an assertion (8-bit) or runs for many minutes (16-bit): not "
    "vectorized";
// (The writer checks the values a root computes and stores; this, what it and the Funcs inlined into
// it load.)
const char *const kNo64BitGuardedVectorsReason =
    "loads 64-bit values in a kernel whose tails are guarded (sizes known at run time): Halide 21's CUDA backend "
    "fails an LLVM assertion on a guarded vector load of them: not vectorized";
const char *const kOnHostReason =
    "computes in float64, which OpenCL kernels cannot without the target feature cl_doubles: it runs on the host";
const char *const kOnHostF16Reason =
    "computes in float16, which OpenCL kernels cannot without the target feature cl_half: it runs on the host";
const char *const kOnHostRequireReason =
    "calls what Halide 21 compiles on the host only (a require(), a print() or another extern C function): it "
    "runs on the host";
const char *const kOnHostBitCountReason =
    "counts bits (popcount, count_leading_zeros or count_trailing_zeros), which Halide 21's OpenCL C backend "
    "calls undefined helpers for: it runs on the host";

std::vector<std::pair<std::string, std::string>> kernels_on_host(const Plan &plan, const std::vector<Func> &outputs,
                                                                 const Target &target) {
    const auto funcs = funcs_by_name(outputs);
    return hosted_kernels(plan, target, func_lookup(funcs));
}

std::vector<std::string> launches_needing_host(const Plan &plan, const std::vector<Func> &outputs,
                                               const Target &target) {
    const auto funcs = funcs_by_name(outputs);
    std::vector<std::string> out;
    for (auto &[k, why] : hosted_kernels(plan, target, func_lookup(funcs), true)) out.push_back(k);
    return out;
}

std::vector<std::pair<std::string, std::string>>
funcs_without_vectors(const Plan &plan, const std::vector<Func> &outputs, const Target &target) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!target.has_feature(Target::CUDA)) return out;
    const auto funcs = funcs_by_name(outputs);
    const auto get = func_lookup(funcs);
    for (auto &p : plan.funcs) {
        if (p.placement == Placement::Inline) continue;
        if (any_inlined_closure({p.func}, plan, get, converts_to_f16))
            out.push_back({p.func, kNoF16VectorsReason});
        else if (any_inlined_closure({p.func}, plan, get, loads_narrow_shuffled))
            out.push_back({p.func, kNoNarrowShuffleVectorsReason});
        else if (!plan.fixed_sizes && any_inlined_closure({p.func}, plan, get, loads_64_bit_vectors))
            out.push_back({p.func, kNo64BitGuardedVectorsReason});
    }
    // A side output's readers in its kernel read a copy of it, inlined: where it is left
    // unvectorized, so is every Func its kernel computes (random seed 172 of the narrow types, a
    // preview whose side output upsampled an 8-bit stage, aborted LLVM so).
    for (auto &k : plan.kernels) {
        const std::string *why = nullptr;
        for (auto &so : k.side)
            for (auto &[f, reason] : out)
                if (f == so.func) why = &reason;
        if (!why) continue;
        const std::string reason = *why;
        for (auto &f : k.funcs)
            if (std::none_of(out.begin(), out.end(), [&](auto &o) { return o.first == f; })) out.push_back({f, reason});
    }
    return out;
}

std::string apply_plan(const Plan &plan, const std::vector<Func> &outputs, const Target &target) {
    ScheduleWriter w(outputs);
    // Vectors with guarded tails are masked: CUDA and the host emit them, Halide 21's OpenCL C
    // backend does not (those loops stay serial in each thread). On CUDA, not of 64-bit lanes, and
    // each vectorized output gets a branch for aligned buffers.
    if (!plan.fixed_sizes) {
        const bool cuda = target.has_feature(Target::CUDA);
        w.guard_every_tail({!is_gpu_target(target) || cuda, !cuda, cuda});
    }
    std::map<std::string, Func> funcs = funcs_by_name(outputs);
    ApplyContext c{w, target, plan, func_lookup(funcs), {}, {}};
    // Kernels Halide cannot compile for the GPU run on the host instead (hosted_kernels: float64 on
    // OpenCL without cl_doubles, a require() or print() anywhere); the schedule source says which.
    const Target host = target.without_feature(Target::OpenCL).without_feature(Target::CUDA);
    ApplyContext on_host{c.w, host, plan, c.get, {}, {}};
    std::set<std::string> hosted;
    for (auto &[name, why] : hosted_kernels(plan, target, c.get)) {
        hosted.insert(name);
        w.note(name + " " + why);
    }
    std::set<std::string> unvectorized;
    for (auto &[name, why] : funcs_without_vectors(plan, outputs, target)) {
        unvectorized.insert(name);
        w.note(name + " " + why);
    }
    w.refuse_vectors(unvectorized);
    auto ctx = [&](const KernelPlan &k) -> ApplyContext & { return hosted.count(k.name) ? on_host : c; };
    // Reductions split-K sums in partials (also when launched horizontally with others).
    for (auto &k : plan.kernels)
        if (k.split) {
            c.split.insert(k.split->func);
            c.split.insert(k.split->group.begin(), k.split->group.end());
        } else if (auto *io = k.get<InnerOuterParams>()) {
            c.split.insert(io->column_sums.begin(), io->column_sums.end());
        }
    on_host.split = c.split;
    // First the rewrites (rfactor) of split reductions and column sums, which the kernels' templates
    // then place.
    // Each kernel's grid as the plan maps it (Plan::grid_map), its split-K partials' launches too.
    for (auto &k : plan.kernels) {
        w.set_grid_map(plan.grid_map(k));
        kernel_template(k.kind()).prepare(ctx(k), k);
        prepare_split_k(ctx(k), k);
    }
    // Split reductions that are kernel roots add their partials unrolled (horizontal kernels' roots:
    // the horizontal launches, which may spread the sum over lanes).
    for (auto &k : plan.kernels) {
        if (!is_gpu_target(target)) break;
        if (k.with.empty() && c.split.count(k.root) && !hosted.count(k.name)) unroll_partials_sum(w, c.get(k.root));
    }
    // Extern stages run at root, between the kernels (their own code, on the host).
    for (auto &[name, f] : funcs)
        if (f.function().has_extern_definition()) w.compute_root(f);
    for (auto &k : plan.kernels) {
        w.set_grid_map(plan.grid_map(k));
        if (!k.with.empty())
            apply_horizontal(c, k);
        else
            kernel_template(k.kind()).apply(ctx(k), k);
    }
    w.set_grid_map(GridMap::Three);
    // On the host, no loop partitioning in a kernel that computes Funcs inside its root: Halide 21
    // partitions the root's x loop where an inlined boundary condition leaves its steady state, and
    // in one such prologue it simplified mirror_image's column x + 1 to column 0 (a window read
    // through mirror_image at (x - 1, y), (x, y) and (x + 1, y - 1): wrong at x = 0 on every row
    // but the first and last few; random user seeds 92651 and 92749). GPU kernels' thread loops are
    // not partitioned.
    for (auto &k : plan.kernels) {
        if ((is_gpu_target(target) && !hosted.count(k.name)) || k.funcs.size() < 2) continue;
        std::vector<std::string> roots{k.root};
        roots.insert(roots.end(), k.with.begin(), k.with.end());
        for (auto &r : roots) {
            Func f = c.get(r);
            for (int u = -1; u < int(f.function().updates().size()); u++) w.never_partition_all({f, u});
        }
    }
    w.finish();
    return w.source("Solder plan" + (plan.app.empty() ? std::string() : " for " + plan.app) + ": " +
                    std::to_string(plan.kernels.size()) + (plan.kernels.size() == 1 ? " kernel, " : " kernels, ") +
                    std::to_string(plan.total_bytes) + " bytes moved (min " + std::to_string(plan.min_bytes) + ")");
}

}  // namespace solder::autosched
