#!/usr/bin/env python3
"""Dump the evidence `ctxls query` sees for real change requests and for
off-topic prompts, one JSON line each, for fitting the relevance gate.

  dump.py --cmd bin/ctxls --root CHECKOUT --cases CASES.jsonl --offtopic FILE... > out.jsonl

Each line: {"label": "case"|"fit"|"test", "repo", "id", "gold", "text", "query": <ctxls query --json --explain>}.
"""
import argparse, json, subprocess, sys

def ask(cmd, root, text):
    p = subprocess.run([cmd, "query", "--root", root, "--json", "--explain", "--limit", "20", "-"],
                       input=text, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[:200]}
    return json.loads(p.stdout)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--cases", nargs="*", default=[])
    ap.add_argument("--fit", default="")
    ap.add_argument("--test", default="")
    a = ap.parse_args()
    out = sys.stdout
    for f in a.cases:
        for line in open(f):
            c = json.loads(line)
            out.write(json.dumps({"label": "case", "repo": c["repo"], "id": c["id"], "gold": c["gold"],
                                  "text": c["query"], "query": ask(a.cmd, a.root, c["query"])}) + "\n")
    for label, f in (("fit", a.fit), ("test", a.test)):
        if not f:
            continue
        for line in open(f):
            t = line.rstrip("\n")
            if not t.strip() or t.startswith("#"):
                continue
            out.write(json.dumps({"label": label, "repo": a.root, "id": t, "gold": [], "text": t,
                                  "query": ask(a.cmd, a.root, t)}) + "\n")

if __name__ == "__main__":
    main()
