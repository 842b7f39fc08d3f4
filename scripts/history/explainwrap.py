#!/usr/bin/env python3
"""A --cmd for ../shared/eval/run.py that records the evidence behind each
ranking, for fitting the file-fusion weights offline (decision 0094).

  CTXLS_REAL=/tmp/history-bin/ctxls DUMP=/tmp/dump.jsonl \
    python3 ../shared/eval/run.py --cases ../shared/eval/cases/*.jsonl \
      --cmd scripts/history/explainwrap.py --query-limit 100 --work /tmp/wt-history-eval

Every `query` runs with --explain; its JSON answer is appended to DUMP as
{"args": [...], "resp": {...}} and printed as the harness expects. Other
commands run as they are.
"""
import json
import os
import subprocess
import sys

real = os.environ["CTXLS_REAL"]
args = sys.argv[1:]
if args[:1] != ["query"]:
    os.execv(real, [real] + args)
p = subprocess.run([real, "query", "--explain"] + args[1:], capture_output=True, text=True)
sys.stderr.write(p.stderr)
if p.returncode == 0:
    with open(os.environ["DUMP"], "a") as f:
        f.write(json.dumps({"args": args, "resp": json.loads(p.stdout)}) + "\n")
sys.stdout.write(p.stdout)
sys.exit(p.returncode)
