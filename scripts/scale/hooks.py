#!/usr/bin/env python3
"""Time the prompt hook on a large tree's prompt set (issue #25's kernel set).

Each prompt of the TSV (prompt <TAB> expected file <TAB> key function) is sent as Claude Code's
UserPromptSubmit stdin JSON to `CTXLS hook user-prompt-submit`, in a new session each, run in ROOT.
The set is passed twice; the second pass, with the workspace's daemon warm, is reported: median and
p95 wall time of one call and the median characters it printed.

  python3 scripts/scale/hooks.py --cmd $PWD/bin/ctxls --root /path/to/linux scripts/scale/kernel-prompts.tsv
"""
import argparse
import json
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True, help="absolute path of ctxls")
    ap.add_argument("--root", required=True)
    ap.add_argument("prompts")
    a = ap.parse_args()
    prompts = [l.split("\t")[0] for l in open(a.prompts) if l.strip() and not l.startswith("#")]
    times, sizes = [], []
    for rnd in range(2):
        for i, p in enumerate(prompts):
            stdin = json.dumps({"session_id": "scale-%d-%d-%d" % (time.time_ns(), rnd, i), "cwd": a.root,
                                "hook_event_name": "UserPromptSubmit", "prompt": p})
            t0 = time.monotonic()
            out = subprocess.run([a.cmd, "hook", "user-prompt-submit"], input=stdin, capture_output=True,
                                 text=True, cwd=a.root).stdout
            if rnd == 1:
                times.append((time.monotonic() - t0) * 1000)
                sizes.append(len(out))
    times.sort()
    p95 = times[min(len(times) - 1, (len(times) * 95 + 99) // 100 - 1)]
    print("prompt hook, %d prompts, second pass: median %.1f ms  p95 %.1f ms  median %d characters"
          % (len(times), statistics.median(times), p95, statistics.median(sizes)))


if __name__ == "__main__":
    main()
