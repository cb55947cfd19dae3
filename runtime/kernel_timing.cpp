#include "runtime/kernel_timing.h"

#include <algorithm>

namespace solder {

std::vector<double> median_launch_times(PipelineLibrary &lib, int runs, const std::function<bool()> &call) {
    if (!lib.set_timing(SOLDER_TIMING_ON)) return {};
    std::vector<std::vector<float>> per_run;
    for (int r = 0; r < runs; r++) {
        lib.reset_launches();
        if (!call()) break;
        per_run.push_back(lib.launch_times_us());
    }
    // The queue keeps its profiling flag; READY only stops timing further launches.
    lib.set_timing(SOLDER_TIMING_READY);
    if (per_run.empty()) return {};
    size_t launches = per_run[0].size();
    for (auto &t : per_run) launches = std::min(launches, t.size());
    std::vector<double> median(launches, -1);
    for (size_t i = 0; i < launches; i++) {
        std::vector<float> v;
        for (auto &t : per_run)
            if (t[i] >= 0) v.push_back(t[i]);
        if (v.empty()) continue;
        std::sort(v.begin(), v.end());
        median[i] = v[v.size() / 2];
    }
    return median;
}

}  // namespace solder
