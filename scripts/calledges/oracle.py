#!/usr/bin/env python3
"""Compare the call edges a ctxls index resolved with what a language's own
analyser finds, for Python (jedi) and TypeScript/JavaScript (the TypeScript
compiler's LanguageService, through tsoracle.mjs beside this file).

    ctxls index --root /tmp/requests
    python3 -m venv --without-pip /tmp/venv   # the standard library only
    python3 scripts/calledges/oracle.py --lang python --root /tmp/requests --venv /tmp/venv
    python3 scripts/calledges/oracle.py --lang ts --root /tmp/hono [--node-modules DIR]

Every "calls" reference of the language's files is put to the oracle at the
called name's position (the line is ctxls's, the column the k-th occurrence
of the name on it for the k-th reference of that name there). The oracle's
answer is a definition in the workspace (a file and line), one outside it
(standard library, a package), or none. An edge of ctxls is right when its
target entity is in the oracle's file, carries the oracle's name and spans
the oracle's line (or is an overload of the entity that does). The calls
the oracle resolves are those whose definition is a function, method or
class in the workspace, or another declaration ctxls has as an entity.

For Rust and Java (--lang rust|java) no oracle runs offline: only the
references and the share resolved are printed.

Printed: references, the share ctxls resolved, precision (right / resolved,
and over the edges the oracle could check), recall (right / calls the oracle
resolves to a function, method or class in the workspace), and with --show N
the first N wrong and missed edges. --sample N --seed S checks a random
sample instead of every reference.
"""
import argparse
import json
import os
import random
import re
import sqlite3
import subprocess
import sys

LANGS = {
    "python": (".py",),
    "ts": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
    # No oracle runs offline for these: only the share resolved is printed.
    "rust": (".rs",),
    "java": (".java",),
}


def qnames_at(con, o):
    """The qualified names of the entities named like the oracle's definition
    whose lines span it: typing overloads of one function are one callee, as
    build-tag variants are for the Go harness."""
    return {q for (q,) in con.execute(
        """SELECT e.qname FROM entities e JOIN files f ON f.id = e.file_id
           WHERE f.path = ? AND e.name = ? AND e.start_line <= ? AND e.end_line >= ?""",
        (o["path"], o["name"], o["line"], o["line"]))}


def load_refs(con, exts):
    rows = con.execute(
        """SELECT r.rowid, f.path, r.line, r.name, r.qualifier, d.name, df.path, d.start_line, d.end_line, d.qname
           FROM refs r JOIN entities s ON s.id = r.src_id JOIN files f ON f.id = s.file_id
           LEFT JOIN entities d ON d.id = r.dst_id LEFT JOIN files df ON df.id = d.file_id
           WHERE r.kind = 1 ORDER BY f.path, r.line, r.rowid""").fetchall()
    refs = []
    for rowid, path, line, name, qual, dname, dpath, dstart, dend, dq in rows:
        if not path.endswith(exts) or "/node_modules/" in path:
            continue
        refs.append(dict(rowid=rowid, path=path, line=line, name=name, qual=qual,
                         dst=None if dpath is None else dict(name=dname, path=dpath, start=dstart, end=dend, qname=dq)))
    return refs


def place(root, refs):
    """Give each reference the column of its name on its line."""
    lines = {}
    seen = {}
    out = []
    for r in refs:
        if r["path"] not in lines:
            try:
                with open(os.path.join(root, r["path"]), encoding="utf-8", errors="replace") as f:
                    lines[r["path"]] = f.read().split("\n")
            except OSError:
                lines[r["path"]] = []
        ls = lines[r["path"]]
        if r["line"] - 1 >= len(ls):
            continue
        text = ls[r["line"] - 1]
        key = (r["path"], r["line"], r["name"])
        k = seen.get(key, 0)
        seen[key] = k + 1
        ms = [m.start() for m in re.finditer(r"(?<![\w$])%s(?![\w$])" % re.escape(r["name"]), text)]
        if k >= len(ms):
            continue
        r["col"] = ms[k]  # 0-based
        out.append(r)
    return out


def jedi_oracle(root, refs, venv):
    import jedi
    # The directories above top-level packages come first on the path, so
    # that `import requests` in the tests is the workspace's requests, not
    # an installed copy.
    roots = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "node_modules"]
        if "__init__.py" in files and not os.path.exists(os.path.join(os.path.dirname(d), "__init__.py")):
            roots.add(os.path.dirname(d))
    project = jedi.Project(root, added_sys_path=sorted(roots))
    # An environment without the workspace's own package installed (a
    # fresh venv: the standard library only), else jedi prefers the
    # installed copy, whose lines differ.
    env = jedi.create_environment(venv) if venv else None
    scripts = {}
    for r in refs:
        p = os.path.join(root, r["path"])
        s = scripts.get(p)
        if s is None:
            with open(p, encoding="utf-8", errors="replace") as f:
                s = jedi.Script(f.read(), path=p, project=project, environment=env)
            scripts = {p: s}  # one file at a time: refs are sorted by path
        try:
            defs = s.goto(r["line"], r["col"], follow_imports=True)
        except Exception:
            defs = []
        r["oracle"] = None
        for d in defs:
            mp = str(d.module_path) if d.module_path else ""
            if mp.startswith(root + os.sep):
                if d.type in ("function", "class") and d.line:
                    r["oracle"] = dict(path=os.path.relpath(mp, root), line=d.line, name=d.name)
                else:
                    r["oracle"] = dict(path=os.path.relpath(mp, root), line=d.line or 0, name=d.name, other=d.type)
            else:
                r["oracle"] = dict(external=mp or d.type)
            break


def ts_oracle(root, refs, node_modules):
    here = os.path.dirname(os.path.abspath(__file__))
    req = "\n".join(json.dumps(dict(path=r["path"], line=r["line"], col=r["col"])) for r in refs)
    env = dict(os.environ, NODE_PATH=node_modules)
    out = subprocess.run(["node", os.path.join(here, "tsoracle.mjs"), root, node_modules], input=req,
                         capture_output=True, text=True, env=env, check=True).stdout
    answers = [json.loads(l) for l in out.splitlines() if l.strip()]
    for r, a in zip(refs, answers):
        r["oracle"] = a


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", choices=sorted(LANGS), required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--db", help="index.db (default ROOT/.ctxls/index.db)")
    ap.add_argument("--node-modules", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "node_modules"))
    ap.add_argument("--venv", help="Python environment for jedi, e.g. from `python3 -m venv --without-pip DIR`")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--under", default="", help="only references in files under this directory")
    ap.add_argument("--json-out")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    con = sqlite3.connect("file:%s?mode=ro" % (a.db or os.path.join(root, ".ctxls", "index.db")), uri=True)
    refs = load_refs(con, LANGS[a.lang])
    if a.under:
        refs = [r for r in refs if r["path"].startswith(a.under.rstrip("/") + "/")]
    refs = place(root, refs)
    if a.sample:
        refs = sorted(random.Random(a.seed).sample(refs, min(a.sample, len(refs))), key=lambda r: (r["path"], r["line"], r["rowid"]))
    if a.lang in ("rust", "java"):
        n, resolved = len(refs), sum(1 for r in refs if r["dst"] is not None)
        print("references\t%d" % n)
        print("resolved\t%d\t%.1f %%" % (resolved, 100.0 * resolved / max(n, 1)))
        return
    if a.lang == "python":
        jedi_oracle(root, refs, a.venv)
    else:
        ts_oracle(root, refs, os.path.abspath(a.node_modules))
    resolved = right = wrong_checked = unchecked = want = 0
    wrong, missed = [], []
    for r in refs:
        o, d = r.get("oracle"), r["dst"]
        # A definition the oracle finds counts when it is a function,
        # method or class, or another declaration that ctxls indexes as an
        # entity (`export const f = () => …`).
        at = qnames_at(con, o) if o is not None and "path" in o else set()
        target = o is not None and "path" in o and ("other" not in o or bool(at))
        if target:
            want += 1
        if d is None:
            if target:
                missed.append(r)
            continue
        resolved += 1
        if o is None:
            unchecked += 1
            continue
        if target and d["path"] == o["path"] and d["name"] == o["name"] and (
                d["start"] <= o["line"] <= d["end"] or d["qname"] in at):
            right += 1
        else:
            wrong_checked += 1
            wrong.append(r)
    n = len(refs)
    print("references\t%d" % n)
    print("resolved\t%d\t%.1f %%" % (resolved, 100.0 * resolved / max(n, 1)))
    print("oracle resolves in workspace\t%d" % want)
    print("right\t%d\twrong\t%d\tunchecked (oracle: nothing)\t%d" % (right, wrong_checked, unchecked))
    print("precision\t%.1f %%\t(checked: %.1f %%)" % (100.0 * right / max(resolved, 1), 100.0 * right / max(right + wrong_checked, 1)))
    print("recall\t%.1f %%" % (100.0 * right / max(want, 1)))
    for r in wrong[:a.show]:
        print("  wrong  %s:%d %s%s → %s:%d %s  oracle %s" % (r["path"], r["line"], r["qual"] + "." if r["qual"] else "", r["name"],
              r["dst"]["path"], r["dst"]["start"], r["dst"]["qname"], r["oracle"]))
    for r in missed[:a.show]:
        print("  missed %s:%d %s%s  oracle %s" % (r["path"], r["line"], r["qual"] + "." if r["qual"] else "", r["name"], r["oracle"]))
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(refs, f)


if __name__ == "__main__":
    main()
