#!/usr/bin/env python3
"""Simulate per-rank entry caps of the prompt focus (focusPerFile, focusPerOtherFile) on what the prompt hook
injected: a `context_eval.py --json-out` file, whose cases list each injected entry as [source, path, chars] in
the hook's order (best file first). For caps (c0, c1, c2) it keeps the first c_i entries of the file at rank i
and reports covered, mean precision (share of injected characters from gold files) and irrelevant, per half of
the dev set (even/odd case position) and per case file.

  python3 scripts/gate/perfile_sim.py /tmp/ctx.json
"""
import collections, json, sys

def sim(cases, caps):
    prec, cov, irr, n = [], 0, 0, 0
    for c in cases:
        n += 1
        if not c['injected']:
            continue
        files, seen, kept = [], collections.Counter(), []
        for _, p, ch in c['injected']:
            if p not in files:
                files.append(p)
            if seen[p] < caps[min(files.index(p), len(caps) - 1)]:
                kept.append((p, ch))
                seen[p] += 1
        tot = sum(ch for _, ch in kept)
        gold = sum(ch for p, ch in kept if p in c['gold'])
        prec.append(gold / tot if tot else 0)
        cov += gold > 0
        irr += gold == 0
    return cov / n, sum(prec) / len(prec), irr / len(prec)

d = json.load(open(sys.argv[1]))
groups = collections.defaultdict(list)
for i, c in enumerate(d['cases']):
    groups['all'].append(c)
    groups['even' if i % 2 == 0 else 'odd'].append(c)
    groups[c['repo'] + ' ' + c['source']].append(c)
for caps in [(3, 3, 3), (3, 2, 2), (3, 2, 1), (3, 1, 1), (3, 1, 0)]:
    print('caps', caps)
    for g, cs in groups.items():
        cov, prec, irr = sim(cs, caps)
        print(f'  {g:32s} n {len(cs):4d} covered {cov:.3f} precision {prec:.3f} irrelevant {irr:.3f}')
