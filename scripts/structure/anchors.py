#!/usr/bin/env python3
"""Measure a file-level structure signal offline (issue 18; docs/EVAL.md,
stop 42): files linked by resolved references to the leading files of a
ranking (its anchors) gain, by how many anchors reach them and how strongly.

  anchors.py DUMP.jsonl ../shared/eval/cases/*.jsonl

DUMP is what edgeswrap.py recorded in a run of ../shared/eval/run.py: each
case's top 40 files with their signals and the fusion's weights, and the
references between files around them. Every file is re-scored as
retrieval.fileScore does (the base), plus w times its structure score:

  structure(f) = sum over the k leading files a != f of
                 score(a)/score(first) * link(a, f), divided by the sum of
                 those anchor weights,

where link is 1 when a reference runs between a and f (both, out: the
anchor uses f, in: f uses the anchor), or, for "shared", the cosine overlap
of the two files' neighbours. For each family the (k, w) best on the
even-indexed cases of each case file is reported on the odd half and per
case file (MRR@10; hit@5 overall).
"""
import collections
import json
import math
import os
import sys

KS = [1, 3, 5]
WS = [0.05, 0.1, 0.2, 0.4, 0.8]
FAMILIES = [("direct", "both"), ("direct", "out"), ("direct", "in"), ("shared", "both")]


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
        repo = os.path.basename(args[args.index("--root") + 1]).replace("+", "/", 1)
        lst = by_query.get((repo, args[-1]))
        if not lst:
            continue
        c = lst.pop(0)
        out = collections.defaultdict(collections.Counter)
        into = collections.defaultdict(collections.Counter)
        for src, dst, n in d["edges"]:
            out[src][dst] += n
            into[dst][src] += n
        weights = d["resp"]["weights"]
        files = []
        for f in d["resp"].get("files") or []:
            s = f.get("signals") or {}
            score = sum(w * s.get(name, 0) for name, w in weights.items()) * s.get("demotion", 1)
            files.append((f["path"], score, s.get("demotion", 1)))
        cases.append({"file": c["_file"], "half": c["_idx"] % 2, "gold": set(c["gold"]), "files": files,
                      "out": out, "into": into})
    return cases


def link(c, a, f, mode, hop):
    if mode == "shared":
        na = set(c["out"][a]) | set(c["into"][a])
        nf = set(c["out"][f]) | set(c["into"][f])
        return len(na & nf) / math.sqrt(len(na) * len(nf)) if na and nf else 0
    n = {"both": c["out"][a][f] + c["out"][f][a], "out": c["out"][a][f], "in": c["out"][f][a]}[hop]
    return 1 if n > 0 else 0


def scores(c, w, k, mode, hop):
    base = [s for _, s, _ in c["files"]]
    if w == 0 or not base:
        return base
    order = sorted(range(len(base)), key=lambda i: (-base[i], i))
    top = base[order[0]] if base[order[0]] > 0 else 1
    anchors = order[:k]
    out = []
    for i, (p, s, demotion) in enumerate(c["files"]):
        g = total = 0.0
        for a in anchors:
            if a == i:
                continue
            wa = base[a] / top
            total += wa
            g += wa * link(c, c["files"][a][0], p, mode, hop)
        out.append(s + w * demotion * (g / total if total > 0 else 0))
    return out


def rr(c, sc):
    order = sorted(range(len(sc)), key=lambda i: (-sc[i], i))
    for r, i in enumerate(order[:10], 1):
        if c["files"][i][0] in c["gold"]:
            return 1 / r
    return 0


def groups(cases):
    g = [("all", cases), ("even", [c for c in cases if c["half"] == 0]), ("odd", [c for c in cases if c["half"] == 1])]
    for fn in sorted({c["file"] for c in cases}):
        g.append((fn.replace(".jsonl", ""), [c for c in cases if c["file"] == fn]))
    return g


def measure(cases, w, k, mode, hop):
    res = {}
    for name, cs in groups(cases):
        rs = [rr(c, scores(c, w, k, mode, hop)) for c in cs]
        res[name] = sum(rs) / max(len(cs), 1)
    res["hit@5"] = sum(1 for c in cases if rr(c, scores(c, w, k, mode, hop)) >= 0.2) / len(cases)
    return res


def show(label, res):
    print(f"| {label} | " + " | ".join(f"{v:.4f}" for v in res.values()) + " |")


def main():
    cases = load(sys.argv[1], sys.argv[2:])
    base = measure(cases, 0, 1, "direct", "both")
    print(f"{len(cases)} cases")
    print("| variant | " + " | ".join(base) + " |")
    print("|---" * (len(base) + 1) + "|")
    show("base (fileScore)", base)
    for mode, hop in FAMILIES:
        best = max(((measure(cases, w, k, mode, hop), k, w) for k in KS for w in WS), key=lambda t: t[0]["even"])
        show(f"{mode} {hop}, k {best[1]}, w {best[2]} (best on even)", best[0])


if __name__ == "__main__":
    main()
