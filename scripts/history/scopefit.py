#!/usr/bin/env python3
"""Re-score a dump of ranked files offline with the conventional-commit scope
naming a file by its stem (decision 0076, amendment of stop 28).

  scopefit.py DUMP.jsonl [WEIGHT MODE]

DUMP is what explainwrap.py recorded in a run of ../shared/eval/run.py with
--query-limit 100. Every file is re-scored as retrieval.fileScore does (the
weights below are the shipped fw* constants); a file whose stem is a word in
the subject's parentheses then gets, by MODE: "fold", a scope signal of 1
(the most specific area: one file; no weight of its own); "folddir", the
same unless a directory on the file's path is named by the scope too; "bin", WEIGHT
added; "share", WEIGHT divided by how many listed files share the stem. The
table is by half (even = fit, odd = held out, by line within each case
file of $CASES, default ../shared/eval/cases/*.jsonl); with WEIGHT and MODE, also by case file. At weight 0 every rank must
equal the dump's own order, which the first line checks. With $RUN, the JSON
of run.py's own run of the same cases, the non-lexical cases are reported
apart as well.
"""
import json, sys, os, re, collections, glob
# retrieval's fw* constants; the weight-0 check below catches a drift.
W = {"whole": 1, "lexical": 0.3, "coverage": 0, "exact": 1.5, "graph": 0.25, "active": 0.25, "size": 0.8, "scope": 0.8, "history": 1.0, "recent": 0.75}
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit import load  # noqa: E402  the dump's cases, as fit.py reads them

cases = load(sys.argv[1], sorted(glob.glob(os.environ.get('CASES', '../shared/eval/cases/*.jsonl'))))

def scope_words(q):
    subj = q.strip().split('\n')[0][:100]
    return set(w.lower() for s in re.findall(r'\(([^)]*)\)', subj) for w in re.findall(r'[A-Za-z][A-Za-z0-9]+', s))

def stem(p): return os.path.splitext(os.path.basename(p))[0].lower()

def rank(c, ws, mode):
    words = scope_words(c['q'])
    k = collections.Counter(stem(p) for p, _ in c['files'])
    scored = []
    for i, (p, s) in enumerate(c['files']):
        st = stem(p)
        dirs = set(p.lower().split('/')[:-1])
        if mode == 'folddir' and ws and st in words and not (dirs & words):
            s = dict(s); s['scope'] = 1.0
        if mode == 'fold' and ws and st in words:
            s = dict(s); s['scope'] = 1.0
        v = sum(w * s.get(n, 0) for n, w in W.items())
        if mode not in ('fold', 'folddir') and ws and st in words:
            v += ws * (1.0 if mode == 'bin' else 1.0 / k[st])
        scored.append((-v * s.get('demotion', 1), i, p))
    scored.sort()
    for r, (_, _, p) in enumerate(scored[:10], 1):
        if p in c['gold']: return r
    return None

def met(cs, ws, mode):
    rs = [rank(c, ws, mode) for c in cs]; n = len(cs)
    return dict(n=n, mrr=sum(1/r for r in rs if r)/n, h1=sum(1 for r in rs if r==1)/n, h5=sum(1 for r in rs if r and r<=5)/n, h10=sum(1 for r in rs if r)/n)

def fmt(m): return 'n=%d mrr %.4f h1 %.3f h5 %.3f h10 %.3f' % (m['n'], m['mrr'], m['h1'], m['h5'], m['h10'])
# sanity: the dump's own order
orig = 0
for c in cases:
    r0 = next((i+1 for i, (p, _) in enumerate(c['files'][:10]) if p in c['gold']), None)
    if r0 != rank(c, 0, 'bin'): orig += 1
print('cases', len(cases), 'rank differs from dump order at weight 0:', orig)
even = [c for c in cases if c['half'] == 0]; odd = [c for c in cases if c['half'] == 1]
for mode in ('bin', 'share', 'fold', 'folddir'):
    print('mode', mode)
    for ws in [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5]:
        me = met(even, ws, mode); mo = met(odd, ws, mode)
        print('  ws %.2f even %s obj %.4f | odd %s' % (ws, fmt(me), me['mrr'] + 0.5*me['h5'], fmt(mo)))
if len(sys.argv) > 2:
    ws = float(sys.argv[2]); mode = sys.argv[3]
    for f in sorted({c['file'] for c in cases}):
        cs = [c for c in cases if c['file'] == f]
        print('%-34s %s -> %s' % (f, fmt(met(cs, 0, mode)), fmt(met(cs, ws, mode))))
    print('all', fmt(met(cases, 0, mode)), '->', fmt(met(cases, ws, mode)))
    if os.environ.get('RUN'):
        lex = {c['id']: c['lexical'] for c in json.load(open(os.environ['RUN']))['cases']}
        for name, want in (('lexical', True), ('non-lexical', False)):
            cs = [c for c in cases if lex.get(c['id']) == want]
            print('%-34s %s -> %s' % (name, fmt(met(cs, 0, mode)), fmt(met(cs, ws, mode))))
