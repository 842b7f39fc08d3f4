#!/usr/bin/env python3
"""Measure a stricter prompt gate: the message's code words must cluster in
one file (decision 0091, amendment of 2026-11-26). Measured, not kept.

  for R in psf+requests zeromicro+go-zero honojs+hono clap-rs+clap; do
    dump.py --cmd bin/ctxls --root DIR/$R --cases CASES --fit fit-offtopic.txt --test offtopic.txt > DIR/new/$R.jsonl
    (terms of DIR/new/$R.jsonl) | go run -tags sqlite_fts5 ./scripts/gate/declfiles DIR/$R/.ctxls/index.db > DIR/new/$R.decl
  done
  codecluster.py DIR CTX.json      # CTX.json: context_eval.py --json-out of the same binary

For each message: its code words (terms declared in some entity's name, qualified name or signature, not
conversational, as analyse.py), and cofile, the most of them declared in one file. A rule passes when the message
names code exactly or has >= 3 code words and cofile >= C. Off-topic pass rates come from the dumps; covered and
irrelevant from the hook's measured answers (a case blocked by the rule loses its coverage).
"""
import collections
import json
import sys

CONV = set("""ok okay yes yeah yep no nope please thanks thank thx cheers great good perfect nice cool awesom fine
sure alright continu go ahead proceed keep going next same rest again tri stop wait hmm hm agre think look sound reason
work job done ship lgtm undo mind right wrong correct much well let start finish step more less bit also still now
then""".split())
REPOS = ("psf+requests", "zeromicro+go-zero", "honojs+hono", "clap-rs+clap")


def rows(d, repo):
    decl = {}
    for line in open("%s/new/%s.decl" % (d, repo)):
        p = line.rstrip("\n").split("\t")
        decl[p[0]] = {k for k, _ in (x.rsplit("=", 1) for x in p[1:])}
    for line in open("%s/new/%s.jsonl" % (d, repo)):
        r = json.loads(line)
        q = r.pop("query")
        code = [t for t in (q.get("terms") or {}) if t not in CONV and decl.get(t)]
        per = collections.Counter(f for t in code for f in decl[t])
        r["code"], r["cofile"] = len(code), max(per.values()) if per else 0
        r["rel"] = max([x["relevance"] for x in q.get("results") or []] or [0])
        r["exact"] = max([x["signals"].get("exact", 0) for x in q.get("results") or []] or [0])
        yield r


def main():
    d, ctx = sys.argv[1], {c["id"]: c["m"] for c in json.load(open(sys.argv[2]))["cases"]}
    rs = [r for repo in REPOS for r in rows(d, repo)]
    cases = [r for r in rs if r["label"] == "case"]
    for cof in (0, 2, 3):
        ok = lambda r: (r["exact"] >= 0.85 or (r["code"] >= 3 and r["cofile"] >= cof)) and r["rel"] >= 0.2
        out = ["cofile>=%d" % cof]
        for lab in ("fit", "test"):
            xs = [r for r in rs if r["label"] == lab]
            out.append("off-topic %s %.3f" % (lab, sum(map(ok, xs)) / len(xs)))
        for h in (0, 1):
            xs = [r for i, r in enumerate(cases) if i % 2 == h]
            inj = sum(1 for r in xs if not ctx[r["id"]]["abstained"] and ok(r))
            out.append("%s covered %.3f irrelevant %.3f" % ("even" if h == 0 else "odd",
                       sum(1 for r in xs if ctx[r["id"]]["covered"] and ok(r)) / len(xs),
                       sum(1 for r in xs if ctx[r["id"]]["irrelevant"] and ok(r)) / max(inj, 1)))
        print(" | ".join(out))


if __name__ == "__main__":
    main()
