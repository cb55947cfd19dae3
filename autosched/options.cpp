#include "autosched/options.h"

#include <cstdlib>
#include <stdexcept>

#include "runtime/comma_words.h"
#include "runtime/unknown_name_error.h"

namespace solder::autosched {

void apply_disable_list(PlannerOptions &opt, const std::string &list) {
    for (const std::string &w : comma_words(list)) {
        if (w == "horizontal") opt.horizontal = false;
        else if (w == "remat") opt.remat = false;
        else if (w == "compute_at") opt.compute_at = false;
        else if (w == "exact") opt.exact_search = false;
        else if (w == "fallback" || w == "fast_math") continue;  // runtime knobs, not the planner's
        else
            throw UnknownNameError("unknown word '" + w +
                                   "' in SOLDER_DISABLE / --disable (valid: horizontal, remat, compute_at, exact, fallback, fast_math)");
    }
}

void apply_enable_list(PlannerOptions &opt, const std::string &list) {
    for (const std::string &w : comma_words(list)) {
        if (w == "single_kernel_groups") opt.single_kernel_groups = true;
        else if (w == "staging") opt.stage_rows = true;
        else if (w == "fewest_bytes") opt.fewest_bytes = true;
        else
            throw UnknownNameError("unknown word '" + w +
                                   "' in SOLDER_ENABLE / --enable (valid: single_kernel_groups, staging, fewest_bytes)");
    }
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
    if (const char *k = std::getenv("SOLDER_KEEP_UNFUSED"))
        for (const std::string &w : comma_words(k)) opt.keep_unfused.insert(w);
    return opt;
}

}  // namespace solder::autosched
