#!/usr/bin/env python3
"""Time the prompt hook on a repository with history, per prompt.

usage: hooklat.py ROOT CTXLS [inproc]

Sends eight change-request prompts (go-zero's vocabulary) to
`CTXLS hook user-prompt-submit` in ROOT, REPS times each (default 4), as
Claude Code does: JSON on stdin, a fresh session id per call. Without
"inproc" the calls take the client path (the workspace's daemon, started by
the first call); with it CTXLS_HOOK_DAEMON=0 answers each in its own
process. HOME is /tmp/hl-home so no personal settings apply. Prints each
prompt's median and slowest call in ms, then the median and p95 of all.
"""
import json
import os
import statistics
import subprocess
import sys
import time

PROMPTS = [
    "fix timeout in redis cluster client",
    "add trace span to grpc client interceptor",
    "goctl api generate swagger docs for routes",
    "rest server graceful shutdown hangs",
    "sqlx transaction rollback does not release connection",
    "logx should support field output in json",
    "breaker rejects requests when errors rate high",
    "etcd discovery keeps stale endpoints after restart",
]


def main():
    root, binary = sys.argv[1], sys.argv[2]
    inproc = len(sys.argv) > 3 and sys.argv[3] == "inproc"
    reps = int(os.environ.get("REPS", "4"))
    env = dict(os.environ, HOME="/tmp/hl-home")
    if inproc:
        env["CTXLS_HOOK_DAEMON"] = "0"
    os.makedirs(env["HOME"], exist_ok=True)
    per = {p: [] for p in PROMPTS}
    every = []
    for rep in range(reps):
        for i, prompt in enumerate(PROMPTS):
            stdin = json.dumps({"session_id": f"hooklat-{os.getpid()}-{rep}-{i}", "hook_event_name": "UserPromptSubmit",
                                "prompt": prompt, "cwd": root})
            start = time.perf_counter()
            subprocess.run([binary, "hook", "user-prompt-submit"], input=stdin, capture_output=True, text=True,
                           cwd=root, env=env, check=False)
            ms = (time.perf_counter() - start) * 1000
            per[prompt].append(ms)
            every.append(ms)
    for prompt, v in per.items():
        print(f"{statistics.median(v):6.1f} {max(v):6.1f}  {prompt}")
    every.sort()
    print(f"all n {len(every)} median {statistics.median(every):.1f} p95 {every[max(0, int(0.95 * len(every)) - 1)]:.1f}")


if __name__ == "__main__":
    main()
