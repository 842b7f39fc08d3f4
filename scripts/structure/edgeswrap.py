#!/usr/bin/env python3
"""A --cmd for ../shared/eval/run.py that records each ranking's evidence and
the file-level reference graph around it, for measuring a structure signal
offline (issue 18; docs/EVAL.md, stop 42).

  CTXLS_REAL=bin/ctxls DUMP=/tmp/edges.jsonl \
    python3 ../shared/eval/run.py --cases ../shared/eval/cases/*.jsonl \
      --cmd scripts/structure/edgeswrap.py --work /tmp/wt-structure

Every `query` runs with --explain and --limit 40; the answer, and the resolved
references between files of which at least one is among those 40 (source
path, target path, count; read from the index as it stands at the case's
commit), are appended to DUMP as {"args", "resp", "edges"}. The harness gets
the files it asked for. Other commands run as they are.
"""
import json
import os
import sqlite3
import subprocess
import sys

# A reference's row number is its source entity's seq shifted by
# refPlaceBits (store/refrows.go).
EDGES = """
SELECT fs.path, fd.path, count(*)
FROM refs r
JOIN entities es ON es.seq = (r.rowid >> 9)
JOIN entities ed ON ed.id = r.dst_id
JOIN files fs ON fs.id = es.file_id
JOIN files fd ON fd.id = ed.file_id
WHERE es.file_id <> ed.file_id
  AND (fs.path IN (SELECT value FROM json_each(?1)) OR fd.path IN (SELECT value FROM json_each(?1)))
GROUP BY 1, 2
"""

real = os.environ["CTXLS_REAL"]
args = sys.argv[1:]
if args[:1] != ["query"]:
    os.execv(real, [real] + args)
asked = list(args)
at = asked.index("--limit")
limit = int(asked[at + 1])
asked[at + 1] = "40"
p = subprocess.run([real, "query", "--explain"] + asked[1:], capture_output=True, text=True)
sys.stderr.write(p.stderr)
if p.returncode != 0:
    sys.exit(p.returncode)
resp = json.loads(p.stdout)
files = resp.get("files") or []
root = asked[asked.index("--root") + 1]
db = sqlite3.connect(f"file:{os.path.join(root, '.ctxls', 'index.db')}?mode=ro", uri=True)
try:
    edges = db.execute(EDGES, (json.dumps([f["path"] for f in files]),)).fetchall()
finally:
    db.close()
with open(os.environ["DUMP"], "a") as f:
    f.write(json.dumps({"args": args, "resp": resp, "edges": edges}) + "\n")
resp["files"] = files[:limit]
resp.pop("results", None)
sys.stdout.write(json.dumps(resp))
