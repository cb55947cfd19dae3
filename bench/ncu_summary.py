"""One line per profiled kernel from an `ncu` text report: duration, achieved DRAM bandwidth (% of
peak), achieved / theoretical occupancy and what limits it, registers, local-memory (spill)
traffic, and the largest warp stall reason. Used by bench/profile_gpu.sh."""
import re
import sys

app, path = sys.argv[1], sys.argv[2]
text = open(path, errors="replace").read()
# Each kernel's report starts with a line "  <kernel name> (grid)x(block), Context 1, Stream ..".
heads = list(re.finditer(r"^  (\S+) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context", text, re.M))
if not heads:
    print(f"{app}: no kernels profiled; first lines of the report:\n" + "\n".join(text.splitlines()[:15]))
for i, h in enumerate(heads):
    body = text[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)]

    def metric(name):
        m = re.search(r"^\s+" + re.escape(name) + r"\s+(?:(\S+)\s+)?([\d.,]+)\s*$", body, re.M)
        return (m.group(2).replace(",", ""), m.group(1) or "") if m else ("?", "")

    dur, unit = metric("Duration")
    dram, _ = metric("DRAM Throughput")
    occ, _ = metric("Achieved Occupancy")
    theo, _ = metric("Theoretical Occupancy")
    regs, _ = metric("Registers Per Thread")
    limit = re.search(r"Block Limit (\w+)\s+block\s+(\d+)", body)
    limits = {m.group(1): int(m.group(2)) for m in re.finditer(r"Block Limit (\w+(?: \w+)?)\s+block\s+(\d+)", body)}
    worst = min(limits, key=limits.get) if limits else "?"
    spills, _ = metric("Local Memory Spilling Requests")
    local = f"spill requests {spills}"
    stall = re.search(r"(?:stalled|stall)[^.]*?(?:on|waiting for|due to) ([^.]{0,80})", body, re.I)
    grid = int(h.group(2)) * int(h.group(3)) * int(h.group(4))
    block = int(h.group(5)) * int(h.group(6)) * int(h.group(7))
    print(f"{app:42s} {h.group(1)[:48]:48s} grid {grid:7d} block {block:4d} {dur:>9s} {unit:6s} "
          f"DRAM {dram:>5s}%  occ {occ:>5s}/{theo:>5s}% (limit: {worst})  regs {regs:>3s} {local}"
          + (f"  stall: {' '.join(stall.group(1).split())}" if stall else ""))
