#include "runtime/run_dumps.h"

namespace solder {

void write_run_dumps(const DumpWriter &dumps, const RunReport &r, const PipelineLibrary &lib, int runs) {
    if (!dumps.on("launch") && !dumps.on("bandwidth")) return;
    std::vector<PlannedKernel> plan;
    std::string note;
    try {
        plan = decode_planned_kernels(lib.info("plan_kernels"));
    } catch (const std::exception &e) {
        note = "(" + lib.path() + ": " + e.what() + "; kernels shown without their plan)\n";
    }
    std::string target = lib.info("target");
    if (!r.ran) {
        for (std::string w : {"launch", "bandwidth"})
            if (dumps.on(w)) dumps.print(w, "no " + w + " dump: the run failed (" + r.error + ")\n");
        return;
    }
    if (dumps.on("launch")) dumps.print("launch", note + format_launch_dump(r, plan, target));
    if (dumps.on("bandwidth")) dumps.print("bandwidth", note + format_bandwidth_dump(r, plan, target, runs));
}

}  // namespace solder
