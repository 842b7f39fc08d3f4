package retrieval

import (
	"context"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
)

var qualSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.|::|->|#`) })

// exactMatches credits entities that a trigger names outright: a symbol by
// (qualified) name, a file by path, the entity at an error's line. It
// returns the strongest trigger that names something here as written (a
// declaration spelled in the same case, a qualified name's suffix, a
// path): the prompt gate's evidence that the message is about this code,
// which the credits share among all the entities of a name (a name that
// several declarations share is still a name of this code).
func exactMatches(ctx context.Context, st *store.Store, triggers []analyzer.Trigger, get func(int64) *cand) (float64, error) {
	var names float64
	credit := func(id int64, v float64, why string) {
		c := get(id)
		if v > c.exact {
			c.exact = v
		}
		c.why = append(c.why, why)
	}
	for _, tr := range triggers {
		switch tr.Type {
		case analyzer.TriggerSymbol, analyzer.TriggerHover, analyzer.TriggerSelection:
			parts := qualSep().Split(tr.Query, -1)
			name := parts[len(parts)-1]
			if len(name) < 2 {
				continue
			}
			ents, err := st.EntitiesByName(ctx, name, 64)
			if err != nil {
				return 0, err
			}
			qual := strings.ToLower(strings.Join(parts, "."))
			// A dotted name can be a module path: requests.compat,
			// core.logx, os.path.
			if len(parts) > 1 {
				files, err := st.FilesByStem(ctx, strings.Join(parts, "/"), 4)
				if err != nil {
					return 0, err
				}
				if len(files) > 0 {
					names = math.Max(names, tr.Relevance)
				}
				for _, f := range files {
					credit(f.ID, tr.Relevance/math.Sqrt(float64(len(files))), "module "+tr.Query)
				}
			}
			n := float64(len(ents))
			for _, e := range ents {
				v := tr.Relevance / math.Sqrt(n)
				if len(parts) > 1 {
					if strings.HasSuffix(strings.ToLower(e.QName), qual) {
						v = tr.Relevance
						names = math.Max(names, tr.Relevance)
					} else {
						v *= 0.5
					}
				} else if e.Name != name {
					v *= 0.7 // case differs
				} else {
					names = math.Max(names, tr.Relevance)
				}
				credit(e.ID, v, fmt.Sprintf("named %q", tr.Query))
			}
		case analyzer.TriggerPath, analyzer.TriggerErrorLoc, analyzer.TriggerFileOpen, analyzer.TriggerFileEdit:
			files, err := filesForPath(ctx, st, tr.Query)
			if err != nil {
				return 0, err
			}
			if len(files) > 0 {
				names = math.Max(names, tr.Relevance)
			}
			for _, f := range files {
				v := tr.Relevance / math.Sqrt(float64(len(files)))
				if tr.Line > 0 {
					v *= 0.5 // the entity at the line is the better answer
				}
				credit(f.ID, v, "path "+tr.Query)
				if tr.Line > 0 {
					e, ok, err := st.EntityAt(ctx, f.Path, tr.Line)
					if err != nil {
						return 0, err
					}
					if ok {
						credit(e.ID, tr.Relevance, fmt.Sprintf("at %s:%d", tr.Query, tr.Line))
					}
				}
			}
		}
	}
	return names, nil
}

// filesForPath finds indexed files a path in a message refers to: relative
// or absolute, with or without leading "./". An absolute path from another
// machine matches by its longest suffix that exists here.
func filesForPath(ctx context.Context, st *store.Store, p string) ([]store.File, error) {
	p = strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, `\`, "/")), "./")
	p = strings.TrimLeft(p, "/")
	if i := strings.Index(p, ":/"); i == 1 { // Windows drive
		p = p[i+2:]
	}
	for p != "" {
		files, err := st.FilesByPathSuffix(ctx, p, 8)
		if err != nil || len(files) > 0 {
			return files, err
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return nil, nil
		}
		p = p[i+1:]
	}
	return nil, nil
}

// The phrase signal (docs/decisions/0120): a run of the message's words
// that spells an identifier's parts in order.
const (
	// phraseCredit is the exact credit of an entity whose name a phrase
	// spells, shared like a named symbol's among the entities it spells
	// (credit / sqrt(n)): below a symbol named as written (0.9), since the
	// words may only happen to follow each other.
	phraseCredit = 0.5
	// maxPhraseEntities is how many entities a phrase may spell before it
	// says nothing about any of them ("test case", "error message").
	maxPhraseEntities = 30
	// maxPhrases bounds the phrases searched for a message.
	maxPhrases = 24
)

// phraseMatches credits the entities whose names the message's phrases
// spell (analyzer.Phrases). A phrase of conversation words only ("keep
// going"), or with a word the index does not hold (df), never counts. A
// three-word phrase is searched only where it can tell more than its two
// two-word phrases: both spell some name and one of them too many. It
// reports whether some phrase spelled a name (at most maxPhraseEntities),
// which the prompt gate counts as evidence (gateEvidence).
func phraseMatches(ctx context.Context, st *store.Store, text string, df map[string]int, get func(int64) *cand) (bool, error) {
	spelledName := false
	spelled := map[string]int{} // phrase → how many names it spells (at most maxPhraseEntities+1)
	// One analyzer for the names the phrases' candidates hold: its cache
	// keeps a repeated name part from being stemmed again.
	names := analyzer.New()
	for _, p := range analyzer.Phrases(text, maxPhrases) {
		if !slices.ContainsFunc(p.Terms, func(t string) bool { return !conversational[t] }) ||
			slices.ContainsFunc(p.Terms, func(t string) bool { return df[t] == 0 }) {
			continue // "keep going"; a word the index does not hold
		}
		if n := len(p.Terms); n > 2 {
			head := analyzer.Phrase{Terms: p.Terms[:n-1]}.String()
			tail := analyzer.Phrase{Terms: p.Terms[1:]}.String()
			if spelled[head] == 0 || spelled[tail] == 0 || max(spelled[head], spelled[tail]) <= maxPhraseEntities {
				continue
			}
		}
		hits, err := st.NamedByPhrase(ctx, p.Terms, maxPhraseEntities+1, names.Terms)
		if err != nil {
			return false, err
		}
		spelled[p.String()] = len(hits)
		if len(hits) == 0 || len(hits) > maxPhraseEntities {
			continue
		}
		spelledName = true
		for _, h := range hits {
			// A phrase that spells most of a name says more than one inside a
			// long name ("variant field" in a test named by a sentence).
			share := min(1, float64(len(p.Terms))/float64(max(nameParts(h.Name), 1)))
			v := phraseCredit * share / math.Sqrt(float64(len(hits)))
			c := get(h.ID)
			c.file = h.FileID
			if v > c.exact {
				c.exact = v
			}
			c.why = append(c.why, fmt.Sprintf("phrase %q", p.String()))
		}
	}
	return spelledName, nil
}

// nameParts counts the parts of an identifier that are terms (stop words
// and single letters left out): pick_next_task_fair has four.
func nameParts(name string) int {
	n := 0
	for _, part := range analyzer.SplitIdentifier(name) {
		if _, ok := analyzer.Term(part); ok {
			n++
		}
	}
	return n
}
