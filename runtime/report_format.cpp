#include "runtime/report_format.h"

#include <cstdio>
#include <sstream>

#include "core/quoted.h"
#include "core/text_format.h"

namespace solder {

int64_t kernel_count(const RunContext &ctx, const RunReport &r) {
    return ctx.target == "host" ? ctx.loop_nests : r.launches_per_run;
}

std::string format_report(const RunContext &ctx, const RunReport &r) {
    std::ostringstream o;
    o << ctx.app << " (" << ctx.size << ")  schedule " << ctx.schedule << "  target " << ctx.target;
    if (!ctx.device.empty()) o << "  on " << ctx.device;
    o << "\n";
    if (!r.fallback.empty()) o << "  fallback: " << r.fallback << "\n";
    if (ctx.compile_s > 0)
        o << "  compiled in " << fmt("%.1f", ctx.compile_s) << " s, " << ctx.loop_nests << " Funcs at root\n";
    if (!r.ran) {
        o << "  error: " << r.error << "\nFAIL\n";
        return o.str();
    }
    for (auto &c : r.checks)
        o << "  " << c.name << ": max abs error " << fmt("%.3g", c.max_abs_err) << ", worst "
          << fmt("%.3g", c.worst_ratio) << " of tolerance" << (c.pass ? "" : "  <-- FAIL") << "\n";
    o << "  kernels " << kernel_count(ctx, r) << (ctx.target == "host" ? " loop nests" : " launches per run")
      << ", time " << fmt("%.1f", r.median_us) << " us (median), " << fmt("%.2f", r.effective_gbps())
      << " GB/s effective\n";
    if (r.wall_us > 0 && r.wall_us != r.median_us)
        o << "  (device events; host clock around call and synchronization: " << fmt("%.1f", r.wall_us) << " us)\n";
    if (!r.error.empty()) o << "  error: " << r.error << "\n";
    o << (r.pass ? "PASS" : "FAIL") << "\n";
    return o.str();
}

std::string result_json_line(const RunContext &ctx, const RunReport &r) {
    std::ostringstream o;
    o << "SOLDER_RESULT {\"app\":" << quote_literal(ctx.app) << ",\"schedule\":" << quote_literal(ctx.schedule)
      << ",\"target\":" << quote_literal(ctx.target) << ",\"size\":" << quote_literal(ctx.size)
      << ",\"device\":" << quote_literal(ctx.device) << ",\"kernels\":" << kernel_count(ctx, r)
      << ",\"launches\":" << r.launches_per_run << ",\"loop_nests\":" << ctx.loop_nests
      << ",\"max_err\":" << fmt("%.6g", r.max_abs_err) << ",\"us\":" << fmt("%.3f", r.median_us)
      << ",\"wall_us\":" << fmt("%.3f", r.wall_us) << ",\"min_bytes\":" << r.min_bytes
      << ",\"tbps\":" << fmt("%.4f", r.effective_gbps() / 1000.0) << ",\"pass\":" << (r.pass ? "true" : "false")
      << ",\"error\":" << quote_literal(r.error) << ",\"fallback\":" << quote_literal(r.fallback) << "}";
    return o.str();
}

}  // namespace solder
