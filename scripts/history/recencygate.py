#!/usr/bin/env python3
"""Re-score the recency signal in other forms offline (decision 0114's amendment).

  recencygate.py DUMP.jsonl ../shared/eval/cases/*.jsonl

DUMP is what explainwrap.py recorded (run.py with --query-limit 100). Each
case's top files are re-scored as retrieval.fileScore does, with the recency
term added as shipped ("add"), or multiplied by the whole-file score
("whole"), by min(1, whole + lexical + exact + history) ("evid"), or by
whether the file has lexical, exact or history evidence ("lexany"), over a
grid of weights; MRR@10 and hit@5 per half (even indices fit, odd check)
and MRR per case file are printed.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit as H  # noqa: E402

cases = H.load(sys.argv[1], sys.argv[2:])
BASE = dict(H.FIXED); BASE['history'] = 1.0
def rank(case, form, wr):
    scored = []
    for i, (p, s) in enumerate(case['files']):
        v = sum(w * s.get(k, 0) for k, w in BASE.items() if k != 'recent')
        r = s.get('recent', 0)
        if form == 'add': g = 1
        elif form == 'whole': g = s.get('whole', 0)
        elif form == 'evid': g = min(1.0, s.get('whole', 0) + s.get('lexical', 0) + s.get('exact', 0) + s.get('history', 0))
        elif form == 'lexany': g = 1 if (s.get('lexical', 0) > 0 or s.get('exact', 0) > 0 or s.get('history', 0) > 0) else 0
        v += wr * r * g
        scored.append((-v * s.get('demotion', 1), i, p))
    scored.sort()
    for k, (_, _, p) in enumerate(scored[:10], 1):
        if p in case['gold']:
            return k
    return None
def m(cs, form, wr):
    rs = [rank(c, form, wr) for c in cs]; n = len(cs)
    return sum(1/r for r in rs if r)/n, sum(1 for r in rs if r and r <= 5)/n
for form in ['add', 'whole', 'evid', 'lexany']:
    for wr in [0, 0.25, 0.5, 0.75, 1.0, 1.5]:
        ev = [c for c in cases if c['half'] == 0]; od = [c for c in cases if c['half'] == 1]
        e, o = m(ev, form, wr), m(od, form, wr)
        per = collections.defaultdict(list)
        for c in cases: per[c['file'].split('.')[0].split('__')[-1] + '.' + c['file'].split('.')[-2]].append(c)
        print(form, wr, 'even %.4f/%.3f odd %.4f/%.3f all %.4f' % (e[0], e[1], o[0], o[1], m(cases, form, wr)[0]),
              ' '.join('%s %.3f' % (k[:12], m(v, form, wr)[0]) for k, v in sorted(per.items())))
