#include "autosched/model/options.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "core/comma_words.h"
#include "core/unknown_name_error.h"

namespace solder {

namespace {

using autosched::PlannerOptions;

// The ways in, each taking part of the one table: the flag lists (SOLDER_DISABLE, --disable,
// SOLDER_ENABLE, --enable) take every flag, the parameters every knob but the runtime's (the
// plugin neither runs a pipeline nor rewrites its math).
enum class Way { FlagList, Parameter };

struct KnobEntry {
    Knob knob;
    // Sets the knob from its text; `what` names it in a message.
    std::function<void(SolderOptions &, const std::string &what, const std::string &text)> set;
    std::function<std::string(const SolderOptions &)> text;  // its value, for canonical_text()
    bool takes(Way w) const { return w == Way::FlagList ? knob.kind == "flag" : !knob.runtime; }
};

bool parse_flag(const std::string &what, const std::string &v) {
    if (v == "1" || v == "true") return true;
    if (v == "0" || v == "false") return false;
    throw std::invalid_argument(printable(what) + " must be 0 or 1 (or true, false), got '" + printable(v) + "'");
}

// `ref(options)` is the flag's field; a generic lambda, so that it serves const and non-const alike.
template<typename Ref> KnobEntry flag(const std::string &name, Ref ref, const std::string &help, bool runtime = false) {
    const SolderOptions defaults;
    const bool def = ref(defaults);
    return {{name, "flag", def ? "1" : "0", help, runtime},
            [ref](SolderOptions &o, const std::string &what, const std::string &v) { ref(o) = parse_flag(what, v); },
            [ref](const SolderOptions &o) { return std::string(ref(o) ? "1" : "0"); }};
}

template<typename Get, typename Set> KnobEntry integer(const std::string &name, int64_t def, int64_t lo, int64_t hi,
                                                       const std::string &help, Get get, Set set) {
    const std::string range = " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
    return {{name, "integer", std::to_string(def), help + range},
            [=](SolderOptions &o, const std::string &what, const std::string &v) {
                set(o, parse_integer(what, v, lo, hi));
            },
            get};
}

// Bytes as the KB the knobs take; exact also for a value set in code that is no whole number of KB.
std::string kb_text(int64_t bytes) {
    return bytes % 1024 == 0 ? std::to_string(bytes / 1024) : std::to_string(bytes) + " bytes";
}

std::string exact_text(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

const std::vector<KnobEntry> &knob_table() {
    static const std::vector<KnobEntry> table = [] {
        const PlannerOptions d;
        return std::vector<KnobEntry>{
            flag(
                "horizontal", [](auto &o) -> auto & { return o.planner.horizontal; },
                "launch independent 1-D kernels together, stage by stage"),
            flag(
                "remat", [](auto &o) -> auto & { return o.planner.remat; },
                "recompute cheap Funcs in every kernel that reads them"),
            flag(
                "compute_at", [](auto &o) -> auto & { return o.planner.compute_at; },
                "compute reductions and stencil producers inside their consumer's blocks"),
            flag(
                "exact", [](auto &o) -> auto & { return o.planner.exact_search; },
                "branch and bound over kernel roots after the greedy pass"),
            flag(
                "single_kernel_groups", [](auto &o) -> auto & { return o.planner.single_kernel_groups; },
                "a reduction alone in its kernel takes the block-reduction template"),
            flag(
                "reduction_members", [](auto &o) -> auto & { return o.planner.reduction_members; },
                "the block-reduction template computes the pure Funcs a reduction reads inline"),
            flag(
                "staging", [](auto &o) -> auto & { return o.planner.stage_rows; },
                "row kernels load inputs read by several stages into shared memory"),
            flag(
                "fewest_bytes", [](auto &o) -> auto & { return o.planner.fewest_bytes; },
                "take a fusion that moves fewer bytes even where the cost model expects it slower"),
            flag(
                "side_outputs", [](auto &o) -> auto & { return o.planner.side_outputs; },
                "a row or pointwise kernel writes outputs its root reads beside its root"),
            flag(
                "shared_reductions", [](auto &o) -> auto & { return o.planner.shared_reductions; },
                "a row kernel computes a reduction other kernels read too and writes it beside its root"),
            flag(
                "one_pass_deviations", [](auto &o) -> auto & { return o.planner.one_pass_deviations; },
                "a mean's sum and the squared deviations from it over many points are summed in chunks, read once"),
            flag(
                "sibling_reductions", [](auto &o) -> auto & { return o.planner.sibling_reductions; },
                "reductions over the same points that read a common input are walked together as one Tuple Func"),
            flag(
                "cloned_reductions", [](auto &o) -> auto & { return o.planner.cloned_reductions; },
                "a small reduction several outputs read point for point is copied for each, computed in its kernel"),
            flag(
                "computed_bins", [](auto &o) -> auto & { return o.planner.computed_bins; },
                "an atomic scatter's bin computed from its RDom's points alone moves into a Func computed at each "
                "point"),
            flag(
                "transposed_tiles", [](auto &o) -> auto & { return o.planner.transposed_tiles; },
                "a kernel that reads a producer transposed takes square tiles, the producer's tile in shared memory"),
            flag(
                "register_tiles", [](auto &o) -> auto & { return o.planner.register_tiles; },
                "a kernel reducing a small window at each point computes 4 rows per thread, in registers"),
            flag(
                "window_tiles", [](auto &o) -> auto & { return o.planner.window_tiles; },
                "window sums of a computed Func (a separable blur's passes) fused into stencil tiles, the Func per "
                "tile"),
            flag(
                "contraction_tiles", [](auto &o) -> auto & { return o.planner.contraction_tiles; },
                "a kernel computing a contraction (a matrix product) takes 4 x 4 points per thread, in registers"),
            flag(
                "cell_threads", [](auto &o) -> auto & { return o.planner.cell_threads; },
                "a scatter at many cells takes a thread per cell, the cells' bins in shared memory, no atomics"),
            flag(
                "fallback", [](auto &o) -> auto & { return o.fallback; },
                "solder run: a failing Solder schedule is replaced by the unfused one (not a plugin parameter)", true),
            flag(
                "fast_math", [](auto &o) -> auto & { return o.fast_math; },
                "CUDA builds approximate f32 exp and tanh (not a plugin parameter)", true),
            integer(
                "parallelism", d.device.sms, 1, 100000, "streaming multiprocessors of the GPU planned for",
                [](const SolderOptions &o) { return std::to_string(o.planner.device.sms); },
                [](SolderOptions &o, int64_t v) { o.planner.device.sms = int(v); }),
            integer(
                "shared_memory_limit_kb", d.device.shared_memory_bytes / 1024, 1, 1024,
                "shared memory per block without opt-in, KB",
                [](const SolderOptions &o) { return kb_text(o.planner.device.shared_memory_bytes); },
                [](SolderOptions &o, int64_t v) { o.planner.device.shared_memory_bytes = v * 1024; }),
            integer(
                "shared_memory_optin_kb", 0, 0, 1024,
                "shared memory per block above 48 KB where the program opts in, KB (the plugin's default: 0; "
                "Solder's own libraries opt in up to 227)",
                [](const SolderOptions &o) { return kb_text(o.planner.device.shared_memory_optin_bytes); },
                [](SolderOptions &o, int64_t v) { o.planner.device.shared_memory_optin_bytes = v * 1024; }),
            integer(
                "time_budget_ms", d.time_budget_ms, 1, 3600 * 1000, "the search's safety net, milliseconds",
                [](const SolderOptions &o) { return std::to_string(o.planner.time_budget_ms); },
                [](SolderOptions &o, int64_t v) { o.planner.time_budget_ms = int(v); }),
            {{"keep_unfused", "names", "", "Funcs always stored (a debugging knob): comma-separated names"},
             [](SolderOptions &o, const std::string &what, const std::string &v) {
                 for (const std::string &w : comma_words(v)) {
                     if (w.empty())
                         throw std::invalid_argument(printable(what) + " has an empty Func name in '" + printable(v) +
                                                     "'");
                     o.planner.keep_unfused.insert(w);
                 }
             },
             [](const SolderOptions &o) {  // a set: sorted, each name once
                 std::string s;
                 for (auto &f : o.planner.keep_unfused) s += (s.empty() ? "" : ",") + f;
                 return s;
             }},
        };
    }();
    return table;
}

// The one lookup of a word, and the one message for a word that is not there.
const KnobEntry &find_knob(const std::string &word, const std::string &where, Way way) {
    std::string valid;
    for (auto &e : knob_table()) {
        if (!e.takes(way)) continue;
        if (e.knob.name == word) return e;
        valid += (valid.empty() ? "" : ", ") + e.knob.name;
    }
    throw UnknownNameError("unknown word '" + printable(word) + "' in " + printable(where) + " (valid: " + valid + ")");
}

void set_flags(SolderOptions &o, const std::string &words, bool on, const std::string &where) {
    for (const std::string &w : comma_words(words))
        find_knob(w, where, Way::FlagList).set(o, where + " " + w, on ? "1" : "0");
}

}  // namespace

const std::vector<Knob> &solder_knobs() {
    static const std::vector<Knob> knobs = [] {
        std::vector<Knob> k;
        for (auto &e : knob_table()) k.push_back(e.knob);
        return k;
    }();
    return knobs;
}

void SolderOptions::disable(const std::string &words) { set_flags(*this, words, false, "SOLDER_DISABLE / --disable"); }

void SolderOptions::enable(const std::string &words) { set_flags(*this, words, true, "SOLDER_ENABLE / --enable"); }

void SolderOptions::set(const std::string &key, const std::string &value, const std::string &where) {
    const std::string name = where.empty() ? "autoscheduler." + key : where;
    find_knob(key, name, Way::Parameter).set(*this, name, value);
}

std::string SolderOptions::canonical_text() const {
    std::string s;
    for (auto &e : knob_table()) s += e.knob.name + "=" + e.text(*this) + "\n";
    // No knob sets these; code may, and a plan made with other values may differ.
    const PlannerOptions &p = planner;
    const autosched::DeviceProfile &d = p.device;
    s += "gpu=" + std::to_string(p.gpu) + "\nexact_max_free=" + std::to_string(p.exact_max_free) +
         "\nsearch_max_evaluations=" + std::to_string(p.search_max_evaluations) +
         "\nsearch_max_work=" + std::to_string(p.search_max_work) +
         "\ndevice.bandwidth_bytes_per_s=" + exact_text(d.bandwidth_bytes_per_s) +
         "\ndevice.flops_per_s=" + exact_text(d.flops_per_s) + "\ndevice.launch_us=" + exact_text(d.launch_us) +
         "\ndevice.blocks_per_sm_to_fill=" + std::to_string(d.blocks_per_sm_to_fill) +
         "\ndevice.shared_memory_per_sm=" + std::to_string(d.shared_memory_per_sm) +
         "\ndevice.l2_bytes=" + std::to_string(d.l2_bytes) + "\n";
    return s;
}

SolderOptions SolderOptions::from_environment() {
    SolderOptions o;
    if (const char *d = std::getenv("SOLDER_DISABLE")) o.disable(d);
    if (const char *e = std::getenv("SOLDER_ENABLE")) o.enable(e);
    if (const char *k = std::getenv("SOLDER_KEEP_UNFUSED")) o.set("keep_unfused", k, "SOLDER_KEEP_UNFUSED");
    return o;
}

}  // namespace solder
