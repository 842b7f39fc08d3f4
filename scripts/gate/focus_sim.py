#!/usr/bin/env python3
"""Simulate the prompt focus's score-share cut (focusScoreShare) on per-case `ctxls query --explain --limit 100`
dumps (one JSON line per case: {"args": [...query text last], "resp": <query --json>}): for each share r, the
share of cases whose shown files (top 3 scoring at least r of the best) include a gold file, and the mean
share of shown files that are gold, per half of the dev set (line parity of each case file) and per repository.

  python3 scripts/gate/focus_sim.py   # reads /tmp/hist-dump-all.jsonl and ../shared/eval/cases
"""
import json, glob, collections
# map query text -> case (repo, gold, file index parity)
cases = {}
for fn in sorted(glob.glob('/work/shared/eval/cases/*.jsonl')):
    for i, line in enumerate(open(fn)):
        c = json.loads(line)
        cases[(c['query'])] = (fn.split('/')[-1], c['gold'], i % 2)
rows = []
for line in open('/tmp/hist-dump-all.jsonl'):
    d = json.loads(line)
    q = d['args'][-1]
    if q not in cases: continue
    fn, gold, par = cases[q]
    files = [(f['path'], f['score']) for f in (d['resp'].get('files') or [])]
    rows.append((fn, set(gold), par, files))
print(len(rows))
def sim(rows, r, k=3):
    cov = prec = n = 0
    for fn, gold, par, files in rows:
        if not files: continue
        top = files[0][1]
        chosen = [p for p, s in files[:k] if s >= r * top]
        n += 1
        g = sum(1 for p in chosen if p in gold)
        cov += g > 0
        prec += g / len(chosen)
    return cov / n, prec / n
for par in (0, 1):
    sub = [x for x in rows if x[2] == par]
    print('half', par, ' '.join('r=%.2f cov %.3f prec %.3f |' % ((r,) + sim(sub, r)) for r in (0, .4, .5, .6, .7, .8, 1.0)))
for fn in sorted(set(x[0] for x in rows)):
    sub = [x for x in rows if x[0] == fn]
    print(fn[:28].ljust(28), ' '.join('%.2f:%.3f/%.3f' % ((r,) + sim(sub, r)) for r in (0, .5, .6, .7)))
