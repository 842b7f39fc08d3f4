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
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "structure"))
sys.path.insert(0, HERE)
import anchors  # noqa: E402
import hotfiles  # noqa: E402

P, SEEDS, PER_SEED = 0.25, 3, 200
WS = [0, 0.05, 0.1, 0.2, 0.3, 0.5]


def co_change(c, base):
    """Each file's co-change with the case's SEEDS best files by base,
    normalised to the best file."""
    order = sorted(range(len(base)), key=lambda i: (-base[i], i))
    seeds = [c["sig"][i][0] for i in order[:SEEDS]]
    paths = {p for p, _, _ in c["sig"]}
    co = collections.Counter()
    for rank, seed in enumerate(seeds):
        mine = [h for h in c["revs"] if seed in c["commits"].get(h, [])][:PER_SEED]
        shared = collections.Counter(p for h in mine for p in c["commits"].get(h, []) if p in paths and p != seed)
        for p, m in shared.items():
            co[p] += m / (len(mine) + 1) / (rank + 1)
    top = max(co.values(), default=0) or 1
    return [co[p] / top for p, _, _ in c["sig"]]


def main():
    dump, work, case_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = hotfiles.load_cases(dump, work, case_files)
    for c in cases:
        c["base"] = hotfiles.discounted(c, P)
        c["co"] = co_change(c, c["base"])
        c["dem"] = [s.get("demotion", 1) for _, s, _ in c["sig"]]
    names = [name for name, _ in anchors.groups(cases)]
    print("| w | " + " | ".join(names) + " |")
    for w in WS:
        def score(c, w=w):
            return [b + w * x * d for b, x, d in zip(c["base"], c["co"], c["dem"])]
        print(f"| {w} | " + " | ".join(f"{sum(anchors.rr(c, score(c)) for c in cs) / max(len(cs), 1):.4f}"
                                     for _, cs in anchors.groups(cases)) + " |")


if __name__ == "__main__":
    main()
