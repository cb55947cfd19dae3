// The `plan`, `explain` and `schedule` dumps.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "runtime/build_dumps.h"
#include "core/text_format.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder {

namespace {

std::string no_plan(const std::string &schedule) {
    return "schedule '" + schedule + "' is not Solder's, so there is no Solder plan (run with --schedule solder)\n";
}

}  // namespace

std::string format_plan_dump(const AppBuild &b, const std::string &schedule) {
    std::ostringstream o;
    if (!b.plan) {
        o << no_plan(schedule);
        std::vector<std::string> roots;
        for (auto &f : pipeline_functions(b.outputs))
            if (is_computed_at_root(f)) roots.push_back(f.name());
        o << "Funcs computed at root under '" << schedule << "' (" << roots.size()
          << ", each at least one kernel on a GPU target):\n";
        for (auto &r : roots) o << "  " << r << "\n";
        return o.str();
    }
    const autosched::Plan &p = *b.plan;
    o << "Solder's plan: " << p.kernels.size() << " kernel" << (p.kernels.size() == 1 ? "" : "s") << ", "
      << bytes_str(p.total_bytes) << " moved (minimum " << bytes_str(p.min_bytes) << ", ratio "
      << (p.min_bytes ? fmt("%.3f", double(p.total_bytes) / double(p.min_bytes)) : "-") << "), estimated "
      << fmt("%.3f", p.est_us) << " us on the device profile\n";
    for (auto &k : p.kernels) {
        o << "kernel " << k.name << ": template " << k.template_name();
        if (auto *row = k.get<autosched::RowParams>())
            o << " (" << row->inner_dims << " inner dim" << (row->inner_dims == 1 ? "" : "s") << ")";
        o << ", " << k.blocks << " blocks; reads " << bytes_str(k.bytes_read) << ", writes "
          << bytes_str(k.bytes_written) << "; est " << fmt("%.3f", k.est_us) << " us\n";
        size_t w = 12;
        for (auto &f : k.funcs) w = std::max(w, f.size() + 2);
        for (auto &f : k.funcs) {
            o << "    " << pad(f, w);
            bool is_root = f == k.root || contains(k.with, f);
            const autosched::FuncPlan *fp = p.find(f);
            if (is_root)
                o << "root: written to global memory" << (contains(k.outputs, f) ? " (pipeline output)" : "");
            else if (fp && fp->placement == autosched::Placement::ComputeAtBlock)
                o << "compute_at " << fp->anchor << ": computed per block, on chip";
            else
                o << "inline: recomputed where used";
            o << "\n";
        }
    }
    if (!p.materialized.empty()) {
        o << "materialized intermediates (written to global memory and read back):\n";
        for (auto &m : p.materialized) {
            std::string shape;
            for (auto d : m.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
            o << "    " << m.func << " " << m.type << " [" << shape << "] " << bytes_str(m.bytes) << "\n";
        }
    }
    return o.str();
}

std::string format_explain_dump(const AppBuild &b, const std::string &schedule) {
    if (!b.plan) return no_plan(schedule) + "so there are no fusion decisions to explain\n";
    const auto &ex = b.plan->explanations;
    if (ex.empty()) return "every producer was fused into its consumers: nothing to explain\n";
    std::ostringstream o;
    o << ex.size() << " fusion" << (ex.size() == 1 ? "" : "s") << " not made:\n";
    for (auto &e : ex)
        o << "  " << e.producer << (e.consumer.empty() ? "" : " -> " + e.consumer) << ": " << e.reason << "\n";
    return o.str();
}

std::string format_schedule_dump(const AppBuild &b, const std::string &schedule) {
    if (b.schedule_source.empty())
        return "schedule '" + schedule + "' gives no schedule source" +
               (schedule == "unfused" ? " (it computes every Func at root)" : "") + "\n";
    return b.schedule_source;
}

}  // namespace solder
