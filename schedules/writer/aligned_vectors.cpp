#include "schedules/writer/aligned_vectors.h"

#include <map>

#include "autosched/model/pipeline_funcs.h"

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

namespace {

// A condition's terms, each `(e) % width == 0`, and the same as C++.
struct Terms {
    int width;
    std::vector<Expr> exprs;
    std::string source;
    bool names_inputs = false;
    void add(const Expr &e, const std::string &text) {
        exprs.push_back(e % width == 0);
        source += (source.empty() ? "" : " && ") + std::string("(") + text + ") % " + std::to_string(width) + " == 0";
    }
    // (A generator's schedule has the pipeline in scope, not its inputs: the source finds each input's
    // fields by name, through kInputFieldHelper.)
    void add_field(const Parameter &p, const std::string &field, int d) {
        add(buffer_field(p, field, d), std::string(kInputFieldHelperName) + "(\"" + p.name() + "\", \"" + field +
                                           "\", " + std::to_string(d) + ")");
        names_inputs = true;
    }
    // The input's rows start at whole vectors.
    void add_rows(const Parameter &p) {
        if (p.dimensions() < 1) return;
        add_field(p, "min", 0);
        for (int d = 1; d < p.dimensions(); d++) add_field(p, "stride", d);
    }
    AlignedBranch branch() const {
        AlignedBranch b;
        if (exprs.empty()) return b;
        Expr c = exprs[0];
        for (size_t i = 1; i < exprs.size(); i++) c = c && exprs[i];
        b.condition = c;
        b.source = source;
        b.names_inputs = names_inputs;
        return b;
    }
};

}  // namespace

const char *const kInputFieldHelperName = "solder_input_field";

const char *const kInputFieldHelper =
    R"(// The field of a pipeline input's buffer ("min", "extent", "stride"), found by name through the Funcs that read it.
auto solder_input_field = [&](const std::string &name, const char *field, int dim) {
    struct Finder : Halide::Internal::IRGraphVisitor {
        std::string name;
        Halide::Parameter found;
        using Halide::Internal::IRGraphVisitor::visit;
        void visit(const Halide::Internal::Call *c) override {
            Halide::Internal::IRGraphVisitor::visit(c);
            if (c->param.defined() && c->param.name() == name) found = c->param;
        }
    } finder;
    finder.name = name;
    for (auto &o : pipeline.outputs())
        for (auto &kv : Halide::Internal::find_transitive_calls(o.function())) kv.second.accept(&finder);
    return Halide::Internal::Variable::make(Halide::Int(32), name + "." + field + "." + std::to_string(dim), finder.found);
};)";

AlignedBranch aligned_branch(const Func &root, int width, const std::vector<Func> &outputs,
                             const std::string &root_id) {
    // (A Tuple's buffers are several: none is named here, the Func keeps one branch.)
    if (width <= 1 || root.dimensions() < 1 || root.outputs() != 1) return {};
    Terms t{width};
    // The root's own buffer: whole vectors along the row, rows starting at whole vectors.
    Func f = root;
    const std::string ob = root_id + ".output_buffer().dim(";
    t.add(f.output_buffer().dim(0).extent(), ob + "0).extent()");
    t.add(f.output_buffer().dim(0).min(), ob + "0).min()");
    for (int d = 1; d < f.dimensions(); d++)
        t.add(f.output_buffer().dim(d).stride(), ob + std::to_string(d) + ").stride()");
    // Every input buffer: its rows start at whole vectors too.
    for (auto &[name, p] : pipeline_input_buffers(outputs)) t.add_rows(p);
    return t.branch();
}

AlignedBranch aligned_inputs(const std::vector<Parameter> &inputs, const std::vector<Expr> &multiples, int width) {
    if (width <= 1) return {};
    Terms t{width};
    for (const Expr &e : multiples) {
        if (auto c = as_const_int(e)) {
            if (*c % width != 0) return {};
            continue;
        }
        // An input buffer's field, named as Halide names it: `<input>.<field>.<dim>`.
        const auto *v = e.as<Variable>();
        if (!v || !v->param.defined() || !v->param.is_buffer()) return {};
        const std::string rest = v->name.substr(std::min(v->name.size(), v->param.name().size() + 1));
        const size_t dot = rest.find('.');
        if (v->name.rfind(v->param.name() + ".", 0) != 0 || dot == std::string::npos) return {};
        const std::string field = rest.substr(0, dot);
        const std::string dim = rest.substr(dot + 1);
        if ((field != "min" && field != "extent" && field != "stride") || dim.empty() ||
            dim.find_first_not_of("0123456789") != std::string::npos)
            return {};
        t.add_field(v->param, field, std::stoi(dim));
    }
    for (const Parameter &p : inputs) t.add_rows(p);
    return t.branch();
}

}  // namespace solder
