#!/usr/bin/env python3
"""Fit the recency signal of file ranking offline (decision 0114).

  recency.py DUMP.jsonl ../shared/eval/cases/*.jsonl

DUMP is what explainwrap.py recorded in a run of ../shared/eval/run.py with
--query-limit 100. For every case, the newest 1,000 non-merge commits before
its base are read from the repository's mirror (/work/.mirror, as run.py);
a commit of more than 50 files (history.MassChange) counts as a commit but
credits none of its files. A file's recency is 1 / (1 + position / SCALE),
position being that of the newest commit that touched it (0: the base
itself), 0 past the newest CAP commits. Every case's top files are re-scored
as retrieval.fileScore does with a grid over the weight, and each half of
each case file is printed (even indices fit, odd check).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit as H  # noqa: E402

SCALE, CAP, MASS = 10, 200, 50
GRID = [0, 0.25, 0.5, 0.75, 1.0, 1.5]


def positions(mirror, base):
    p = subprocess.run(["git", "--git-dir", mirror, "log", "-n", "1000", "--no-merges", "--format=@%h", "--name-only", base],
                       capture_output=True, text=True, check=True)
    out, cur, idx = {}, [], -1

    def flush():
        if 0 < len(cur) <= MASS:
            for f in cur:
                out.setdefault(f, idx)
        cur.clear()
    for line in p.stdout.splitlines():
        if line.startswith("@"):
            flush()
            idx += 1
        elif line.strip():
            cur.append(line.strip())
    flush()
    return out


def main():
    dump, case_files = sys.argv[1], sys.argv[2:]
    cases = H.load(dump, case_files)
    for c in cases:
        mirror = "/work/.mirror/%s/repo" % c["repo"].replace("/", "+")
        pos = positions(mirror, c["base"])
        c["recent"] = {p: 1 / (1 + pos[p] / SCALE) for p, _ in c["files"] if p in pos and pos[p] < CAP}

    def rank(c, w):
        scored = []
        for i, (p, s) in enumerate(c["files"]):
            v = sum(wt * s.get(k, 0) for k, wt in H.FIXED.items()) + 1.0 * s.get("history", 0) + w * c["recent"].get(p, 0)
            scored.append((-v * s.get("demotion", 1), i, p))
        scored.sort()
        for r, (_, _, p) in enumerate(scored[:10], 1):
            if p in c["gold"]:
                return r
        return None

    def metrics(cs, w):
        rs = [rank(c, w) for c in cs]
        n = len(cs)
        return n, sum(1 / r for r in rs if r) / n, sum(1 for r in rs if r == 1) / n, sum(1 for r in rs if r and r <= 5) / n
    groups = [("even", [c for c in cases if c["half"] == 0]), ("odd", [c for c in cases if c["half"] == 1])]
    for f in sorted({c["file"] for c in cases}):
        for h in (0, 1):
            groups.append(("%s %s" % (f, "even" if h == 0 else "odd"), [c for c in cases if c["file"] == f and c["half"] == h]))
    for w in GRID:
        print("fwRecent %.2f" % w)
        for name, cs in groups:
            n, mrr, h1, h5 = metrics(cs, w)
            print("  %-40s n=%-4d mrr %.3f hit@1 %.3f hit@5 %.3f" % (name, n, mrr, h1, h5))


if __name__ == "__main__":
    main()
