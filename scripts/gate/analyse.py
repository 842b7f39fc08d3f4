#!/usr/bin/env python3
"""Fit and check the prompt gate (decision 0091) on what dump.py recorded.

For each repository checkout R indexed at DIR/R, with DIR/R.jsonl from dump.py and DIR/R.cols from
colstats (the columns of the index each message term occurs in:
`python3 -c '...terms of R.jsonl...' | go run -tags sqlite_fts5 ./scripts/gate/colstats DIR/R/.ctxls/index.db`),
prints how often the gate passes real change requests ("case") and off-topic prompts ("fit", "test") for
thresholds of declaration words and relevance, on the half that fits and the half that checks.

  analyse.py DIR psf+requests:zeromicro+go-zero honojs+hono:clap-rs+clap
"""
import json, sys

CONV = set("""ok okay yes yeah yep no nope please thanks thank thx cheers great good perfect nice cool awesome fine
sure alright continu go ahead proceed keep going next same rest again tri stop wait hmm hm agre think look sound reason
work job done ship lgtm undo mind right wrong correct much well let start finish step more less bit also still now
then""".split())


def rows(d, repo):
    cols = {}
    for l in open("%s/%s.cols" % (d, repo)):
        p = l.rstrip("\n").split("\t")
        cols[p[0]] = {k: int(v) for k, v in (x.split("=") for x in p[1:])}
    for l in open("%s/%s.jsonl" % (d, repo)):
        r = json.loads(l)
        q = r["query"]
        terms = q.get("terms") or {}
        r["rel"] = max([x["relevance"] for x in q.get("results") or []] or [0])
        # A signature's terms are in one column per bit of their frequency
        # (signature, signature_2, ...; decisions 0130, 0131).
        r["code"] = sum(1 for t in terms if t not in CONV and
                        any(n > 0 for c, n in cols.get(t, {}).items()
                            if c in ("name", "qname") or c.startswith("signature")))
        r["allconv"] = all(t in CONV for t in terms)
        yield r


def main():
    d, halves = sys.argv[1], sys.argv[2:]
    for half in halves:
        rs = [r for repo in half.split(":") for r in rows(d, repo)]
        for words in (2, 3, 4):
            for rel in (0.0, 0.2, 0.3):
                ok = lambda r: not r["allconv"] and r["code"] >= words and r["rel"] >= rel
                case = [r for r in rs if r["label"] == "case"]
                off = [r for r in rs if r["label"] != "case"]
                print("%-40s words>=%d rel>=%.1f  real %.3f  off-topic %.3f" % (
                    half, words, rel, sum(map(ok, case)) / len(case), sum(map(ok, off)) / len(off)))


if __name__ == "__main__":
    main()
