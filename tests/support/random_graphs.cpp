#include "tests/support/random_graphs.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>

#include "apps/ref_util.h"
#include "autosched/apply_plan.h"
#include "autosched/planner.h"
#include "runtime/aot_compiler.h"
#include "runtime/halide_error.h"
#include "runtime/pipeline_library.h"
#include "runtime/targets.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/unfused/unfused.h"

namespace solder::testing {
using namespace solder::lang;

namespace {

std::vector<int64_t> unflatten(const Shape &s, int64_t i) {
    std::vector<int64_t> idx(s.size());
    for (int d = int(s.size()) - 1; d >= 0; d--) idx[d] = i % s[d], i /= s[d];
    return idx;
}
int64_t flatten(const Shape &s, const std::vector<int64_t> &idx) {
    int64_t f = 0;
    for (size_t d = 0; d < s.size(); d++) f = f * s[d] + idx[d];
    return f;
}

NdArray eager_unary(const NdArray &a, const std::function<double(double)> &f) {
    NdArray o{a.shape, a.v};
    for (auto &x : o.v) x = f(x);
    return o;
}

NdArray eager_binary(const NdArray &a, const NdArray &b, const Shape &out,
                     const std::function<double(double, double)> &f) {
    NdArray o{out, std::vector<double>(size_t(shape_numel(out)))};
    for (int64_t i = 0; i < int64_t(o.v.size()); i++) {
        auto idx = unflatten(out, i);
        auto pick = [&](const NdArray &t) {
            std::vector<int64_t> j;
            size_t off = out.size() - t.shape.size();
            for (size_t d = 0; d < t.shape.size(); d++) j.push_back(t.shape[d] == 1 ? 0 : idx[d + off]);
            return t.v[size_t(flatten(t.shape, j))];
        };
        o.v[size_t(i)] = f(pick(a), pick(b));
    }
    return o;
}

NdArray eager_reduce(const NdArray &a, int ax, bool keepdim, int kind /*0 sum,1 max,2 mean*/) {
    Shape ks = a.shape;
    ks[ax] = 1;
    NdArray o{ks, std::vector<double>(size_t(shape_numel(ks)), kind == 1 ? -INFINITY : 0.0)};
    for (int64_t i = 0; i < int64_t(a.v.size()); i++) {
        auto idx = unflatten(a.shape, i);
        idx[ax] = 0;
        double &r = o.v[size_t(flatten(ks, idx))];
        r = kind == 1 ? std::max(r, a.v[size_t(i)]) : r + a.v[size_t(i)];
    }
    if (kind == 2)
        for (auto &x : o.v) x /= double(a.shape[ax]);
    if (!keepdim) o.shape.erase(o.shape.begin() + ax);
    return o;
}

NdArray eager_slice(const NdArray &a, int ax, int64_t start, int64_t stop) {
    Shape s = a.shape;
    s[ax] = stop - start;
    NdArray o{s, std::vector<double>(size_t(shape_numel(s)))};
    for (int64_t i = 0; i < int64_t(o.v.size()); i++) {
        auto idx = unflatten(s, i);
        idx[ax] += start;
        o.v[size_t(i)] = a.v[size_t(flatten(a.shape, idx))];
    }
    return o;
}

bool broadcastable(const Shape &a, const Shape &b) {
    size_t r = std::max(a.size(), b.size());
    for (size_t i = 0; i < r; i++) {
        int64_t ea = i < r - a.size() ? 1 : a[i - (r - a.size())];
        int64_t eb = i < r - b.size() ? 1 : b[i - (r - b.size())];
        if (ea != eb && ea != 1 && eb != 1) return false;
    }
    return true;
}
Shape bshape(const Shape &a, const Shape &b) {
    size_t r = std::max(a.size(), b.size());
    Shape o(r);
    for (size_t i = 0; i < r; i++) {
        int64_t ea = i < r - a.size() ? 1 : a[i - (r - a.size())];
        int64_t eb = i < r - b.size() ? 1 : b[i - (r - b.size())];
        o[i] = std::max(ea, eb);
    }
    return o;
}

struct Val {
    Tensor t;
    NdArray a;
};

}  // namespace

RandomGraph make_random_graph(Graph &g, uint64_t seed) {
    Rng r(seed * 7919 + 13);
    RandomGraph rg;
    rg.seed = seed;
    std::ostringstream ops;
    std::vector<Val> pool;
    std::string pre = "g" + std::to_string(seed) + "_";
    int ninputs = 1 + int(r.integer(0, 2));
    Shape base;
    for (int d = 0, rank = 1 + int(r.integer(0, 3)); d < rank; d++) base.push_back(r.integer(2, 10));
    for (int i = 0; i < ninputs; i++) {
        Shape s = base;
        if (i > 0)  // later inputs broadcast against the first: some dims set to 1, maybe fewer dims
            for (auto &e : s)
                if (r.uniform() < 0.4) e = 1;
        bool is_int = r.uniform() < 0.25;
        Tensor t = g.input(pre + "in" + std::to_string(i), is_int ? DType::I32 : DType::F32, s);
        NdArray a{s, std::vector<double>(size_t(shape_numel(s)))};
        for (auto &x : a.v) x = is_int ? double(r.integer(-5, 6)) : r.uniform(-2, 2);
        rg.inputs.push_back(t);
        rg.input_values.push_back(a);
        pool.push_back({t, a});
        ops << "in" << i << (is_int ? ":i32" : ":f32") << shape_str(s) << " ";
    }
    int nops = 3 + int(r.integer(0, 6));
    for (int k = 0; k < nops; k++) {
        const Val &a = pool[size_t(r.integer(std::max<int64_t>(0, int64_t(pool.size()) - 4), int64_t(pool.size())))];
        int op = int(r.integer(0, 6));
        if (a.t.rank() == 0 && op >= 3) op = 0;  // no axis to reduce or shift along
        Val out;
        if (op == 0) {  // unary
            int u = int(r.integer(0, 4));
            if (u == 0) out = {relu(a.t), eager_unary(a.a, [](double x) { return std::max(x, 0.0); })}, ops << "relu ";
            if (u == 1) out = {tanh(a.t), eager_unary(a.a, [](double x) { return std::tanh(x); })}, ops << "tanh ";
            if (u == 2) out = {neg(a.t), eager_unary(a.a, [](double x) { return -x; })}, ops << "neg ";
            if (u == 3)
                out = {exp(tanh(a.t)), eager_unary(a.a, [](double x) { return std::exp(std::tanh(x)); })},
                ops << "exp_tanh ";
        } else if (op == 1 || op == 2) {  // binary with broadcasting
            std::vector<const Val *> cands;
            for (auto &p : pool)
                if (broadcastable(a.a.shape, p.a.shape)) cands.push_back(&p);
            const Val &b = *cands[size_t(r.integer(0, int64_t(cands.size())))];
            Shape os = bshape(a.a.shape, b.a.shape);
            int f = int(r.integer(0, 3));
            if (f == 0)
                out = {add(a.t, b.t), eager_binary(a.a, b.a, os, [](double x, double y) { return x + y; })},
                ops << "add ";
            if (f == 1)
                out = {sub(a.t, b.t), eager_binary(a.a, b.a, os, [](double x, double y) { return x - y; })},
                ops << "sub ";
            if (f == 2)
                out = {mul(a.t, b.t), eager_binary(a.a, b.a, os, [](double x, double y) { return x * y; })},
                ops << "mul ";
        } else if (op == 3 || op == 4) {  // reduction, then broadcast back against its operand
            int ax = int(r.integer(0, a.t.rank()));
            bool keep = r.uniform() < 0.7;
            int kind = int(r.integer(0, 3));
            Tensor t = kind == 0 ? sum(a.t, {ax}, keep) : kind == 1 ? max(a.t, {ax}, keep) : mean(a.t, {ax}, keep);
            out = {t, eager_reduce(a.a, ax, keep, kind)};
            ops << (kind == 0 ? "sum" : kind == 1 ? "max" : "mean") << ax << (keep ? "k " : " ");
            if (keep && out.t.rank() == a.t.rank()) {
                Val back{sub(a.t, out.t),
                         eager_binary(a.a, out.a, a.a.shape, [](double x, double y) { return x - y; })};
                pool.push_back(out);
                out = back;
                ops << "sub_back ";
            }
        } else {  // stencil: neighbours along an axis
            int ax = int(r.integer(0, a.t.rank()));
            int64_t n = a.t.shape[size_t(ax)];
            if (n < 3) {
                out = {add(a.t, 1.0), eager_unary(a.a, [](double x) { return x + 1; })};
                ops << "add1 ";
            } else {
                Tensor s0 = slice(a.t, ax, 0, n - 1), s1 = slice(a.t, ax, 1, n);
                NdArray e0 = eager_slice(a.a, ax, 0, n - 1), e1 = eager_slice(a.a, ax, 1, n);
                out = {add(s0, s1), eager_binary(e0, e1, e0.shape, [](double x, double y) { return x + y; })};
                ops << "stencil" << ax << " ";
            }
        }
        pool.push_back(out);
    }
    // 1 to 3 outputs among the computed values (not inputs), the last always included.
    int nout = 1 + int(r.integer(0, 3));
    std::vector<size_t> chosen{pool.size() - 1};
    for (int i = 1; i < nout; i++) {
        size_t c = size_t(r.integer(int64_t(rg.inputs.size()), int64_t(pool.size())));
        if (std::find(chosen.begin(), chosen.end(), c) == chosen.end()) chosen.push_back(c);
    }
    for (size_t c : chosen) {
        // An output must be its own Func: copy it through a named identity if it is reused.
        Tensor t = mul(pool[c].t, 1.0);
        set_estimates(t.func, t.shape);
        rg.outputs.push_back(t);
        rg.expected.push_back(pool[c].a);
    }
    rg.ops = ops.str();
    for (auto &p : pool)
        for (double v : p.a.v)
            if (std::isfinite(v)) rg.scale = std::max(rg.scale, std::fabs(v));
    return rg;
}

BatchResult run_random_batch(const std::vector<uint64_t> &seeds, const std::string &target, const std::string &out_dir,
                             bool against_unfused) {
    BatchResult res;
    auto build = [&](Graph &g, std::vector<RandomGraph> &gs) {
        for (auto s : seeds) gs.push_back(make_random_graph(g, s));
    };
    // 1. Each graph planned alone: the planner must not throw.
    {
        Graph g;
        std::vector<RandomGraph> gs;
        build(g, gs);
        for (auto &rg : gs) {
            auto t0 = std::chrono::steady_clock::now();
            try {
                std::vector<Halide::Func> outs;
                for (auto &t : rg.outputs) outs.push_back(t.func);
                auto fg = with_halide_errors("analysis", [&] { return autosched::FuncGraph::build(outs); });
                autosched::plan_pipeline(fg, autosched::PlannerOptions{}, "random");
            } catch (const std::exception &e) {
                res.failed_seeds.push_back(rg.seed);
                res.messages.push_back("seed " + std::to_string(rg.seed) + " (" + rg.ops + "): planner: " + e.what());
            }
            double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            res.max_plan_ms = std::max(res.max_plan_ms, ms);
        }
        if (!res.failed_seeds.empty()) return res;
    }
    // 2. All graphs as one pipeline, planned by Solder and (against_unfused) with the unfused
    //    schedule, every Func a kernel of its own. Each is compiled once and run on the same
    //    inputs; Solder's outputs must match the eager reference and the unfused schedule's.
    struct Run {
        std::vector<RandomGraph> graphs;
        std::vector<HostBuffer> out;
        std::vector<std::pair<size_t, size_t>> which;  // output -> (graph, output index)
        std::string error;
    };
    auto compile_and_run = [&](bool solder) {
        Run run;
        Graph g;
        build(g, run.graphs);
        std::vector<Halide::Func> outs;
        std::vector<Halide::Argument> args;
        for (auto &rg : run.graphs) {
            for (auto &t : rg.outputs) outs.push_back(t.func);
            for (auto &t : rg.inputs) args.push_back(*t.param);
        }
        Halide::Target tgt = make_target(target);
        std::string err;
        std::unique_ptr<PipelineLibrary> lib;
        const std::string kind = solder ? "solder" : "unfused";
        try {
            if (solder) {
                auto fg = with_halide_errors("analysis", [&] { return autosched::FuncGraph::build(outs); });
                auto opt = autosched::PlannerOptions{};
                autosched::plan_for_target(opt, tgt);
                auto plan = autosched::plan_pipeline(fg, opt, "random");
                with_halide_errors("apply", [&] { autosched::apply_plan(plan, outs, tgt); });
            } else {
                with_halide_errors("apply", [&] { apply_unfused(outs, tgt); });
            }
            LibraryRequest req{Halide::Pipeline(outs),
                               args,
                               tgt,
                               out_dir,
                               "random_" + kind + "_" + target + "_" + std::to_string(seeds.front()),
                               {{"app", "random"}}};
            std::string so = with_halide_errors("compile", [&] { return compile_pipeline_library(req); });
            lib = PipelineLibrary::open(so, &err);
            if (!lib) throw std::runtime_error(err);
        } catch (const std::exception &e) {
            run.error = kind + ": " + e.what();
            return run;
        }
        std::vector<HostBuffer> in;
        for (auto &rg : run.graphs)
            for (size_t i = 0; i < rg.inputs.size(); i++) {
                TensorSpec ts{rg.inputs[i].param->name(), rg.inputs[i].dtype, rg.inputs[i].shape};
                HostBuffer b = make_host_buffer(ts);
                for (int64_t k = 0; k < numel(b); k++)
                    store_from_double(b, ts.dtype, k, rg.input_values[i].v[size_t(k)]);
                b.set_host_dirty();
                in.push_back(b);
            }
        for (size_t gi = 0; gi < run.graphs.size(); gi++)
            for (size_t i = 0; i < run.graphs[gi].outputs.size(); i++) {
                const Tensor &t = run.graphs[gi].outputs[i];
                run.out.push_back(make_host_buffer({"out", t.dtype, t.shape}));
                run.which.push_back({gi, i});
            }
        std::vector<halide_buffer_t *> ri, ro;
        for (auto &b : in) ri.push_back(b.raw_buffer());
        for (auto &b : run.out) ro.push_back(b.raw_buffer());
        if (lib->call(ri, ro, &err) != 0) run.error = kind + ": " + err;
        for (auto &b : run.out)
            if (b.raw_buffer()->device_interface) b.copy_to_host(), b.device_free();
        for (auto &b : in) b.device_free();
        return run;
    };
    Run planned = compile_and_run(true), unfused;
    if (against_unfused) unfused = compile_and_run(false);
    for (const Run *r : {&planned, &unfused})
        if (!r->error.empty()) {
            for (auto s : seeds) res.failed_seeds.push_back(s);
            res.messages.push_back("batch from seed " + std::to_string(seeds.front()) + ": " + r->error);
            return res;
        }
    for (size_t k = 0; k < planned.out.size(); k++) {
        const RandomGraph &rg = planned.graphs[planned.which[k].first];
        const size_t oi = planned.which[k].second;
        const NdArray &e = rg.expected[oi];
        double ss = 0;
        for (double x : e.v) ss += x * x;
        double rms = std::sqrt(ss / double(std::max<size_t>(1, e.v.size())));
        auto close = [&](double a, double b) {
            return std::fabs(a - b) <= 1e-4 * std::fabs(b) + 1e-4 * rms + 1e-6 + 1e-5 * rg.scale;
        };
        for (int64_t i = 0; i < numel(planned.out[k]); i++) {
            double o = load_as_double(planned.out[k], rg.outputs[oi].dtype, i), x = e.v[size_t(i)];
            double u = against_unfused ? load_as_double(unfused.out[k], rg.outputs[oi].dtype, i) : o;
            std::string wrong = !close(o, x)   ? ", expected " + std::to_string(x)
                                : !close(o, u) ? ", the unfused schedule gives " + std::to_string(u)
                                               : "";
            if (wrong.empty()) continue;
            if (res.failed_seeds.empty() || res.failed_seeds.back() != rg.seed) {
                res.failed_seeds.push_back(rg.seed);
                res.messages.push_back("seed " + std::to_string(rg.seed) + " (" + rg.ops + "): output " +
                                       std::to_string(oi) + " element " + std::to_string(i) + " is " +
                                       std::to_string(o) + wrong);
            }
            break;
        }
    }
    return res;
}

}  // namespace solder::testing
