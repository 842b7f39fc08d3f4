#!/usr/bin/env python3
"""Measure two changes to the file fusion offline (issue 18; docs/EVAL.md,
stop 44): the query-independent priors as a factor of the evidence, and
scores regularised over each file's directory.

  rescore.py DUMP.jsonl CASES.jsonl...

DUMP is what explainwrap.py recorded in a run of ../shared/eval/run.py over
CASES with --query-limit 100: each case's files with their signals and the
fusion's weights. Every file is re-scored as retrieval.fileScore does (the
base: the weighted sum of its signals times its demotion), then:

  priors    q = the weighted query-dependent signals, p = the weighted
            priors (size, recent), pn = p over the priors' weights (0..1):
            "factor" q * (1 + a * pn); "share" q + (1 - a) * p + a * p *
            q / (the best file's q): a prior in proportion to the file's
            share of the best evidence.
  directory score + g * best * agg over the other ranked files of the
            file's parent directory (or of its first two path segments) of
            their score over the best file's: max, mean or the mean of the
            top 3.

Reported: MRR@10 and hit@5 overall, per half (even-indexed cases of each
case file, odd) and MRR@10 per case file. The base row reproduces the run.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit  # noqa: E402

PRIORS = ("size", "recent")


def query_part(s, w):
    return sum(v * s.get(k, 0) for k, v in w.items() if k not in PRIORS)


def prior_part(s, w):
    return sum(w[k] * s.get(k, 0) for k in PRIORS)


def base(s, w):
    return (query_part(s, w) + prior_part(s, w)) * s.get("demotion", 1)


def priors(form, a):
    def rescore(c):
        w = c["w"]
        qmax = max([query_part(s, w) for _, s in c["files"]] + [1e-9])
        out = []
        for _, s in c["files"]:
            q, p = query_part(s, w), prior_part(s, w)
            if form == "factor":
                x = q * (1 + a * p / sum(w[k] for k in PRIORS))
            else:
                x = q + (1 - a) * p + a * p * q / qmax
            out.append(x * s.get("demotion", 1))
        return out
    return rescore


def directory(agg, g, depth):
    def key(p):
        parts = p.split("/")[:-1]
        return "/".join(parts[:depth] if depth else parts)

    def rescore(c):
        sc = [base(s, c["w"]) for _, s in c["files"]]
        best = max(sc + [1e-9])
        by_dir = collections.defaultdict(list)
        for (p, _), x in zip(c["files"], sc):
            by_dir[key(p)].append(x / best)
        out = []
        for (p, s), x in zip(c["files"], sc):
            others = list(by_dir[key(p)])
            others.remove(x / best)
            if agg == "max":
                a = max(others, default=0)
            elif agg == "mean":
                a = sum(others) / len(others) if others else 0
            else:
                a = sum(sorted(others, reverse=True)[:3]) / 3
            out.append(x + g * a * best * s.get("demotion", 1))
        return out
    return rescore


def evaluate(cases, rescore):
    res = collections.defaultdict(list)
    for c in cases:
        order = sorted(range(len(c["files"])), key=lambda i, sc=rescore(c): (-sc[i], i))
        rr = h5 = 0
        for r, i in enumerate(order[:10]):
            if c["files"][i][0] in c["gold"]:
                rr, h5 = 1 / (r + 1), int(r < 5)
                break
        for k in ("all", ("half", c["half"]), ("file", c["file"])):
            res[k].append((rr, h5))
    return {k: (sum(x for x, _ in v) / len(v), sum(y for _, y in v) / len(v)) for k, v in res.items()}


def main():
    cases = fit.load(sys.argv[1], sys.argv[2:])
    for c in cases:
        c["w"], c["file"] = c["weights"], c["file"].split(".")[0]
    rows = [("base", lambda c: [base(s, c["w"]) for _, s in c["files"]])]
    rows += [("priors factor a=%g" % a, priors("factor", a)) for a in (0.5, 1, 2, 3, 5, 10)]
    rows += [("priors share a=%g" % a, priors("share", a)) for a in (0.25, 0.5, 0.75, 1)]
    rows += [("directory %s g=%g %s" % (agg, g, "parent" if d == 0 else "first 2"), directory(agg, g, d))
             for d in (0, 2) for agg in ("max", "mean", "top3") for g in (0.05, 0.1, 0.2, 0.4)]
    results = [(name, evaluate(cases, f)) for name, f in rows]
    files = sorted({k[1] for k in results[0][1] if isinstance(k, tuple) and k[0] == "file"})
    print("%d cases" % len(cases))
    print("| form | MRR | hit@5 | even | odd | " + " | ".join(files) + " |")
    for name, r in results:
        print("| %s | %.4f | %.3f | %.4f | %.4f | %s |" % (name, r["all"][0], r["all"][1], r[("half", 0)][0],
              r[("half", 1)][0], " | ".join("%.3f" % r[("file", f)][0] for f in files)))


if __name__ == "__main__":
    main()
