#!/usr/bin/env python3
"""Turns the logs of one run on the GPU (bench/run_gpu.sh: solder-exec's SOLDER_RESULT lines and
torch_peers.py's RESULTS_JSON line) into bench/results.json, the chart bench/bandwidth.svg
(effective TB/s per app: Solder, the best Halide auto-scheduler, torch.compile) and, on stdout, the
two tables of bench/RESULTS.md.

    python3 bench/make_results.py LOG_DIR [LATER_LOG_DIR...] > tables.md

Each row of results.json records its run as "call": the log folder's name, so name it after the
GPU and the date (bench/logs/h100-2026-11-23). With several folders, an app measured in a later
one is taken whole from it.
"""
import json, sys, os

CEILING_TBPS = 3.0
PEER = {"add_relu": "add_relu", "nnc_cast_add_mul": "nnc_cast_add_mul",
        "puzzler_slices": "puzzler_split_ln_tanh_only", "nvfuser_2146": "nvfuser_2146_ln_bwd",
        "rmsnorm": "rmsnorm_fwd_bf16", "softmax": "softmax_bf16", "layernorm": "layernorm_fwd_bf16",
        "bias_gelu": "bias_gelu_bf16", "many_small": "horizontal_200_small"}
ORDER = ["unfused", "solder", "li2018", "mullapudi2016", "anderson2021"]

def read_call(log_dir):
    """Rows of one run: solder-exec's results and, where present, the torch peers'."""
    device = open(os.path.join(log_dir, "device.txt")).read().strip().split(",")[0]
    call = os.path.basename(os.path.normpath(log_dir))
    rows = []
    for line in open(os.path.join(log_dir, "solder.log")):
        if line.startswith("SOLDER_RESULT "):
            r = json.loads(line[len("SOLDER_RESULT "):])
            rows.append({"app": r["app"], "schedule": r["schedule"], "kernels": r["launches"],
                         "us": r["us"] if r["pass"] else None, "tbps": r["tbps"] if r["pass"] else None,
                         "wall_us": r.get("wall_us") if r["pass"] else None,
                         "pass": r["pass"], "max_err": r["max_err"], "min_bytes": r["min_bytes"],
                         "error": r["error"], "device": device, "call": call})
    peers = {}
    for line in open(os.path.join(log_dir, "peers.log")):
        if line.startswith("RESULTS_JSON "):
            for p in json.loads(line[len("RESULTS_JSON "):]):
                peers[p["name"]] = p
    for app, peer in PEER.items():
        p = peers.get(peer)
        if not p:
            continue
        for mode in ("eager", "compile"):
            if mode + "_us" in p:
                rows.append({"app": app, "schedule": "torch." + mode, "kernels": None, "us": p[mode + "_us"],
                             "tbps": p[mode + "_TBps"], "pass": True, "device": device, "call": call})
    return rows


def fmt_us(us):
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def cell(rows, app, schedule):
    """One schedule's time for an app: µs, "fails" where it built but failed its run or its check,
    "-" where no library was built (bench/known_slow_builds.txt, or a failed build)."""
    r = next((r for r in rows if r["app"] == app and r["schedule"] == schedule), None)
    if r is None:
        return "-"
    return fmt_us(r["us"]) if r["us"] is not None else "fails"


def print_tables(rows):
    """The two tables of bench/RESULTS.md: apps with a torch peer (the ML apps) and apps without
    (the image apps and the pipelines written as Halide users write them). Times in µs; Solder's
    effective bandwidth is min bytes / median time; ratios are the peer's time over Solder's."""
    apps = []
    for r in rows:
        if r["app"] not in apps:
            apps.append(r["app"])
    halide = ["unfused", "li2018", "mullapudi2016", "anderson2021"]
    with_peer = [a for a in apps if any(r["app"] == a and r["schedule"] == "torch.compile" for r in rows)]
    without = [a for a in apps if a not in with_peer]

    def solder(app):
        return next((r for r in rows if r["app"] == app and r["schedule"] == "solder" and r["us"]), None)

    def best_halide(app):
        done = [r for r in rows if r["app"] == app and r["schedule"] in halide[1:] and r["us"]]
        return min(done, key=lambda r: r["us"]) if done else None

    def solder_cells(s):
        if s is None:
            return "fails | - | -"
        return (f"**{fmt_us(s['us'])}** | {s['tbps']:.2f} ({100 * s['tbps'] / CEILING_TBPS:.0f}%) | "
                f"{s['kernels']}")

    if with_peer:
        print("| app | unfused | Li2018 | Mullapudi2016 | Anderson2021 | torch eager | torch.compile "
              "| Solder | Solder TB/s (% of 3.0) | Solder launches | Solder vs torch.compile | Solder vs best Halide |")
        print("|---|" + "---:|" * 11)
        for app in with_peer:
            s, b = solder(app), best_halide(app)
            comp = next(r["us"] for r in rows if r["app"] == app and r["schedule"] == "torch.compile")
            vs_comp = f"{comp / s['us']:.2f}x" if s else "-"
            vs_best = f"{b['us'] / s['us']:.2f}x" if s and b else "-"
            cells = [cell(rows, app, h) for h in halide] + [cell(rows, app, "torch.eager"), cell(rows, app, "torch.compile")]
            print(f"| {app} | " + " | ".join(cells) + f" | {solder_cells(s)} | {vs_comp} | {vs_best} |")
        print()
    if without:
        print("| app | unfused | Li2018 | Mullapudi2016 | Anderson2021 | Solder | Solder TB/s (% of 3.0) "
              "| Solder launches | Solder vs best Halide |")
        print("|---|" + "---:|" * 8)
        for app in without:
            s, b = solder(app), best_halide(app)
            vs_best = f"{b['us'] / s['us']:.2f}x ({b['schedule']})" if s and b else "-"
            cells = [cell(rows, app, h) for h in halide]
            print(f"| {app} | " + " | ".join(cells) + f" | {solder_cells(s)} | {vs_best} |")
        print()
    for r in rows:
        if r["us"] is None:
            print(f"- {r['app']} / {r['schedule']} fails: {r.get('error', '')[:120]}")


def main():
    # Several calls: an app measured by a later call is taken whole from it (all its schedules
    # and peers), so that every app's rows still come from one call, side by side.
    rows = []
    for log_dir in sys.argv[1:]:
        later = read_call(log_dir)
        apps = {r["app"] for r in later}
        rows = [r for r in rows if r["app"] not in apps] + later
    json.dump(rows, open(os.path.join(os.path.dirname(__file__), "results.json"), "w"), indent=1)
    write_chart(rows, os.path.join(os.path.dirname(__file__), "bandwidth.svg"))
    print_tables(rows)


def write_chart(rows, path):
    """Horizontal bars, one group per app, against the 3.0 TB/s ceiling. Plain SVG: no plotting
    library is installed where this runs."""
    series = [("Solder", "#1f77b4", lambda r: r["schedule"] == "solder"),
              ("best Halide auto-scheduler", "#8c8c8c",
               lambda r: r["schedule"] in ("li2018", "mullapudi2016", "anderson2021", "adams2019")),
              ("torch.compile", "#ff7f0e", lambda r: r["schedule"] == "torch.compile")]
    apps = []
    for r in rows:
        if r["app"] not in apps:
            apps.append(r["app"])
    left, bar, gap, width = 150, 11, 10, 520
    top = 40
    height = top + len(apps) * (3 * bar + gap) + 40
    scale = width / CEILING_TBPS
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 120}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="16" font-size="13">Effective bandwidth on the H100 (min bytes / median time), '
           f'TB/s</text>']
    for i, (name, color, _) in enumerate(series):
        out.append(f'<rect x="{left + i * 190}" y="24" width="10" height="10" fill="{color}"/>'
                   f'<text x="{left + i * 190 + 14}" y="33">{name}</text>')
    y = top
    for app in apps:
        out.append(f'<text x="{left - 6}" y="{y + 1.5 * bar + 4}" text-anchor="end">{app}</text>')
        for k, (name, color, pick) in enumerate(series):
            vals = [r["tbps"] for r in rows if r["app"] == app and r.get("tbps") and pick(r)]
            if vals:
                v = max(vals)
                out.append(f'<rect x="{left}" y="{y + k * bar}" width="{max(1.0, v * scale):.1f}" '
                           f'height="{bar - 1}" fill="{color}"/>'
                           f'<text x="{left + v * scale + 4:.1f}" y="{y + k * bar + bar - 2}" '
                           f'font-size="9">{v:.2f}</text>')
        y += 3 * bar + gap
    for t in range(4):
        x = left + t * scale
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{y}" stroke="#ccc"/>'
                   f'<text x="{x:.1f}" y="{y + 14}" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{left + width}" y="{y + 28}" text-anchor="end">3.0 TB/s: measured copy ceiling</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")

main()
