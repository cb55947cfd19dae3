// The `graph` dump: the pipeline as a Graphviz picture, after nvFuser's drawing of a segmented
// fusion. Nodes are Funcs, drawn by what they cost: pipeline inputs and outputs, intermediates
// materialized in global memory, Funcs computed per block (on chip) and inlined Funcs. With Solder's
// plan each kernel is a cluster, and an edge that leaves a cluster is a tensor read back from
// global memory. Edges carry the access kind the planner classified (autosched/model/func_graph.h).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "runtime/build_dumps.h"
#include "core/text_format.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder {
namespace fs = std::filesystem;
using autosched::FuncGraph;
using autosched::FuncNode;
using autosched::Plan;

namespace {

std::string q(const std::string &s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '\n') {
            o += "\\n";  // a line break in a Graphviz label
            continue;
        }
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o + "\"";
}

std::string shape_of(const FuncNode &n) {
    std::string s;
    for (size_t d = n.region.size(); d-- > 0;) s += (s.empty() ? "" : ", ") + std::to_string(n.region[d].extent());
    return "[" + s + "]";
}

// How each kind of node is drawn; `class` also lands in the SVG, so tools can find them.
std::string style_of(const std::string &role) {
    if (role == "input") return "shape=invhouse, style=filled, fillcolor=\"#cfe2f3\"";
    if (role == "output") return "shape=box, style=filled, peripheries=2, fillcolor=\"#b6d7a8\"";
    if (role == "materialized") return "shape=box3d, style=filled, fillcolor=\"#f9cb9c\"";
    if (role == "root") return "shape=box, style=filled, fillcolor=\"#eeeeee\"";
    if (role == "compute_at") return "shape=ellipse, style=\"filled,dashed\", fillcolor=\"#fff2cc\"";
    return "shape=ellipse";  // inline
}

std::string role_text(const std::string &role) {
    if (role == "input") return "pipeline input";
    if (role == "output") return "pipeline output";
    if (role == "materialized") return "materialized (global memory)";
    if (role == "root") return "computed at root";
    if (role == "compute_at") return "per block (on chip)";
    return "inline";
}

void node(std::ostream &o, const std::string &id, const FuncNode &n, const std::string &role,
          const std::string &indent) {
    o << indent << q(id) << " [label=" << q(n.name + "\n" + n.type + " " + shape_of(n) + "\n" + role_text(role))
      << ", class=" << q(role) << ", " << style_of(role) << "];\n";
}

std::string sh(const std::string &s) {
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
}

}  // namespace

std::string graph_dot(const FuncGraph &g, const Plan *plan, const std::string &title) {
    std::ostringstream o;
    std::string legend =
        plan ? "clusters: kernels; bold edges read global memory (an input, or a tensor another kernel wrote)"
             : "no Solder plan: boxes are Funcs computed at root (a kernel or more each)";
    o << "digraph pipeline {\n"
      << "  graph [label=" << q(title + "\n" + legend) << ", labelloc=t, fontname=Helvetica, rankdir=TB];\n"
      << "  node [fontname=Helvetica, fontsize=10];\n  edge [fontname=Helvetica, fontsize=8];\n";
    for (auto &n : g.nodes)
        if (n.is_input) node(o, "input:" + n.name, n, "input", "  ");

    // Where each node of the drawing is: a Func recomputed in several kernels has one node in each.
    std::set<std::string> materialized;
    std::map<std::string, size_t> kernel_of_root;
    if (plan) {
        for (auto &m : plan->materialized) materialized.insert(m.func);
        for (size_t k = 0; k < plan->kernels.size(); k++) {
            kernel_of_root[plan->kernels[k].root] = k;
            for (auto &w : plan->kernels[k].with) kernel_of_root[w] = k;
        }
    }
    std::set<std::string> loose;  // Funcs drawn outside any kernel
    auto source_id = [&](const FuncNode &p, const std::string &kernel_prefix,
                         const std::vector<std::string> *kernel_funcs) {
        if (p.is_input) return "input:" + p.name;
        if (kernel_funcs && contains(*kernel_funcs, p.name)) return kernel_prefix + p.name;
        auto it = kernel_of_root.find(p.name);
        if (it != kernel_of_root.end()) return "k" + std::to_string(it->second) + ":" + p.name;
        loose.insert(p.name);
        return "func:" + p.name;
    };

    std::ostringstream edges;
    if (plan) {
        for (size_t k = 0; k < plan->kernels.size(); k++) {
            const autosched::KernelPlan &kp = plan->kernels[k];
            std::string prefix = "k" + std::to_string(k) + ":";
            o << "  subgraph " << q("cluster_" + kp.name) << " {\n    label="
              << q(kp.name + " [" + kp.template_name() + "]\nreads " + bytes_str(kp.bytes_read) + ", writes " +
                   bytes_str(kp.bytes_written))
              << ";\n    class=\"kernel\"; style=rounded; color=\"#3d85c6\";\n";
            for (auto &f : kp.funcs) {
                int i = g.find(f);
                if (i < 0) continue;
                const FuncNode &n = g.nodes[i];
                const autosched::FuncPlan *fp = plan->find(f);
                std::string role = "inline";
                if (f == kp.root || contains(kp.with, f))
                    role = n.is_output || contains(kp.outputs, f) ? "output"
                           : materialized.count(f)                ? "materialized"
                                                                  : "root";
                else if (fp && fp->placement == autosched::Placement::ComputeAtBlock)
                    role = "compute_at";
                node(o, prefix + f, n, role, "    ");
                for (int e : n.in_edges) {
                    const FuncNode &p = g.nodes[g.edges[e].producer];
                    std::string src = source_id(p, prefix, &kp.funcs);
                    bool crosses = src.rfind(prefix, 0) != 0;
                    edges << "  " << q(src) << " -> " << q(prefix + f)
                          << " [label=" << q(autosched::access_name(g.edges[e].access))
                          << (crosses ? ", style=bold" : "") << "];\n";
                }
            }
            if (kp.split) {
                // Split-K's partials: written by the kernel's first launches, read by its root's blocks.
                std::string id = prefix + kp.split->partials;
                o << "    " << q(id) << " [label="
                  << q(kp.split->partials + "\nsplit-K partials of " + kp.split->func + ", " +
                       std::to_string(kp.split->slices) + " slices\n" + role_text("materialized"))
                  << ", class=\"materialized\", " << style_of("materialized") << "];\n";
                edges << "  " << q(id) << " -> " << q(prefix + kp.split->func)
                      << " [label=\"partials\", style=bold];\n";
            }
            o << "  }\n";
        }
    } else {
        for (auto &n : g.nodes) {
            if (n.is_input) continue;
            bool at_root = is_computed_at_root(n.function);  // inputs were skipped above
            node(o, "func:" + n.name, n, n.is_output ? "output" : at_root ? "root" : "inline", "  ");
            for (int e : n.in_edges) {
                const FuncNode &p = g.nodes[g.edges[e].producer];
                edges << "  " << q(p.is_input ? "input:" + p.name : "func:" + p.name) << " -> " << q("func:" + n.name)
                      << " [label=" << q(autosched::access_name(g.edges[e].access)) << "];\n";
            }
        }
    }
    for (auto &name : loose) {
        int i = g.find(name);
        if (i >= 0) node(o, "func:" + name, g.nodes[i], "root", "  ");
    }
    o << edges.str() << "}\n";
    return o.str();
}

std::string write_graph_dump(const FuncGraph &g, const Plan *plan, const std::string &title,
                             const std::string &folder) {
    fs::path dot = fs::path(folder) / "graph.dot", svg = fs::path(folder) / "graph.svg";
    std::ofstream(dot) << graph_dot(g, plan, title);
    fs::remove(svg);
    std::ostringstream o;
    o << "wrote " << dot.string() << " (" << g.nodes.size() << " Funcs and inputs"
      << (plan ? ", " + std::to_string(plan->kernels.size()) + " kernels as clusters" : "") << ")\n";
    if (std::system("command -v dot >/dev/null 2>&1") != 0) {
        o << "Graphviz's `dot` is not on the PATH: no SVG (dot -Tsvg " << dot.string() << " makes one)\n";
        return o.str();
    }
    std::string log = (fs::path(folder) / "graph.log").string();
    std::string cmd = "dot -Tsvg " + sh(dot.string()) + " -o " + sh(svg.string()) + " >" + sh(log) + " 2>&1";
    if (std::system(cmd.c_str()) == 0 && fs::exists(svg)) {
        o << "wrote " << svg.string() << "\n";
        fs::remove(log);
    } else {
        o << "dot failed to draw " << dot.string() << " (see " << log << ")\n";
    }
    return o.str();
}

}  // namespace solder
