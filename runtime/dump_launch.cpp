#include <algorithm>
#include <set>
#include <sstream>

#include "runtime/run_dumps.h"

namespace solder {

namespace {
std::string dims(const uint32_t d[3]) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}
std::string pad(std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s; }
}  // namespace

std::string format_launch_dump(const RunReport &r, const std::vector<PlannedKernel> &plan, const std::string &target) {
    std::ostringstream o;
    if (target == "host") {
        o << "target host launches no kernels: the pipeline runs as loop nests on the CPU\n";
        return o.str();
    }
    std::set<std::string> distinct;
    size_t name_w = 6, plan_w = 11;
    for (auto &l : r.launches) {
        distinct.insert(l.kernel);
        name_w = std::max(name_w, std::string(l.kernel).size());
        if (auto *k = planned_kernel_of_launch(plan, l.kernel)) plan_w = std::max(plan_w, k->name.size());
    }
    o << r.launches_per_run << " kernel launches in one call, " << distinct.size() << " distinct kernels ("
      << (target == "cuda" ? "grid and block from cuLaunchKernel; shared = dynamic shared memory"
                           : "grid = work-groups, block = work-items per group; shared = local memory passed to "
                             "clSetKernelArg, at least 1 byte from Halide even when the kernel uses none")
      << ")\n";
    if (r.launches_per_run > int64_t(r.launches.size()))
        o << "only the first " << r.launches.size() << " launches were recorded\n";
    o << "  " << pad("#", 4) << pad("kernel", name_w + 2) << (plan.empty() ? "" : pad("plan kernel", plan_w + 2))
      << pad("grid", 16) << pad("block", 14) << pad("threads", 12) << "shared (bytes)\n";
    for (size_t i = 0; i < r.launches.size(); i++) {
        const solder_launch_record &l = r.launches[i];
        const PlannedKernel *k = planned_kernel_of_launch(plan, l.kernel);
        uint64_t threads = uint64_t(l.grid[0]) * l.grid[1] * l.grid[2] * l.block[0] * l.block[1] * l.block[2];
        o << "  " << pad(std::to_string(i), 4) << pad(l.kernel, name_w + 2)
          << (plan.empty() ? "" : pad(k ? k->name : "-", plan_w + 2)) << pad(dims(l.grid), 16) << pad(dims(l.block), 14)
          << pad(std::to_string(threads), 12) << l.shared_bytes << "\n";
    }
    return o.str();
}

}  // namespace solder
