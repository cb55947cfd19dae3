"""The user-pipeline bench's results as a Markdown table: reads what `runner all SCHEDULERS` printed
(one line per pipeline and scheduler) and prints, per pipeline, each scheduler's median us (or why
there is none), Solder's ratio against the fastest other scheduler that matched its reference, and
a summary: how many libraries matched, the geometric mean of the ratios, the pipelines where Solder
is slower.

    python3 bench/user_pipelines/table.py RUNNER_OUTPUT [--schedulers li2018,anderson2021,solder]
"""
import math
import re
import sys

LINE = re.compile(r"^(\S+)\s+(\S+)\s+(?:([0-9.]+) us\s+difference (\S+)(\s+MISMATCH)?|failed: error (-?\d+))\s*$")


def main():
    args = sys.argv[1:]
    schedulers = ["li2018", "anderson2021", "solder"]
    if "--schedulers" in args:
        i = args.index("--schedulers")
        schedulers = args[i + 1].split(",")
        del args[i:i + 2]
    rows = {}
    for line in open(args[0]):
        m = LINE.match(line.strip())
        if not m:
            continue
        name, sched = m.group(1), m.group(2)
        if m.group(6) is not None:
            cell = ("error " + m.group(6), None)
        elif m.group(5):
            cell = ("wrong", None)
        else:
            cell = (m.group(3), float(m.group(3)))
        rows.setdefault(name, {})[sched] = cell
    print("| pipeline | " + " | ".join(schedulers) + " | Solder vs best other |")
    print("|---|" + "---:|" * (len(schedulers) + 1))
    ratios, slower, matched, total = [], [], 0, 0
    for name in sorted(rows):
        r = rows[name]
        cells = []
        for s in schedulers:
            text, us = r.get(s, ("-", None))
            cells.append(text)
            total += s in r
            matched += us is not None
        ours = r.get("solder", (None, None))[1]
        others = [r[s][1] for s in schedulers if s != "solder" and s in r and r[s][1] is not None]
        ratio = ""
        if ours and others:
            q = min(others) / ours
            ratios.append(q)
            ratio = f"{q:.2f}x"
            if q < 1:
                slower.append(f"{name} {q:.2f}x")
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
    print()
    print(f"{matched} of {total} libraries matched their reference; {len(rows)} pipelines.")
    if ratios:
        g = math.exp(sum(math.log(q) for q in ratios) / len(ratios))
        print(f"Solder against the fastest other scheduler that matched, over {len(ratios)} pipelines: "
              f"geometric mean {g:.2f}x; slower on {len(slower)}: {', '.join(slower)}")
    bad = [f"{n} ({r['solder'][0]})" for n, r in sorted(rows.items()) if "solder" in r and r["solder"][1] is None]
    if bad:
        print("Solder libraries that did not match or failed: " + ", ".join(bad))


if __name__ == "__main__":
    main()
