#include "schedules/writer/aligned_vectors.h"

#include <map>

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

namespace {

// The input buffers (ImageParams, generator Inputs) the pipeline of `outputs` reads, by name.
std::map<std::string, Parameter> input_buffers(const std::vector<Func> &outputs) {
    struct Finder : IRGraphVisitor {
        std::map<std::string, Parameter> found;
        using IRGraphVisitor::visit;
        void visit(const Call *c) override {
            IRGraphVisitor::visit(c);
            if (c->call_type == Call::Image && c->param.defined() && c->param.is_buffer())
                found.emplace(c->param.name(), c->param);
        }
    } finder;
    for (const Func &o : outputs)
        for (auto &[name, fn] : find_transitive_calls(o.function())) {
            (void)name;
            fn.accept(&finder);
        }
    return finder.found;
}

Expr buffer_field(const Parameter &p, const char *field, int dim) {
    return Variable::make(Int(32), p.name() + "." + field + "." + std::to_string(dim), p);
}

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
    AlignedBranch b;
    // (A Tuple's buffers are several: none is named here, the Func keeps one branch.)
    if (width <= 1 || root.dimensions() < 1 || root.outputs() != 1) return b;
    const std::string w = std::to_string(width);
    std::vector<Expr> terms;
    std::string src;
    auto add = [&](Expr e, const std::string &text) {
        terms.push_back(e % width == 0);
        src += (src.empty() ? "" : " && ") + std::string("(") + text + ") % " + w + " == 0";
    };
    // The root's own buffer: whole vectors along the row, rows starting at whole vectors.
    Func f = root;
    const std::string ob = root_id + ".output_buffer().dim(";
    add(f.output_buffer().dim(0).extent(), ob + "0).extent()");
    add(f.output_buffer().dim(0).min(), ob + "0).min()");
    for (int d = 1; d < f.dimensions(); d++)
        add(f.output_buffer().dim(d).stride(), ob + std::to_string(d) + ").stride()");
    // Every input buffer: its rows start at whole vectors too.
    for (auto &[name, p] : input_buffers(outputs)) {
        if (p.dimensions() < 1) continue;
        // (A generator's schedule has the pipeline in scope, not its inputs: the source finds each
        // input's fields by name, through kInputFieldHelper.)
        auto text = [&](const char *field, int d) {
            return std::string(kInputFieldHelperName) + "(\"" + name + "\", \"" + field + "\", " + std::to_string(d) +
                   ")";
        };
        add(buffer_field(p, "min", 0), text("min", 0));
        for (int d = 1; d < p.dimensions(); d++) add(buffer_field(p, "stride", d), text("stride", d));
        b.names_inputs = true;
    }
    Expr c = terms[0];
    for (size_t i = 1; i < terms.size(); i++) c = c && terms[i];
    b.condition = c;
    b.source = src;
    return b;
}

}  // namespace solder
