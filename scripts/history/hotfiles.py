#!/usr/bin/env python3
"""Measure the hot-file discount of the history signal offline (decision
0094's amendment of stop 42).

  hotfiles.py DUMP.jsonl WORK CASES.jsonl...

DUMP is what scripts/structure/edgeswrap.py recorded in a run of
../shared/eval/run.py over CASES with --work WORK: each case's top 40 files,
their signals and the fusion's weights. For each case the script counts, in
WORK's clone of the case's repository, the commits among the newest 20,000
reachable from the case's base that touched each of those files (commits of
more than 50 files not counted, as history.MassChange; a rename as both its
paths, as history reads it), and re-scores the files with a file's history
divided by (1 + its commits)^p, renormalised to the largest history among
the files. p = 0 is the recorded ranking when the binary had no discount.
Reported: MRR@10 per half (even-indexed cases of each case file, odd) and
per case file.
"""
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "structure"))
import anchors  # noqa: E402

POWERS = [0, 0.25, 0.5]
MAX_COMMITS, MASS_CHANGE = 20000, 50


def commit_files(clone):
    out = subprocess.run(["git", "-C", clone, "log", "--all", "--format=@@%H", "--name-only", "--no-renames"],
                         capture_output=True, text=True, check=True).stdout
    files, cur = {}, None
    for line in out.splitlines():
        if line.startswith("@@"):
            cur = line[2:]
            files[cur] = []
        elif line.strip() and cur:
            files[cur].append(line.strip())
    return {h: fs if len(fs) <= MASS_CHANGE else [] for h, fs in files.items()}


def revs_at(clone, base):
    """The newest MAX_COMMITS commits reachable from base, newest first."""
    return subprocess.run(["git", "-C", clone, "rev-list", "-n", str(MAX_COMMITS), base],
                          capture_output=True, text=True, check=True).stdout.split()


def load_cases(dump, work, case_files):
    """The dump's cases (anchors.load) with, for each: "sig", its files as
    (path, signals, commits at the base); "weights"; "revs" (revs_at) and
    "commits", the files of its clone's commits (commit_files)."""
    cases = anchors.load(dump, case_files)
    bases = collections.defaultdict(list)
    for fn in case_files:
        for line in open(fn):
            if line.strip():
                c = json.loads(line)
                bases[(c["repo"], c["query"])].append(c["base"])
    clones, raw = {}, [json.loads(line) for line in open(dump)]
    assert len(raw) == len(cases)
    for c, d in zip(cases, raw):
        args = d["args"]
        root = args[args.index("--root") + 1]
        clone = os.path.join(work, os.path.basename(root))
        if clone not in clones:
            clones[clone] = commit_files(clone)
        base = bases[(os.path.basename(root).replace("+", "/", 1), args[-1])].pop(0)
        c["commits"], c["revs"] = clones[clone], revs_at(clone, base)
        n = collections.Counter(p for h in c["revs"] for p in c["commits"].get(h, []))
        c["sig"] = [(f["path"], f.get("signals") or {}, n[f["path"]]) for f in d["resp"].get("files") or []]
        c["weights"] = d["resp"]["weights"]
    return cases


def discounted(c, p):
    """The case's file scores with history divided by (1 + commits)^p,
    renormalised to the largest history among its files."""
    w = c["weights"]
    hist = [s.get("history", 0) / (1 + n) ** p for _, s, n in c["sig"]]
    top = max((s.get("history", 0) for _, s, _ in c["sig"]), default=0)
    best = max(hist, default=0) or 1
    return [(sum(w[k] * s.get(k, 0) for k in w if k != "history") + w["history"] * h / best * top)
            * s.get("demotion", 1) for (_, s, _), h in zip(c["sig"], hist)]


def main():
    dump, work, case_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = load_cases(dump, work, case_files)
    names = [name for name, _ in anchors.groups(cases)]
    print("| p | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for p in POWERS:
        print(f"| {p} | " + " | ".join(f"{sum(anchors.rr(c, discounted(c, p)) for c in cs) / max(len(cs), 1):.4f}"
                                      for _, cs in anchors.groups(cases)) + " |")


if __name__ == "__main__":
    main()
