#!/usr/bin/env python3
"""Simulate a stricter prompt gate on the hook's measured answers: a message that names no code outright
must also have at least NEED of its code words declared by one entity (issue 17; docs/EVAL.md, stop 26).

Inputs: a `context_eval.py --json-out` file (the hook's answers to the dev cases), and the per-prompt gate
diagnostics of stop 24 (/tmp/gate-diag.jsonl: one JSON line per prompt the gate judged, with `named`, the
best exact credit, and `ent`, the most code words one entity declares; written by the diagnostic build that
docs/EVAL.md's stop-24 section describes). A case the stricter gate turns away counts as abstained. Prints
the figures before and after, overall, per repository and per half (line parity of each case file), and how
often the cases turned away had been answered with a file of the change.

  python3 scripts/gate/entity_gate_sim.py /tmp/s26-ctx.json 2
"""
import ast
import collections
import glob
import json
import sys

L = lambda x: x if isinstance(x, (list, dict)) else ast.literal_eval(x)


def agg(rows):
    n = len(rows)
    inj = [m for m in rows if not m["abstained"]]
    cov = sum(m["covered"] for m in rows) / n
    irr = sum(m["irrelevant"] for m in inj) / max(1, len(inj))
    prec = sum(m["precision"] for m in inj) / max(1, len(inj))
    return "n=%d covered=%.3f abstained=%.3f irrelevant=%.3f precision=%.3f" % (n, cov, 1 - len(inj) / n, irr, prec)


def main():
    diag = {}
    for line in open("/tmp/gate-diag.jsonl"):
        r = json.loads(line)
        diag.setdefault(r["text"], r)
    text, parity = {}, {}
    for f in sorted(glob.glob("/work/shared/eval/cases/*.jsonl")):
        for i, line in enumerate(open(f)):
            c = json.loads(line)
            text[c["id"]], parity[c["id"]] = c["query"], i % 2
    d = json.load(open(sys.argv[1]))
    need = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    groups, base = collections.defaultdict(list), collections.defaultdict(list)
    missing = turned = turned_covered = 0
    for c in d["cases"]:
        m = L(c["m"])
        r = diag.get(text.get(c["id"]))
        missing += r is None
        after = dict(m)
        if r is not None and not m["abstained"] and r["named"] < 0.85 and r["ent"] < need:
            turned += 1
            turned_covered += bool(m["covered"])
            after.update(abstained=True, covered=False, irrelevant=False, precision=0)
        for g in ("all", c["repo"], "half%d" % parity[c["id"]]):
            groups[g].append(after)
            base[g].append(m)
    print("cases without diagnostics:", missing)
    print("turned away: %d, of which covered before: %d" % (turned, turned_covered))
    for g in groups:
        print(g, "\n  before", agg(base[g]), "\n  after ", agg(groups[g]))


if __name__ == "__main__":
    main()
