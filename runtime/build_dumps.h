// The dumps made while compiling (plan, explain, schedule, loops, kernels, graph), for `solder run`
// and `solder build`. Each dump kind is one function in its own file (runtime/dump_*.cpp); this
// header also has BuildDumps, which the CLI calls around build_app_library.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/plan.h"
#include "runtime/app_build.h"
#include "runtime/dump_writer.h"

namespace solder {

// dump_plan.cpp: text for `plan`, `explain` and `schedule`.
std::string format_plan_dump(const AppBuild &b, const std::string &schedule);
std::string format_explain_dump(const AppBuild &b, const std::string &schedule);
std::string format_schedule_dump(const AppBuild &b, const std::string &schedule);

// dump_loops.cpp: Halide's loop nest of the scheduled outputs.
std::string format_loops_dump(const std::vector<Halide::Func> &outputs);

// dump_kernels.cpp: splits the device source beside the library into <folder>/kernels/<name>.cl
// (or .ptx), replacing what an earlier run left there, and returns the list it prints.
std::string write_kernels_dump(const std::string &library_path, const std::string &target, const std::string &folder);

// dump_graph.cpp: the pipeline as Graphviz text. With Solder's plan, each kernel is a cluster and a
// Func recomputed in several kernels appears in each; without one, Funcs computed at root (after
// scheduling) are boxes.
std::string graph_dot(const autosched::FuncGraph &g, const autosched::Plan *plan, const std::string &title);
// Writes <folder>/graph.dot and, when Graphviz's `dot` is on the PATH, graph.svg; returns what it printed.
std::string write_graph_dump(const autosched::FuncGraph &g, const autosched::Plan *plan, const std::string &title,
                             const std::string &folder);

// The CLI's side: construct before build_app_library (it asks `req` for the unscheduled Funcs when
// the graph dump is on), then write() with the build.
class BuildDumps {
public:
    BuildDumps(const DumpWriter &dumps, AppBuildRequest &req);
    void write(const AppBuild &b) const;

private:
    struct Graph;  // the FuncGraph, or why there is none
    const DumpWriter &dumps_;
    std::shared_ptr<Graph> graph_;
};

// Whether `v` holds `s` (a kernel's Funcs, outputs: the dumps' lists of names).
inline bool contains(const std::vector<std::string> &v, const std::string &s) {
    for (auto &x : v)
        if (x == s) return true;
    return false;
}

}  // namespace solder
