#include "runtime/build_dumps.h"

#include <optional>

#include "runtime/halide_error.h"

namespace solder {

struct BuildDumps::Graph {
    std::optional<autosched::FuncGraph> graph;
    std::string error;
};

BuildDumps::BuildDumps(const DumpWriter &dumps, AppBuildRequest &req) : dumps_(dumps) {
    if (dumps.on("plan") || dumps.on("loops")) req.keep_scheduled_funcs = true;
    if (!dumps.on("graph")) return;
    graph_ = std::make_shared<Graph>();
    auto earlier = req.before_schedule;
    // Before scheduling, the graph is what the planner analysed: the schedule adds Funcs of its own
    // (rfactor's intermediates) that no plan names.
    req.before_schedule = [g = graph_, earlier](const std::vector<Halide::Func> &outputs) {
        if (earlier) earlier(outputs);
        try {
            g->graph =
                with_halide_errors("analysing the pipeline", [&] { return autosched::FuncGraph::build(outputs); });
        } catch (const std::exception &e) {
            g->error = e.what();
        }
    };
}

void BuildDumps::write(const AppBuild &b) const {
    const DumpSubject &s = dumps_.subject();
    // One dump failing (say, Graphviz missing a font) must not hide the others or the run.
    auto dump = [&](const std::string &word, auto make) {
        if (!dumps_.on(word)) return;
        std::string text;
        try {
            text = with_halide_errors(word + " dump", make);
        } catch (const std::exception &e) {
            text = "the " + word + " dump failed: " + e.what() + "\n";
        }
        dumps_.print(word, text);
    };
    dump("plan", [&] { return format_plan_dump(b, s.schedule); });
    dump("explain", [&] { return format_explain_dump(b, s.schedule); });
    dump("schedule", [&] { return format_schedule_dump(b, s.schedule); });
    dump("loops", [&] { return format_loops_dump(b.outputs); });
    dump("kernels", [&] { return write_kernels_dump(b.library_path, s.target, dumps_.folder()); });
    dump("graph", [&] {
        if (!graph_ || !graph_->graph)
            return "no graph: " + (graph_ ? graph_->error : std::string("not analysed")) + "\n";
        std::string title = s.app + " (" + s.size + "), schedule " + s.schedule + ", target " + s.target;
        return write_graph_dump(*graph_->graph, b.plan.get(), title, dumps_.folder());
    });
}

}  // namespace solder
