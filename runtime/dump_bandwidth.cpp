#include <algorithm>
#include <cstdio>
#include <sstream>

#include "runtime/run_dumps.h"
#include "core/text_format.h"

namespace solder {

namespace {

// One row: a planned kernel with all its launches (a reduction's init and update stages are two),
// or a single launch no planned kernel claims.
struct Row {
    std::string name;
    int launches = 0;
    double us = 0;
    bool timed = true;
    const PlannedKernel *plan = nullptr;
};

}  // namespace

std::string format_bandwidth_dump(const RunReport &r, const std::vector<PlannedKernel> &plan, const std::string &target,
                                  int runs, const autosched::DeviceProfile &device) {
    std::ostringstream o;
    if (target == "host") return "target host launches no kernels: no per-kernel device time\n";
    if (r.launch_us.empty())
        return "no per-kernel times: this library cannot time launches (built before Solder's hooks could) or the "
               "timing runs failed\n";
    double peak_gbps = device.bandwidth_bytes_per_s / 1e9;
    std::vector<Row> rows;
    for (size_t i = 0; i < r.launches.size() && i < r.launch_us.size(); i++) {
        const PlannedKernel *k = planned_kernel_of_launch(plan, r.launches[i].kernel);
        auto it = k ? std::find_if(rows.begin(), rows.end(), [&](const Row &x) { return x.plan == k; }) : rows.end();
        if (it == rows.end()) {
            rows.push_back({k ? k->name : std::string(r.launches[i].kernel), 0, 0, true, k});
            it = rows.end() - 1;
        }
        it->launches++;
        if (r.launch_us[i] < 0)
            it->timed = false;
        else
            it->us += r.launch_us[i];
    }
    size_t name_w = 6;
    for (auto &row : rows) name_w = std::max(name_w, row.name.size());
    o << "device time per kernel: median of " << runs << " runs, from "
      << (target == "cuda" ? "CUDA events around each cuLaunchKernel" : "OpenCL profiling events (start to end)")
      << "; bytes from Solder's plan; % of the " << fmt("%.0f", peak_gbps)
      << " GB/s peak in autosched/model/device_profile.h (the H100)\n";
    if (plan.empty()) o << "no Solder plan in this library (schedule is not solder): times only\n";
    o << "  " << pad("kernel", name_w + 2) << pad("launches", 10) << pad("time (us)", 12) << pad("read", 12)
      << pad("written", 12) << pad("GB/s", 10) << "% of peak\n";
    double sum_us = 0;
    int64_t sum_bytes = 0;
    bool all_bytes = !rows.empty();
    for (auto &row : rows) {
        o << "  " << pad(row.name, name_w + 2) << pad(std::to_string(row.launches), 10)
          << pad(row.timed ? fmt("%.3f", row.us) : "-", 12);
        if (row.plan) {
            int64_t b = row.plan->bytes_read + row.plan->bytes_written;
            sum_bytes += b;
            o << pad(bytes_str(row.plan->bytes_read), 12) << pad(bytes_str(row.plan->bytes_written), 12);
            if (row.timed && row.us > 0) {
                double gbps = double(b) / (row.us * 1e3);
                o << pad(fmt("%.2f", gbps), 10) << fmt("%.1f", 100 * gbps / peak_gbps);
            } else {
                o << pad("-", 10) << "-";
            }
        } else {
            all_bytes = false;
            o << pad("-", 12) << pad("-", 12) << pad("-", 10) << "-";
        }
        o << "\n";
        if (row.timed) sum_us += row.us;
    }
    o << "kernels: " << fmt("%.3f", sum_us) << " us of device time";
    if (all_bytes && sum_us > 0)
        o << ", " << bytes_str(sum_bytes) << " moved, " << fmt("%.2f", double(sum_bytes) / (sum_us * 1e3)) << " GB/s";
    o << "\n";
    o << "pipeline: minimum bytes " << bytes_str(r.min_bytes) << " (inputs read once, outputs written once) / "
      << fmt("%.3f", r.median_us) << " us median wall time = " << fmt("%.2f", r.effective_gbps()) << " GB/s ("
      << fmt("%.1f", 100 * r.effective_gbps() / peak_gbps) << "% of peak)\n";
    return o.str();
}

}  // namespace solder
