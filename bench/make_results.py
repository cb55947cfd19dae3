#!/usr/bin/env python3
"""Turns one device call's logs (solder-exec's SOLDER_RESULT lines and torch_peers.py's
RESULTS_JSON line) into bench/results.json and the table in bench/RESULTS.md.

    python3 bench/make_results.py LOG_DIR "exact command" > table.md
"""
import json, sys, os

CEILING_TBPS = 3.0
PEER = {"add_relu": "add_relu", "nnc_cast_add_mul": "nnc_cast_add_mul",
        "puzzler_slices": "puzzler_split_ln_tanh_only", "nvfuser_2146": "nvfuser_2146_ln_bwd",
        "rmsnorm": "rmsnorm_fwd_bf16", "softmax": "softmax_bf16", "layernorm": "layernorm_fwd_bf16",
        "bias_gelu": "bias_gelu_bf16", "many_small": "horizontal_200_small"}
ORDER = ["unfused", "solder", "li2018", "mullapudi2016", "anderson2021"]

def main():
    log_dir = sys.argv[1]
    device = open(os.path.join(log_dir, "device.txt")).read().strip().split(",")[0]
    rows = []
    for line in open(os.path.join(log_dir, "solder.log")):
        if line.startswith("SOLDER_RESULT "):
            r = json.loads(line[len("SOLDER_RESULT "):])
            rows.append({"app": r["app"], "schedule": r["schedule"], "kernels": r["launches"],
                         "us": r["us"] if r["pass"] else None, "tbps": r["tbps"] if r["pass"] else None,
                         "wall_us": r.get("wall_us") if r["pass"] else None,
                         "pass": r["pass"], "max_err": r["max_err"], "min_bytes": r["min_bytes"],
                         "error": r["error"], "device": device})
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
                             "tbps": p[mode + "_TBps"], "pass": True, "device": device})
    json.dump(rows, open(os.path.join(os.path.dirname(__file__), "results.json"), "w"), indent=1)

    # µs: device time between CUDA events (do_bench's way, as torch's); host µs: the host clock
    # around call and synchronization (launch overhead included; Solder's and Halide's libraries only).
    print("| app | schedule | kernels | µs | TB/s | % of 3.0 TB/s | speed vs torch.compile | host µs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    apps = []
    for r in rows:
        if r["app"] not in apps:
            apps.append(r["app"])
    for app in apps:
        comp = next((r["us"] for r in rows if r["app"] == app and r["schedule"] == "torch.compile"), None)
        mine = [r for r in rows if r["app"] == app]
        mine.sort(key=lambda r: (ORDER.index(r["schedule"]) if r["schedule"] in ORDER else 9, r["schedule"]))
        for r in mine:
            if r["us"] is None:
                print(f"| {app} | {r['schedule']} | - | - | - | - | FAIL: {r.get('error','')[:80]} | - |")
                continue
            ratio = f"{comp / r['us']:.2f}x" if comp else "-"
            k = "-" if r["kernels"] is None else r["kernels"]
            wall = f"{r['wall_us']:.1f}" if r.get("wall_us") else "-"
            print(f"| {app} | {r['schedule']} | {k} | {r['us']:.1f} | {r['tbps']:.2f} | "
                  f"{100 * r['tbps'] / CEILING_TBPS:.0f}% | {ratio} | {wall} |")

main()
