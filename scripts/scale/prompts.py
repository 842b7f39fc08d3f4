#!/usr/bin/env python3
"""Score ctxls query on a prompt set of a large tree (issue #25's kernel set).

Each line of the TSV is: prompt <TAB> expected file <TAB> key function. For every prompt it runs
`CTXLS query --root ROOT --json --limit 10 PROMPT` and reports whether the expected file is among the
top-10 files and the key function among the top-10 entities, with the query's wall time.

  python3 scripts/scale/prompts.py --cmd bin/ctxls --root /path/to/linux scripts/scale/kernel-prompts.tsv
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", default="bin/ctxls")
    ap.add_argument("--root", required=True)
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("prompts")
    a = ap.parse_args()
    rows = [l.rstrip("\n").split("\t") for l in open(a.prompts) if l.strip() and not l.startswith("#")]
    files = funcs = empty = 0
    times = []
    for prompt, want_file, want_func in rows:
        t0 = time.monotonic()
        p = subprocess.run([a.cmd, "query", "--root", a.root, "--json", "--limit", str(a.limit), "--", prompt],
                           capture_output=True, text=True)
        times.append((time.monotonic() - t0) * 1000)
        if p.returncode != 0:
            print("error: %s: %s" % (prompt, p.stderr.strip()), file=sys.stderr)
            continue
        d = json.loads(p.stdout)
        got_files = [f["path"] for f in d.get("files") or []][: a.limit]
        got_funcs = [r["name"] for r in d.get("results") or []][: a.limit]
        if not got_files:
            empty += 1
        hf, hn = want_file in got_files, want_func in got_funcs
        files += hf
        funcs += hn
        if a.verbose:
            print("%s %s  %-60s %s | %s" % ("F" if hf else ".", "N" if hn else ".", prompt[:60],
                                           ",".join(got_files[:3]), ",".join(got_funcs[:4])))
    n = len(rows)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    print("prompts %d  file@10 %.3f  function@10 %.3f  empty %d  median %.0f ms  p95 %.0f ms" %
          (n, files / n, funcs / n, empty, statistics.median(times), p95))


if __name__ == "__main__":
    main()
