#!/usr/bin/env python3
"""Fit the history weights of file ranking offline (decision 0094).

  fit.py DUMP.jsonl ../shared/eval/cases/*.jsonl

DUMP is what explainwrap.py recorded in a run of ../shared/eval/run.py with
--query-limit 100: each case's top files and their signals. Every file is
re-scored as retrieval.fileScore does, with the fixed weights of the other
signals and a grid over fwHistory and fwCoChange; the grid point that is
best on the even-indexed cases of each case file (objective MRR@10 +
0.5·hit@5, as decision 0071) is reported with both halves and each
repository. The "cochange" signal was in the dump that fitted decision
0094 (commit 159fb7a) and is no longer computed: its column is then 0.
"""
import collections
import json
import os
import sys

# retrieval's fw* constants but the two fitted here; fwRecent (decision 0114)
# came after this script and was missing, so its re-scoring no longer
# matched the ranking it re-scores.
FIXED = {"whole": 1, "lexical": 0.3, "coverage": 0, "exact": 1.5, "graph": 0.25, "active": 0.25, "size": 0.8, "scope": 0.8,
         "recent": 0.75}
GRID = [round(0.05 * i, 2) for i in range(0, 21)] + [1.25, 1.5, 2.0]


def load(dump, case_files):
    by_query = collections.defaultdict(list)
    for fn in case_files:
        idx = 0
        for line in open(fn):
            line = line.strip()
            if not line:
                continue
            c = json.loads(line)
            if not c.get("gold"):
                continue
            c["_file"], c["_idx"] = os.path.basename(fn), idx
            idx += 1
            by_query[(c["repo"], c["query"])].append(c)
    cases = []
    for line in open(dump):
        d = json.loads(line)
        args = d["args"]
        root = args[args.index("--root") + 1]
        repo = os.path.basename(root).replace("+", "/", 1)
        q = args[-1]
        lst = by_query.get((repo, q))
        if not lst:
            continue
        c = lst.pop(0)
        files = [(f["path"], f.get("signals") or {}) for f in d["resp"].get("files") or []]
        cases.append({"id": c["id"], "q": q, "repo": repo, "file": c["_file"], "half": c["_idx"] % 2,
                      "gold": set(c["gold"]), "files": files, "base": c.get("base", ""),
                      "weights": d["resp"].get("weights") or {}})
    return cases


def rank_metrics(case, wh, wc):
    scored = []
    for i, (p, s) in enumerate(case["files"]):
        v = sum(w * s.get(k, 0) for k, w in FIXED.items()) + wh * s.get("history", 0) + wc * s.get("cochange", 0)
        scored.append((-v * s.get("demotion", 1), i, p))
    scored.sort()
    for r, (_, _, p) in enumerate(scored[:10], 1):
        if p in case["gold"]:
            return r
    return None


def metrics(cases, wh, wc):
    n = len(cases)
    if n == 0:
        return {}
    ranks = [rank_metrics(c, wh, wc) for c in cases]
    m = {"n": n, "mrr": sum(1 / r for r in ranks if r) / n}
    for k in (1, 3, 5, 10):
        m["hit@%d" % k] = sum(1 for r in ranks if r and r <= k) / n
    return m


def fmt(m):
    return "n=%-4d hit@1 %.3f hit@3 %.3f hit@5 %.3f hit@10 %.3f mrr %.3f" % (m["n"], m["hit@1"], m["hit@3"], m["hit@5"], m["hit@10"], m["mrr"])


def main():
    cases = load(sys.argv[1], sys.argv[2:])
    even = [c for c in cases if c["half"] == 0]
    odd = [c for c in cases if c["half"] == 1]
    best = None
    for wh in GRID:
        for wc in GRID:
            m = metrics(even, wh, wc)
            obj = m["mrr"] + 0.5 * m["hit@5"]
            if best is None or obj > best[0] + 1e-12:
                best = (obj, wh, wc)
    _, wh, wc = best
    print("cases %d (even %d, odd %d); fitted on even: fwHistory %.2f fwCoChange %.2f" % (len(cases), len(even), len(odd), wh, wc))
    groups = [("even", even), ("odd", odd), ("all", cases)]
    for f in sorted({c["file"] for c in cases}):
        groups.append((f, [c for c in cases if c["file"] == f]))
    for name, cs in groups:
        base = metrics(cs, 0, 0)
        hist = metrics(cs, wh, 0)
        co = metrics(cs, 0, wc)
        both = metrics(cs, wh, wc)
        print("%-34s without   %s" % (name, fmt(base)))
        print("%-34s history   %s" % ("", fmt(hist)))
        print("%-34s cochange  %s" % ("", fmt(co)))
        print("%-34s both      %s" % ("", fmt(both)))
    # The objective around the optimum, for its flatness.
    print("objective on even (rows fwHistory, columns fwCoChange):")
    cols = [0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0]
    print("       " + " ".join("%6.2f" % c for c in cols))
    for r in [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5]:
        row = []
        for c in cols:
            m = metrics(even, r, c)
            row.append("%6.3f" % (m["mrr"] + 0.5 * m["hit@5"]))
        print("%6.2f " % r + " ".join(row))


if __name__ == "__main__":
    main()
