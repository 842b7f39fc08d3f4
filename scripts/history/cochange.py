#!/usr/bin/env python3
"""Measure co-change with the leading files offline (decision 0094: not kept
in stop 33 on the dev set alone; measured outside it in stop 43).

  cochange.py DUMP.jsonl WORK CASES.jsonl...

DUMP, WORK and CASES as for hotfiles.py. Each case's recorded top 40 files are
re-scored with the hot-file discount (p = 0.25, as shipped), the three best
are the seeds, and every file gains w times its co-change with them: per
seed, the commits among the seed's newest 200 before the case's base that
also touched the file, over (those commits + 1), seeds weighted 1, 1/2, 1/3,
normalised to the best file, inside the demotion. Reported: MRR@10 per w,
per half and per case file.
"""
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "structure"))
sys.path.insert(0, HERE)
import anchors  # noqa: E402
import hotfiles  # noqa: E402

P, SEEDS, PER_SEED = 0.25, 3, 200
WS = [0, 0.05, 0.1, 0.2, 0.3, 0.5]

def main():
    dump, work, case_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = anchors.load(dump, case_files)
    bases = collections.defaultdict(list)
    for fn in case_files:
        for line in open(fn):
            if line.strip():
                c = json.loads(line); bases[(c["repo"], c["query"])].append(c["base"])
    clones, raw = {}, [json.loads(l) for l in open(dump)]
    for c, d in zip(cases, raw):
        args = d["args"]; root = args[args.index("--root") + 1]
        clone = os.path.join(work, os.path.basename(root))
        if clone not in clones:
            clones[clone] = hotfiles.commit_files(clone)
        files = clones[clone]
        base = bases[(os.path.basename(root).replace("+", "/", 1), args[-1])].pop(0)
        revs = subprocess.run(["git", "-C", clone, "rev-list", "-n", "20000", base], capture_output=True, text=True, check=True).stdout.split()
        n = collections.Counter(p for h in revs for p in files.get(h, []))
        c["sig"] = [(f["path"], f.get("signals") or {}, n[f["path"]]) for f in d["resp"].get("files") or []]
        c["weights"] = d["resp"]["weights"]
        # base score with the discount
        w = c["weights"]
        hist = [s.get("history", 0) / (1 + k) ** P for _, s, k in c["sig"]]
        top = max((s.get("history", 0) for _, s, _ in c["sig"]), default=0)
        best = max(hist, default=0) or 1
        c["base"] = [(sum(w[k] * s.get(k, 0) for k in w if k != "history") + w["history"] * h / best * top) * s.get("demotion", 1)
                     for (_, s, _), h in zip(c["sig"], hist)]
        order = sorted(range(len(c["base"])), key=lambda i: (-c["base"][i], i))
        seeds = [c["sig"][i][0] for i in order[:SEEDS]]
        paths = {p for p, _, _ in c["sig"]}
        co = collections.Counter()
        for si, s in enumerate(seeds):
            mine = [h for h in revs if s in files.get(h, [])][:PER_SEED]
            shared = collections.Counter(p for h in mine for p in files.get(h, []) if p in paths and p != s)
            for p, m in shared.items():
                co[p] += m / (len(mine) + 1) / (si + 1)
        top = max(co.values(), default=0) or 1
        c["co"] = [co[p] / top for p, _, _ in c["sig"]]
        c["dem"] = [s.get("demotion", 1) for _, s, _ in c["sig"]]
        c["files"] = [(p, 0, 0) for p, _, _ in c["sig"]]
    names = [name for name, _ in anchors.groups(cases)]
    print("| w | " + " | ".join(names) + " |")
    for wco in WS:
        sc = lambda c: [b + wco * x * d for b, x, d in zip(c["base"], c["co"], c["dem"])]
        print(f"| {wco} | " + " | ".join(f"{sum(anchors.rr(c, sc(c)) for c in cs) / max(len(cs), 1):.4f}" for _, cs in anchors.groups(cases)) + " |")


if __name__ == "__main__":
    main()
