#include "runtime/app_runner.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "runtime/kernel_timing.h"
#include "runtime/event_timer.h"
#include "runtime/l2_flush.h"

namespace solder {

namespace {

std::vector<halide_buffer_t *> raw(std::vector<HostBuffer> &bs) {
    std::vector<halide_buffer_t *> r;
    for (auto &b : bs) r.push_back(b.raw_buffer());
    return r;
}

// Halide's device_sync waits for the whole device (CUDA context, OpenCL queue), not for one buffer:
// one sync per device interface is enough. Syncing each output took 200 driver calls (about 300 us
// of host clock) per call of many_small.
int sync_outputs(std::vector<HostBuffer> &outs) {
    std::vector<const halide_device_interface_t *> synced;
    for (auto &b : outs) {
        const halide_device_interface_t *di = b.raw_buffer()->device_interface;
        if (!di || std::find(synced.begin(), synced.end(), di) != synced.end()) continue;
        if (int rc = b.device_sync()) return rc;
        synced.push_back(di);
    }
    return 0;
}

}  // namespace

RunReport run_app(const AppSpec &app, PipelineLibrary &lib, const RunOptions &opt) {
    RunReport rep;
    AppIO io = app.io(opt.size);
    rep.min_bytes = app.min_bytes(opt.size);
    std::vector<HostBuffer> ins, outs;
    for (auto &t : io.inputs) ins.push_back(make_host_buffer(t));
    for (auto &t : io.outputs) outs.push_back(make_host_buffer(t));
    app.make_inputs(ins, opt.seed);
    for (auto &b : ins) b.set_host_dirty();
    for (auto &b : outs) poison(b);
    std::vector<std::pair<std::string, double>> scalars;
    for (auto &s : io.scalars) scalars.emplace_back(s.name, s.value);

    // OpenCL creates its queue on the first call; a profiling queue is needed to time kernels later.
    if (opt.time_kernels) lib.set_timing(SOLDER_TIMING_READY);
    lib.reset_launches();
    std::string err;
    if (lib.call(raw(ins), raw(outs), &err, scalars) != 0 || sync_outputs(outs) != 0) {
        rep.error = app.name + ": " + (err.empty() ? "device synchronization failed" : err);
        return rep;
    }
    rep.launches_per_run = lib.launches();
    rep.launches = lib.launch_records();
    rep.ran = true;
    for (auto &b : outs)
        if (b.raw_buffer()->device_interface) b.copy_to_host();

    rep.pass = true;
    if (opt.check) {
        std::vector<HostBuffer> refs;
        for (auto &t : io.outputs) refs.push_back(make_host_buffer(t));
        app.reference(ins, refs);
        for (size_t i = 0; i < io.outputs.size(); i++) {
            auto it = app.tolerance.find(io.outputs[i].name);
            const Tolerance &tol = it != app.tolerance.end() ? it->second : app.default_tolerance;
            OutputCheck c = check_output(io.outputs[i], outs[i], refs[i], tol);
            rep.max_abs_err = std::max(rep.max_abs_err, c.max_abs_err);
            rep.pass = rep.pass && c.pass;
            rep.checks.push_back(c);
        }
    }

    std::unique_ptr<L2Flusher> flusher;
    if (opt.flush_l2) flusher = std::make_unique<L2Flusher>();
    // On a GPU: device time between events around the call, the flush still running before it
    // (do_bench's way, so that torch.compile's numbers and ours are alike); then the host clock
    // around call and synchronization, flushed and waited for first (launch overhead included).
    std::unique_ptr<EventTimer> events;
    if (flusher && flusher->active()) events = std::make_unique<EventTimer>();
    auto timed = [&](bool device_events, std::vector<double> &us) {
        for (int i = 0; i < opt.warmup + opt.iters; i++) {
            if (flusher) device_events ? flusher->flush_async() : flusher->flush();
            if (device_events) events->start();
            auto t0 = std::chrono::steady_clock::now();
            if (lib.call(raw(ins), raw(outs), &err, scalars) != 0) {
                rep.error = app.name + ": failed on timing run " + std::to_string(i) + ": " + err;
                return false;
            }
            const double device_us = device_events ? events->stop_us() : 0;
            if (sync_outputs(outs) != 0 || device_us < 0) {
                rep.error = app.name + ": device synchronization failed on timing run " + std::to_string(i);
                return false;
            }
            auto t1 = std::chrono::steady_clock::now();
            if (i >= opt.warmup)
                us.push_back(device_events ? device_us : std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
        return true;
    };
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    std::vector<double> event_us, wall_us;
    if ((events && events->active() && !timed(true, event_us)) || !timed(false, wall_us)) {
        rep.pass = false;
        return rep;
    }
    rep.wall_us = median(wall_us);
    rep.median_us = event_us.empty() ? rep.wall_us : median(event_us);
    if (opt.time_kernels && !rep.launches.empty())
        rep.launch_us = median_launch_times(lib, opt.iters, [&] {
            if (flusher) flusher->flush();
            return lib.call(raw(ins), raw(outs), &err, scalars) == 0 && sync_outputs(outs) == 0;
        });
    return rep;
}

}  // namespace solder
