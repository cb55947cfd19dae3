#include "autosched/model/options.h"

#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "core/comma_words.h"
#include "core/unknown_name_error.h"

namespace solder::autosched {

namespace {

// Runtime knobs that SOLDER_DISABLE also takes (not the planner's).
const std::vector<std::string> kRuntimeDisableWords = {"fallback", "fast_math"};

struct KnobSetter {
    Knob knob;
    std::function<void(PlannerOptions &, const std::string &, const std::string &)> set;
};

bool parse_flag(const std::string &what, const std::string &v) {
    if (v == "1" || v == "true") return true;
    if (v == "0" || v == "false") return false;
    throw std::invalid_argument(printable(what) + " must be 0 or 1 (or true, false), got '" + printable(v) + "'");
}

KnobSetter flag(const std::string &name, bool PlannerOptions::*field, const std::string &help) {
    const bool def = PlannerOptions{}.*field;
    return {{name, "flag", def ? "1" : "0", help},
            [field](PlannerOptions &o, const std::string &what, const std::string &v) { o.*field = parse_flag(what, v); }};
}

template<typename Setter>
KnobSetter integer(const std::string &name, int64_t def, int64_t lo, int64_t hi, const std::string &help, Setter set) {
    return {{name, "integer", std::to_string(def), help + " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")"},
            [=](PlannerOptions &o, const std::string &what, const std::string &v) { set(o, parse_integer(what, v, lo, hi)); }};
}

const std::vector<KnobSetter> &knob_table() {
    static const std::vector<KnobSetter> table = [] {
        const PlannerOptions d;
        std::vector<KnobSetter> t = {
            flag("horizontal", &PlannerOptions::horizontal, "launch independent 1-D kernels together, stage by stage"),
            flag("remat", &PlannerOptions::remat, "recompute cheap Funcs in every kernel that reads them"),
            flag("compute_at", &PlannerOptions::compute_at,
                 "compute reductions and stencil producers inside their consumer's blocks"),
            flag("exact", &PlannerOptions::exact_search, "branch and bound over kernel roots after the greedy pass"),
            flag("single_kernel_groups", &PlannerOptions::single_kernel_groups,
                 "a reduction alone in its kernel takes the block-reduction template"),
            flag("staging", &PlannerOptions::stage_rows, "row kernels load inputs read by several stages into shared memory"),
            flag("fewest_bytes", &PlannerOptions::fewest_bytes,
                 "take a fusion that moves fewer bytes even where the cost model expects it slower"),
            integer("parallelism", d.device.sms, 1, 100000, "streaming multiprocessors of the GPU planned for",
                    [](PlannerOptions &o, int64_t v) { o.device.sms = int(v); }),
            integer("shared_memory_limit_kb", d.device.shared_memory_bytes / 1024, 1, 1024,
                    "shared memory per block without opt-in, KB",
                    [](PlannerOptions &o, int64_t v) { o.device.shared_memory_bytes = v * 1024; }),
            integer("shared_memory_optin_kb", 0, 0, 1024,
                    "shared memory per block above 48 KB where the program opts in, KB (the plugin's default: 0; "
                    "Solder's own libraries opt in up to 227)",
                    [](PlannerOptions &o, int64_t v) { o.device.shared_memory_optin_bytes = v * 1024; }),
            integer("time_budget_ms", d.time_budget_ms, 1, 3600 * 1000, "the search's safety net, milliseconds",
                    [](PlannerOptions &o, int64_t v) { o.time_budget_ms = int(v); }),
        };
        t.push_back({{"keep_unfused", "names", "", "Funcs always stored (a debugging knob): comma-separated names"},
                     [](PlannerOptions &o, const std::string &what, const std::string &v) {
                         for (const std::string &w : comma_words(v)) {
                             if (w.empty())
                                 throw std::invalid_argument(printable(what) + " has an empty Func name in '" + printable(v) + "'");
                             o.keep_unfused.insert(w);
                         }
                     }});
        return t;
    }();
    return table;
}

std::string knob_names(const std::string &kind = "") {
    std::string s;
    for (auto &k : knob_table())
        if (kind.empty() || k.knob.kind == kind) s += (s.empty() ? "" : ", ") + k.knob.name;
    return s;
}

// The flag words SOLDER_DISABLE / SOLDER_ENABLE take, with `extra` runtime words.
void apply_flag_list(PlannerOptions &opt, const std::string &list, bool on, const std::string &where,
                     const std::vector<std::string> &extra) {
    for (const std::string &w : comma_words(list)) {
        bool skip = false;
        for (auto &e : extra) skip |= w == e;
        if (skip) continue;
        const KnobSetter *k = nullptr;
        for (auto &s : knob_table())
            if (s.knob.name == w && s.knob.kind == "flag") k = &s;
        if (!k) {
            std::string valid = knob_names("flag");
            for (auto &e : extra) valid += ", " + e;
            throw UnknownNameError("unknown word '" + printable(w) + "' in " + where + " (valid: " + valid + ")");
        }
        k->set(opt, where + " " + w, on ? "1" : "0");
    }
}

}  // namespace

const std::vector<Knob> &planner_knobs() {
    static const std::vector<Knob> knobs = [] {
        std::vector<Knob> k;
        for (auto &s : knob_table()) k.push_back(s.knob);
        return k;
    }();
    return knobs;
}

void set_planner_knob(PlannerOptions &opt, const std::string &key, const std::string &value, const std::string &where) {
    for (auto &s : knob_table())
        if (s.knob.name == key) return s.set(opt, "Solder: " + where, value);
    throw UnknownNameError("Solder: unknown parameter '" + printable(where) + "' (valid: " + knob_names() + ")");
}

void apply_disable_list(PlannerOptions &opt, const std::string &list) {
    apply_flag_list(opt, list, false, "SOLDER_DISABLE / --disable", kRuntimeDisableWords);
}

void apply_enable_list(PlannerOptions &opt, const std::string &list) {
    apply_flag_list(opt, list, true, "SOLDER_ENABLE / --enable", {});
}

bool disabled_in_env(const std::string &word) {
    const char *d = std::getenv("SOLDER_DISABLE");
    if (!d) return false;
    PlannerOptions unused;
    apply_disable_list(unused, d);  // only to reject unknown words
    for (const std::string &w : comma_words(d))
        if (w == word) return true;
    return false;
}

PlannerOptions options_from_env(bool gpu) {
    PlannerOptions opt;
    opt.gpu = gpu;
    if (const char *d = std::getenv("SOLDER_DISABLE")) apply_disable_list(opt, d);
    if (const char *e = std::getenv("SOLDER_ENABLE")) apply_enable_list(opt, e);
    if (const char *k = std::getenv("SOLDER_KEEP_UNFUSED")) set_planner_knob(opt, "keep_unfused", k, "SOLDER_KEEP_UNFUSED");
    return opt;
}

}  // namespace solder::autosched
