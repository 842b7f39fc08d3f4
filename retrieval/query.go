// Package retrieval finds the code that matters for a prompt and for what the
// person is doing, and packs it into a token budget.
//
// The ranking pipeline, in order (see Query):
//
//  1. analyze: triggers (symbols, paths, error locations, questions) and
//     weighted terms from the message (package analyzer);
//  2. lexical: BM25F per term over the full-text index, summed with term
//     weights, and each candidate's IDF-weighted coverage of the query;
//  3. exact: entities whose name or qualified name a trigger spells out, files
//     a path names, entities at an error's line, and names whose parts a run
//     of the message's words spells in order (phraseMatches);
//  4. structural: a personalised PageRank over the entity graph, restarted
//     at the seeds (exact matches, named and active files, top lexical hits),
//     so that callers, callees and definitions of what is in play rank up;
//  5. fuse the signals into one score, aggregate to files (with the files of
//     past commits whose messages resemble the message: history.go), and
//     abstain when the best candidate's relevance is below the threshold.
package retrieval

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// Request is one retrieval.
type Request struct {
	// Text is the message: a prompt, an issue, pasted error output.
	Text string
	// ActiveFiles are files in play (the editor's active file first),
	// relative to the root.
	ActiveFiles []string
	// Triggers are extra triggers from activity or earlier turns.
	Triggers []analyzer.Trigger
	// MessageTriggers, when not nil, are analyzer.Message(Text), from a
	// caller that analysed the message already (the prompt hook records
	// its symbols); Query does not change them.
	MessageTriggers []analyzer.Trigger
	// Limit bounds the results; 0 means 10.
	Limit int
	// MinRelevance is the abstention threshold in [0, 1]; a negative value
	// disables abstention.
	MinRelevance float64
	// EntitiesOnly skips file ranking (Response.Files stays empty), for
	// callers that assemble context from entities: it saves a whole-file
	// search per term.
	EntitiesOnly bool
	// DropMessageTriggers are trigger types not taken from Text (an
	// editor's switches: no symbol mentions, no implicit questions).
	DropMessageTriggers []analyzer.TriggerType
	// NoMessageTerms stops Text's plain words from being searched: only
	// the triggers found in it count.
	NoMessageTerms bool
	// Gate is the evidence needed before answering; the zero value is
	// GateRelevance.
	Gate Gate
	// Focus shapes the results for an assistant: the best entities of the
	// best files (focusOnFiles), no prose unless the message asks about
	// documentation. It needs file ranking (EntitiesOnly false).
	Focus bool
}

// Signals are the evidence behind a score, for --explain.
type Signals struct {
	Lexical  float64 `json:"lexical"`  // BM25F, normalised to the best candidate
	Coverage float64 `json:"coverage"` // IDF-weighted share of query terms matched
	Exact    float64 `json:"exact"`    // named by a symbol, path or error trigger
	Active   float64 `json:"active"`   // in an active or recent file
	Graph    float64 `json:"graph"`    // personalised PageRank, normalised
}

// Result is a ranked entity.
type Result struct {
	Entity    store.Entity `json:"-"`
	Score     float64      `json:"score"`
	Relevance float64      `json:"relevance"`
	Signals   Signals      `json:"signals"`
	Why       []string     `json:"why,omitempty"`
	// Detail is how much of the entity a context shows.
	Detail Detail `json:"detail,omitempty"`
}

// Detail is how much of an entity a context shows: a focused context
// spends its characters where the change most likely is (decision 0091).
type Detail int

const (
	// DetailFull shows the entity's code (ContextOptions.ExcerptLines) and
	// its neighbourhood.
	DetailFull Detail = iota
	// DetailShort shows the first half of the excerpt, no neighbourhood.
	DetailShort
	// DetailBrief shows the entity's header only: its kind, name, path
	// and line.
	DetailBrief
)

// FileResult is a ranked file.
type FileResult struct {
	Path      string  `json:"path"`
	Score     float64 `json:"score"`
	Relevance float64 `json:"relevance"`
	// Signals are the evidence behind Score.
	Signals *FileSignals `json:"signals,omitempty"`
}

// Response is what Query found.
type Response struct {
	Files    []FileResult       `json:"files"`
	Results  []Result           `json:"results"`
	Triggers []analyzer.Trigger `json:"triggers"`
	Terms    map[string]float64 `json:"terms"` // term → weight × idf
	Abstain  bool               `json:"abstained"`
	Reason   string             `json:"reason,omitempty"`
	// generation is the store's Generation when the query began (see
	// freshen).
	generation uint64
}

// Field weights for BM25F: an identifier's own name and qualified name are
// the strongest evidence, then its path and signature, then its doc and body.
var fieldWeights = store.FieldWeights{5, 3, 2.5, 2, 1.2, 1}

// File fusion weights (see fileScore).
const (
	fwWhole    = 1
	fwLexical  = 0.3
	fwCoverage = 0
	fwExact    = 1.5
	fwGraph    = 0.25
	fwActive   = 0.25
	fwSize     = 0.8
	fwScope    = 0.8
	// fwHistory weighs past commits like the message (decision 0094).
	fwHistory = 1.0
	// fwRecent weighs how recently a commit touched the file (decision
	// 0114).
	fwRecent = 0.75
)

// Fusion weights. Lexical evidence dominates; exact mentions and the graph
// re-order what lexical search finds and add what it misses.
const (
	wLexical = 0.50
	wExact   = 0.25
	wGraph   = 0.15
	wActive  = 0.10

	perTermLimit = 200
	// maxFileCandidates bounds the entities whose files are looked up.
	maxFileCandidates = 400
	// fileDepth is how many of the leading files, at least, the file
	// ranking re-orders by what it reads per file (demotion, size, scope,
	// recency): not 4 × the request's limit, so that the first files of a
	// ranking do not depend on how many the request asks for (decision
	// 0121).
	fileDepth = 400
	// wholeFiles is the depth of the whole-file list (at least 4 × the
	// limit): read 400 deep it cost the prompt query 3 ms (decision 0121).
	wholeFiles = 100
	// maxWholeQueryTerms bounds the terms of the whole-file query.
	maxWholeQueryTerms = 40
	// maxWholeDocShare drops, from the whole-file query only, terms in more
	// than this share of all entity documents. It is far above maxDocShare:
	// a word common among declarations ("parser", "option", "timeout") can
	// still tell files apart, and a file's posting list is short next to
	// its entities'.
	maxWholeDocShare = 0.25
	// maxQueryTF caps how often a repeated message word counts.
	maxQueryTF = 3
	// testDemotion scales tests, test data and examples down unless the
	// message is about tests: they are useful context but rarely the answer.
	testDemotion = 0.6
	// File demotions, by class (see fileDemotion).
	fileTestDemotion       = 0.1
	fileDocDemotion        = 0.1
	fileThirdPartyDemotion = 0.1
	// maxTerms bounds the terms searched per query (the most informative).
	maxTerms = 24
	// completeTop is how many leading candidates get exact scores.
	completeTop = 40
	// holdTop is how many leading candidates completeHolding considers for
	// the common terms, holdFloorRank the rank a candidate must be able to
	// reach to be checked, and holdCredit what a term held counts, as a
	// share of its weighted IDF: the BM25 of one occurrence in a document
	// of average length is about the IDF; half, because the field and the
	// count are unknown (decision 0116, fitted on the project's kernel
	// prompts: 0.25–0.75 and 200–300 gave the same function@10).
	holdTop       = 200
	holdFloorRank = 10
	holdCredit    = 0.5
	// maxCompleteDocs limits completion to terms cheap to look up.
	maxCompleteDocs = 500
	// maxDocShare drops terms that occur in more than this share of all
	// documents from matching: they cost time and carry almost no signal.
	maxDocShare = 0.08
	// minCommonDocs keeps maxDocShare from dropping terms of small
	// workspaces, where a few documents are already a large share.
	minCommonDocs = 200
	// relevanceMass is the matched IDF mass, in units of the largest IDF,
	// at which lexical relevance reaches 63% of its coverage value.
	relevanceMass = 0.73
	// minDocsForMass is the index size below which mass is not used.
	minDocsForMass = 500
	// maxRankedPostings is the longest posting list ranked on its own: a
	// longer one is searched in conjunction with the query's other long
	// lists (searchTogether), so its cost is bounded by the documents the
	// words share, not by the index's size (decision 0099).
	maxRankedPostings = 1000
	// maxConjunction is how many long-listed terms, the rarest, are first
	// searched together; minConjunctionHits is how many documents the
	// conjunction must find before fewer terms are tried.
	maxConjunction     = 4
	minConjunctionHits = 20
	// pairTerms is how many of the searched terms, the most informative,
	// pair up in namedByPairs, and maxPairNames how many names a pair may
	// hold and still credit them (decision 0126).
	pairTerms    = 4
	maxPairNames = 100
)

type cand struct {
	id       int64
	file     int64 // 0 until known
	lex      float64
	matched  map[string]float64 // term → its weighted BM25F contribution
	exact    float64
	active   float64
	graph    float64
	why      []string
	coverage float64
	mass     float64 // IDF-weighted mass of the query terms matched
}

// Query ranks the index's entities and files for a request.
func Query(ctx context.Context, st *store.Store, req Request) (*Response, error) {
	if req.Limit <= 0 {
		req.Limit = 10
	}
	resp := &Response{Terms: map[string]float64{}, generation: st.Generation(ctx)}
	// A web address's host and ids are no words of the request
	// (analyzer.WithoutLinks).
	text := analyzer.WithoutLinks(req.Text)
	messageTriggers := req.MessageTriggers
	if messageTriggers == nil {
		messageTriggers = analyzer.Message(text)
	} else {
		messageTriggers = slices.Clone(messageTriggers)
	}
	if len(req.DropMessageTriggers) > 0 {
		kept := messageTriggers[:0]
		for _, tr := range messageTriggers {
			if !slices.Contains(req.DropMessageTriggers, tr.Type) {
				kept = append(kept, tr)
			}
		}
		messageTriggers = kept
	}
	triggers := append(messageTriggers, req.Triggers...)
	resp.Triggers = triggers
	if req.MinRelevance > 0 && len(messageTriggers) == 0 && (req.NoMessageTerms || len(analyzer.Terms(text)) == 0) {
		// "thanks", "ok", "hi": nothing in the message to look up.
		resp.Abstain, resp.Reason = true, "the message names nothing to look up"
		return resp, nil
	}

	// 1. Weighted terms: every word of the message counts once; identifiers
	// a trigger names count more.
	weights := map[string]float64{}
	fromMessage := map[string]bool{}
	// qtf counts how often the message repeats each term, for the
	// whole-file and history queries: the message is analysed once.
	qtf := map[string]int{}
	an := analyzer.New()
	an.Each(text, func(t string) {
		qtf[t]++
		if !req.NoMessageTerms {
			weights[t] = math.Max(weights[t], 1)
			fromMessage[t] = true
		}
	})
	for _, tr := range messageTriggers {
		if tr.Type == analyzer.TriggerSymbol || tr.Type == analyzer.TriggerImplicit {
			an.Each(tr.Query, func(t string) { weights[t] = math.Max(weights[t], 1+tr.Relevance) })
		}
	}
	// Triggers carried from elsewhere (earlier prompts, the editor) add
	// their words below the message's own: they refine, never lead.
	for _, tr := range req.Triggers {
		if tr.Type == analyzer.TriggerSymbol || tr.Type == analyzer.TriggerImplicit {
			an.Each(tr.Query, func(t string) { weights[t] = math.Max(weights[t], tr.Relevance) })
		}
	}
	terms := make([]string, 0, len(weights))
	for t := range weights {
		terms = append(terms, t)
	}
	// A fixed order: every sum over the terms below must give the same
	// bits on every run, or near-ties flip.
	sort.Strings(terms)
	df, total, err := st.TermStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	cands := map[int64]*cand{}
	get := func(id int64) *cand {
		c := cands[id]
		if c == nil {
			c = &cand{id: id}
			cands[id] = c
		}
		return c
	}

	// 2. Lexical.
	var idfMass float64
	idf := map[string]float64{}
	for _, t := range terms {
		n := df[t]
		// Terms absent from the index still count toward the query's mass:
		// a prompt about things the code does not contain has low coverage.
		v := math.Log(1 + (float64(total)-float64(n)+0.5)/(float64(n)+0.5))
		idf[t] = v
		idfMass += v * weights[t]
		resp.Terms[t] = v * weights[t]
	}
	sort.SliceStable(terms, func(a, b int) bool { return idf[terms[a]]*weights[terms[a]] > idf[terms[b]]*weights[terms[b]] })
	matchedTerms := 0
	var searched, long []string
	for _, t := range terms {
		n := df[t]
		if tooCommon(n, total) {
			// Too common to discriminate: neither matched nor counted.
			idfMass -= idf[t] * weights[t]
			continue
		}
		if n == 0 || matchedTerms >= maxTerms {
			continue
		}
		matchedTerms++
		searched = append(searched, t)
		if n > maxRankedPostings {
			long = append(long, t) // searched together below
			continue
		}
		hits, err := st.Search(ctx, []string{t}, fieldWeights, perTermLimit)
		if err != nil {
			return nil, err
		}
		credit(get, t, weights[t], hits)
	}
	if err := searchTogether(ctx, st, long, weights, idf, get); err != nil {
		return nil, err
	}
	if seeksFit(req.Gate) {
		if err := namedByPairs(ctx, st, searched, df, weights, idf, get); err != nil {
			return nil, err
		}
	}
	// Each term's list holds only its best documents: complete the scores
	// and term matches of the leading candidates, which decide the ranking
	// and the relevance gate.
	var rare []string
	for _, t := range searched {
		if df[t] <= maxCompleteDocs {
			rare = append(rare, t)
		}
	}
	if err := complete(ctx, st, cands, rare, weights); err != nil {
		return nil, err
	}
	// The common ones, searched only together, by whether the leading
	// candidates hold them.
	common := commonSearched(searched, df, req.Gate)
	if err := completeHolding(ctx, st, cands, common, weights, idf); err != nil {
		return nil, err
	}
	// 3. Exact mentions: the message's own first, so that the prompt gate
	// sees what the message names apart from what earlier turns carried.
	named, err := exactMatches(ctx, st, messageTriggers, get)
	if err != nil {
		return nil, err
	}
	spellsName := false // a run of the message's words spells a declaration's name
	if !req.NoMessageTerms {
		if spellsName, err = phraseMatches(ctx, st, text, df, get); err != nil {
			return nil, err
		}
	}
	if req.Gate == GatePrompt {
		var msgTerms []string // rarest first: the likeliest code words
		for _, t := range terms {
			if fromMessage[t] {
				msgTerms = append(msgTerms, t)
			}
		}
		evidence, err := gateEvidence(ctx, st, msgTerms, df, spellsName, identTerms(messageTriggers))
		if err != nil {
			return nil, err
		}
		if named < namedCode && evidence < promptEvidence {
			one, err := namesOneDeclaration(ctx, st, text)
			if err != nil {
				return nil, err
			}
			if one {
				named = 1
			}
		}
		if why := promptGate(named, evidence); why != "" {
			resp.Abstain, resp.Reason = true, why
			return resp, nil
		}
	}
	if _, err := exactMatches(ctx, st, req.Triggers, get); err != nil {
		return nil, err
	}
	// A name the message spells, found without its words' lists, is
	// scored on those words like the lexical candidates.
	if err := completeNamed(ctx, st, cands, rare, common, weights, idf); err != nil {
		return nil, err
	}
	for _, c := range cands {
		// In the query's term order, not the map's: a sum in random order
		// changes in its last bits between runs.
		var m float64
		for _, t := range terms {
			if _, ok := c.matched[t]; ok {
				m += idf[t] * weights[t]
			}
		}
		if idfMass > 0 {
			c.coverage = m / idfMass
		}
		c.mass = m
	}
	for i, p := range req.ActiveFiles {
		files, err := st.FilesByPathSuffix(ctx, strings.TrimPrefix(path.Clean(p), "./"), 1)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			c := get(f.ID)
			v := 0.9 / (1 + 0.25*float64(i))
			if v > c.active {
				c.active = v
				c.why = append(c.why, "active file "+f.Path)
			}
		}
	}
	if len(cands) == 0 {
		resp.Abstain, resp.Reason = true, "no entity matches the message"
		return resp, nil
	}

	// 4. Graph.
	if err := spread(ctx, st, cands, get); err != nil {
		return nil, err
	}

	// 5. Fuse. Entities are loaded only for the candidates that can still
	// make the cut: the provisional score ignores only the test-file
	// demotion, which can lower a score but never raise it.
	var maxLex float64
	for _, c := range cands {
		maxLex = math.Max(maxLex, c.lex)
	}
	provisional := func(c *cand) float64 {
		lexN := 0.0
		if maxLex > 0 {
			lexN = c.lex / maxLex
		}
		return wLexical*lexN*(0.5+0.5*c.coverage) + wExact*c.exact + wGraph*c.graph + wActive*c.active
	}
	// Scored once each: the graph can make thousands of candidates.
	type scored struct {
		id int64
		p  float64
	}
	order := make([]scored, 0, len(cands))
	for id, c := range cands {
		order = append(order, scored{id, provisional(c)})
	}
	slices.SortFunc(order, func(a, b scored) int {
		if a.p != b.p {
			return cmp.Compare(b.p, a.p)
		}
		return cmp.Compare(a.id, b.id)
	})
	order = order[:min(len(order), max(3*req.Limit, 50))]
	ids := make([]int64, len(order))
	for i, o := range order {
		ids[i] = o.id
	}
	ents, err := st.EntitiesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	want := asksAbout(text)
	results := make([]Result, 0, len(cands))
	for _, id := range ids {
		c := cands[id]
		e, ok := ents[id]
		if !ok {
			continue // a stale edge target
		}
		if req.Focus && !want.docs && isProse(e.Path) {
			continue
		}
		lexN := 0.0
		if maxLex > 0 {
			lexN = c.lex / maxLex
		}
		score := provisional(c) * demotion(e.Class, want)
		if e.Kind == "file" {
			// A file entity summarises its declarations (and matches on
			// its path); among entities, the declarations are the answer.
			score *= 0.5
		}
		// Relevance is evidence from the message (and carried-over
		// triggers) only: what is open in the editor ranks results but
		// never makes an unrelated message relevant.
		rel := math.Max(c.exact, relevanceOf(c.coverage, c.mass, massScale(total)))
		results = append(results, Result{
			Entity: e, Score: score, Relevance: rel,
			Signals: Signals{Lexical: lexN, Coverage: c.coverage, Exact: c.exact, Active: c.active, Graph: c.graph},
			Why:     c.why,
		})
	}
	sort.Slice(results, func(a, b int) bool {
		if results[a].Score != results[b].Score {
			return results[a].Score > results[b].Score
		}
		return results[a].Entity.ID < results[b].Entity.ID
	})
	// The gate looks at the ranked entities, before Focus chooses among
	// them what to show (showing fewer never makes a message less
	// relevant), and before the files are ranked, which an abstention
	// does not show.
	best := 0.0
	for _, r := range results[:min(len(results), req.Limit)] {
		best = math.Max(best, r.Relevance)
	}
	if req.MinRelevance >= 0 && best < req.MinRelevance {
		resp.Abstain = true
		resp.Reason = "nothing clears the relevance threshold"
		resp.Results = nil
		return resp, nil
	}
	if !req.EntitiesOnly {
		wt := wholeTerms(qtf, terms, df, total, messageTriggers)
		ht := historyTerms(qtf, terms, fromMessage)
		// A focused request shows no tests, docs or third-party code unless
		// the message asks for them: their whole-file documents are ranked
		// only when a demoted file could still reach the focus (0113).
		aside := !req.Focus || want.aside()
		whole, err := wholeFileRanks(ctx, st, wt, df, req.Limit, want.aside(), aside)
		if err != nil {
			return nil, err
		}
		fileOf, err := candidateFiles(ctx, st, cands)
		if err != nil {
			return nil, err
		}
		rank := func() ([]FileResult, error) {
			return rankFiles(ctx, st, text, cands, fileOf, whole, ht, idf, weights, idfMass, massScale(total), want, req.Limit)
		}
		files, err := rank()
		if err != nil {
			return nil, err
		}
		if !aside && !hidesAside(files) {
			if err := addWholeFiles(ctx, st, store.CorpusAside, wt, df, req.Limit, 0, whole); err != nil {
				return nil, err
			}
			if files, err = rank(); err != nil {
				return nil, err
			}
		}
		resp.Files = files
	}
	if req.Focus && len(resp.Files) > 0 {
		files := resp.Files
		if !want.docs {
			files = slices.DeleteFunc(slices.Clone(files), func(f FileResult) bool { return isProse(f.Path) })
		}
		focused, err := focusOnFiles(ctx, st, results, files, searched, max(req.MinRelevance, 0))
		if err != nil {
			return nil, err
		}
		if len(focused) > 0 {
			results = focused
		}
	}
	if len(results) > req.Limit {
		results = results[:req.Limit]
	}
	resp.Results = results
	return resp, nil
}

// relevanceOf maps lexical evidence to a relevance in [0, 1]. Coverage says
// how much of the message a candidate matches; mass, how much evidence that
// is in absolute terms, so that two everyday words fully matched ("looks
// great") do not count like a specific question half matched.
func relevanceOf(coverage, mass, scale float64) float64 {
	r := math.Min(1, coverage*1.25)
	if scale > 0 {
		r *= 1 - math.Exp(-mass/scale)
	}
	return r
}

// massScale is the matched IDF mass at which lexical relevance reaches 63%
// of its coverage value: relevanceMass times the IDF of the rarest possible
// term, so that the same question is as relevant in a small index as in a
// large one.
func massScale(total int) float64 {
	if total < minDocsForMass {
		// Too few documents for IDF to tell specific from everyday words:
		// coverage alone decides.
		return 0
	}
	return relevanceMass * math.Log(1+(float64(total)+0.5)/0.5)
}

// pathClass says what kind of code a path holds, for demotion.
type pathClass int

const (
	classSource     pathClass = iota
	classTest                 // tests and test data, when the message is not about tests
	classDoc                  // documentation and examples, when the message is not about them
	classThirdParty           // copies: someone else's code, or the build's output
)

// classOf ranks a file of class c (the indexer's, store.File.Class) as
// one kind of code; tests, docs and build scripts count as source when the
// message asks about them. A build script ranks as documentation: like a
// declaration file, it describes the project rather than doing its work.
func classOf(c workspace.Class, want asks) pathClass {
	switch {
	case !want.tests && c.Has(workspace.Test):
		return classTest
	case !want.docs && c.Has(workspace.Doc), !want.build && c.Has(workspace.BuildScript):
		return classDoc
	case c.Has(workspace.ThirdParty), c.Has(workspace.BuildOutput):
		return classThirdParty
	}
	return classSource
}

// demotion scales down entities of tests and documentation unless the
// message is about them, and of copies of third-party code: they are useful
// context but rarely where a change belongs.
func demotion(c workspace.Class, want asks) float64 {
	if classOf(c, want) == classSource {
		return 1
	}
	return testDemotion
}

// fileDemotion is demotion for ranking files, with factors fitted on the
// dev set (docs/EVAL.md).
func fileDemotion(c workspace.Class, want asks) float64 {
	switch classOf(c, want) {
	case classTest:
		return fileTestDemotion
	case classDoc:
		return fileDocDemotion
	case classThirdParty:
		return fileThirdPartyDemotion
	}
	return 1
}

// Words (as analyzed terms) that make a message about tests, about docs
// or about how the project is built and packaged.
var (
	testWords = analyzedSet("test", "tests", "testing", "spec", "specs", "unittest", "pytest", "bench", "benches", "benchmark", "benchmarks")
	docWords  = analyzedSet("doc", "docs", "documentation", "readme", "changelog", "markdown", "guide", "example", "examples")
	// Not "packaging", "requirements" or "dependencies": their stems are
	// those of "package", "required" and "depends", words of any change.
	buildWords = analyzedSet("build", "setup", "install", "installation", "bundle", "bundler", "webpack", "rollup",
		"gulp", "grunt", "nox")
)

// asks is what kind of file, other than source, a message asks about.
type asks struct{ tests, docs, build bool }

// asksAbout reads text once for the words of every kind: a word or an
// identifier part counts, so "fix TestParse" is about tests and "the
// latest release" is not.
func asksAbout(text string) asks {
	var a asks
	analyzer.New().Each(text, func(t string) {
		a.tests = a.tests || testWords[t]
		a.docs = a.docs || docWords[t]
		a.build = a.build || buildWords[t]
	})
	return a
}

// aside reports a message that asks about a kind of file kept aside from
// the source corpus (workspace.Class.Aside).
func (a asks) aside() bool { return a.tests || a.docs || a.build }

func analyzedSet(words ...string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words {
		if t, ok := analyzer.Term(w); ok {
			set[t] = true
		}
	}
	return set
}

// credit adds a term's hits to the candidates' lexical scores.
func credit(get func(int64) *cand, t string, weight float64, hits []store.Hit) {
	for _, h := range hits {
		c := get(h.ID)
		c.file = h.FileID
		c.add(t, weight*h.Score)
	}
}

// searchTogether searches terms whose posting lists are too long to rank one
// by one (in weighted IDF order, rarest first). Ranking a list costs a score
// per posting, so in a large index such a word used to be dropped, and a
// question made of ordinary words ("how does the scheduler pick the next
// task") found nothing. Searched as a conjunction, only the documents that
// hold all of the words are scored: the rarest maxConjunction terms first,
// then fewer, dropping the most common, until the conjunction finds enough
// documents. A hit's score, the sum of its terms' BM25, is credited to each
// term in proportion to the term's weighted IDF: scoring the terms one by
// one would read each long list again (decision 0099).
func searchTogether(ctx context.Context, st *store.Store, terms []string, weights, idf map[string]float64, get func(int64) *cand) error {
	group := terms[:min(len(terms), maxConjunction)]
	found := map[int64]bool{}
	for ; len(group) >= 2 && len(found) < minConjunctionHits; group = group[:len(group)-1] {
		hits, err := st.SearchAll(ctx, group, fieldWeights, perTermLimit)
		if err != nil {
			return err
		}
		var sum float64
		for _, t := range group {
			sum += idf[t] * weights[t]
		}
		for _, h := range hits {
			if found[h.ID] {
				continue // already credited by a larger conjunction
			}
			found[h.ID] = true
			c := get(h.ID)
			c.file = h.FileID
			for _, t := range group {
				c.add(t, h.Score*idf[t]*weights[t]/sum)
			}
		}
	}
	return nil
}

// namedByPairs adds the entities whose names hold two of the most
// informative searched terms, at least one of them too common to rank
// alone, when the pair names at most maxPairNames entities: each term of
// the pair a candidate was not credited with counts holdCredit × its
// weighted IDF, as a common word it holds does (decision 0126). In a large
// index a common word's top list holds short documents (macros, fields),
// and a long function named by two of the message's words ("loading a
// kernel module": load_module) was in no list at all. Only where the seeks
// fit (seeksFit).
func namedByPairs(ctx context.Context, st *store.Store, searched []string, df map[string]int, weights, idf map[string]float64, get func(int64) *cand) error {
	top := searched[:min(len(searched), pairTerms)]
	for i, a := range top {
		for _, b := range top[i+1:] {
			if df[a] <= maxRankedPostings && df[b] <= maxRankedPostings {
				continue // both ranked on their own
			}
			hits, err := st.NamedByAll(ctx, []string{a, b}, maxPairNames+1)
			if err != nil {
				return err
			}
			if len(hits) > maxPairNames {
				continue // a pair that common tells little
			}
			for _, h := range hits {
				c := get(h.ID)
				c.file = h.FileID
				for _, t := range []string{a, b} {
					if _, ok := c.matched[t]; !ok {
						c.add(t, holdCredit*weights[t]*idf[t])
					}
				}
				c.why = append(c.why, fmt.Sprintf("named by %q and %q", a, b))
			}
		}
	}
	return nil
}

// leadingLexical returns at most n candidates with lexical evidence, the
// strongest first (ties by id, so that every run picks the same).
func leadingLexical(cands map[int64]*cand, n int) []*cand {
	top := make([]*cand, 0, len(cands))
	for _, c := range cands {
		if c.lex > 0 {
			top = append(top, c)
		}
	}
	sort.Slice(top, func(a, b int) bool {
		if top[a].lex != top[b].lex {
			return top[a].lex > top[b].lex
		}
		return top[a].id < top[b].id
	})
	return top[:min(len(top), n)]
}

// lacking returns the ids of the candidates not credited with term t.
func lacking(cands []*cand, t string) []int64 {
	var ids []int64
	for _, c := range cands {
		if _, ok := c.matched[t]; !ok {
			ids = append(ids, c.id)
		}
	}
	return ids
}

// complete adds, for the leading lexical candidates, the contribution of
// searched terms whose top lists they were not in.
func complete(ctx context.Context, st *store.Store, cands map[int64]*cand, terms []string, weights map[string]float64) error {
	return addScores(ctx, st, leadingLexical(cands, completeTop), terms, weights)
}

// addScores credits each of cs with the BM25F of the terms it was not
// credited with.
func addScores(ctx context.Context, st *store.Store, cs []*cand, terms []string, weights map[string]float64) error {
	for _, t := range terms {
		ids := lacking(cs, t)
		if len(ids) == 0 {
			continue
		}
		scores, err := st.ScoreDocs(ctx, t, fieldWeights, ids)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if sc, ok := scores[c.id]; ok {
				c.add(t, weights[t]*sc)
			}
		}
	}
	return nil
}

// addHeld credits each of cs with holdCredit × the weighted IDF of each
// term it holds but was not credited with (decision 0116).
func addHeld(ctx context.Context, st *store.Store, cs []*cand, terms []string, weights, idf map[string]float64) error {
	for _, t := range terms {
		ids := lacking(cs, t)
		if len(ids) == 0 {
			continue
		}
		held, err := st.Holding(ctx, t, ids)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if held[c.id] {
				c.add(t, holdCredit*weights[t]*idf[t])
			}
		}
	}
	return nil
}

// add credits c with v for term t.
func (c *cand) add(t string, v float64) {
	if c.matched == nil {
		c.matched = map[string]float64{}
	}
	c.lex += v
	c.matched[t] = v
}

// seeksFit says whether a request can afford the index seeks that look past
// the words' top lists (the common words candidates hold, the names that
// hold a pair): a deliberate lookup can, the prompt hook's latency budget
// cannot (decisions 0116, 0126).
func seeksFit(gate Gate) bool { return gate != GatePrompt }

// commonSearched returns the searched terms whose lists were searched only
// together, which completion checks by whether a candidate holds them, when
// the seeks fit the request.
func commonSearched(searched []string, df map[string]int, gate Gate) []string {
	if !seeksFit(gate) {
		return nil
	}
	var common []string
	for _, t := range searched {
		if df[t] > maxRankedPostings {
			common = append(common, t)
		}
	}
	return common
}

// completeNamed completes, for the holdFloorRank candidates with the most
// exact credit (a symbol the message names, a phrase that spells a name),
// the evidence of the searched terms they were not credited with: rare
// terms by their BM25F, common ones by whether the candidate holds them.
// As many as a lookup shows: 40 cost the kernel's lookups more for the same
// answers.
// A long function found by its name is rarely in its words' top lists,
// which favour short documents; without this, "ptrace attach to a running
// process" ranked ptrace_attach by its name alone, 20th, under functions
// that merely use the words.
func completeNamed(ctx context.Context, st *store.Store, cands map[int64]*cand, rare, common []string, weights, idf map[string]float64) error {
	var named []*cand
	for _, c := range cands {
		if c.exact > 0 {
			named = append(named, c)
		}
	}
	if len(named) == 0 {
		return nil
	}
	slices.SortFunc(named, func(a, b *cand) int {
		if a.exact != b.exact {
			return cmp.Compare(b.exact, a.exact)
		}
		return cmp.Compare(a.id, b.id)
	})
	named = named[:min(len(named), holdFloorRank)]
	if err := addScores(ctx, st, named, rare, weights); err != nil {
		return err
	}
	return addHeld(ctx, st, named, common, weights, idf)
}

// completeHolding adds, for the holdTop leading lexical candidates, the
// common searched terms they hold but whose top lists they were not in,
// each at holdCredit × the term's weighted IDF. A common word's posting
// list is too long to score (a kernel's "page" is in 67,736 entities), so
// the function a question is about, found by its one rare word, was ranked
// by that word alone, below entities that matched the common words
// together (decision 0116).
func completeHolding(ctx context.Context, st *store.Store, cands map[int64]*cand, terms []string, weights, idf map[string]float64) error {
	if len(terms) == 0 {
		return nil
	}
	top := leadingLexical(cands, holdTop)
	// A candidate is checked only if the common words it lacks could lift
	// it among the holdFloorRank leading ones (max-score pruning): each
	// check is a seek in a long posting list, and most cannot get there.
	var floor float64
	if len(top) > holdFloorRank {
		floor = top[holdFloorRank-1].lex
	}
	var check []*cand
	for _, c := range top {
		bound := c.lex
		for _, t := range terms {
			if _, ok := c.matched[t]; !ok {
				bound += holdCredit * weights[t] * idf[t]
			}
		}
		if bound >= floor {
			check = append(check, c)
		}
	}
	return addHeld(ctx, st, check, terms, weights, idf)
}

// wholeTerms are the terms of the whole-file query: every term of the
// message the index holds that is not in most documents (the most
// informative first, at most maxWholeQueryTerms), each
// repeated as often as the message repeats it (at most maxQueryTF times) and
// once more when a trigger names it, as BM25 weighs a repeated query word
// (qtf: how often the message repeats each term).
func wholeTerms(qtf map[string]int, terms []string, df map[string]int, total int, triggers []analyzer.Trigger) []string {
	an := analyzer.New()
	named := map[string]bool{}
	for _, tr := range triggers {
		if tr.Type == analyzer.TriggerSymbol || tr.Type == analyzer.TriggerImplicit {
			an.Each(tr.Query, func(t string) { named[t] = true })
		}
	}
	var out []string
	n := 0
	for _, t := range terms { // terms are sorted by weighted IDF
		if df[t] == 0 || (total > 0 && float64(df[t])/float64(total) > maxWholeDocShare) {
			continue
		}
		if n++; n > maxWholeQueryTerms {
			break
		}
		if qtf[t] == 0 && !named[t] {
			continue // a carried trigger's word: it does not rank files
		}
		reps := min(max(qtf[t], 1), maxQueryTF)
		if named[t] {
			reps++
		}
		for range reps {
			out = append(out, t)
		}
	}
	return out
}

// tooCommon reports a term that occurs in so many documents that matching it
// costs time and carries almost no signal.
func tooCommon(n, total int) bool {
	return total > 0 && float64(n)/float64(total) > maxDocShare && n > minCommonDocs
}

// FileSignals are the evidence behind a file's score, for --explain.
type FileSignals struct {
	Whole    float64 `json:"whole"`    // whole-file BM25, normalised to the best file of its corpus
	Lexical  float64 `json:"lexical"`  // per term the best entity's BM25F, summed and normalised
	Coverage float64 `json:"coverage"` // IDF-weighted share of query terms the file's entities match
	Exact    float64 `json:"exact"`    // best entity named by a trigger
	Graph    float64 `json:"graph"`    // best entity's personalised PageRank
	Active   float64 `json:"active"`   // an active file
	Size     float64 `json:"size"`     // prior: the file's log size (sizePrior)
	Scope    float64 `json:"scope"`    // a directory on its path named by the message's subject (scopes)
	History  float64 `json:"history"`  // past commits whose messages resemble the message touched it (pastCommitFiles)
	Recent   float64 `json:"recent"`   // one of the newest commits touched it (recentFiles)
	Demotion float64 `json:"demotion"` // factor for tests, docs and third-party code
}

// SignalPart is one weighted signal of a file's score.
type SignalPart struct {
	Name          string // as in FileSignals' JSON
	Weight, Value float64
}

// fileSignalParts is how many weighted signals a file has (all of
// FileSignals but the demotion; a test holds the two equal).
const fileSignalParts = 10

// Parts lists the file's weighted signals: fileScore sums them and
// --explain prints them, so that an explanation cannot leave out a signal
// the score counts (zoekt's addScore idea). An array, not a slice: scoring
// calls it for every candidate file.
func (s FileSignals) Parts() [fileSignalParts]SignalPart {
	return [fileSignalParts]SignalPart{
		{"whole", fwWhole, s.Whole}, {"lexical", fwLexical, s.Lexical}, {"coverage", fwCoverage, s.Coverage},
		{"exact", fwExact, s.Exact}, {"graph", fwGraph, s.Graph}, {"active", fwActive, s.Active},
		{"size", fwSize, s.Size}, {"scope", fwScope, s.Scope}, {"history", fwHistory, s.History},
		{"recent", fwRecent, s.Recent},
	}
}

// fileScore fuses a file's signals: the weighted sum of its parts, times
// its demotion.
func fileScore(s FileSignals) float64 {
	var sum float64
	for _, p := range s.Parts() {
		sum += p.Weight * p.Value
	}
	return sum * s.Demotion
}

// candidateFiles returns the files of the candidates that can lift a file
// in rankFiles: those with evidence of their own, the best
// maxFileCandidates of them. It is read once for both of a query's file
// rankings.
func candidateFiles(ctx context.Context, st *store.Store, cands map[int64]*cand) (map[int64]int64, error) {
	// Only candidates with evidence of their own can lift a file.
	ids := make([]int64, 0, len(cands))
	for id, c := range cands {
		if c.lex > 0 || c.exact > 0 || c.active > 0 || c.graph > 0.05 {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxFileCandidates {
		// An entity the message names (a symbol, a path, a phrase that
		// spells its name) keeps its file among the candidates: lexical
		// scores are raw BM25 sums, far above an exact credit in [0, 1].
		sort.Slice(ids, func(a, b int) bool {
			ca, cb := cands[ids[a]], cands[ids[b]]
			if (ca.exact > 0) != (cb.exact > 0) {
				return ca.exact > 0
			}
			sa, sb := ca.lex+ca.exact+ca.active+ca.graph, cb.lex+cb.exact+cb.active+cb.graph
			if sa != sb {
				return sa > sb
			}
			return ids[a] < ids[b]
		})
		ids = ids[:maxFileCandidates]
	}
	// A full-text hit came with its file; graph and exact matches did not.
	fileOf := make(map[int64]int64, len(ids))
	unknown := ids[:0:0]
	for _, id := range ids {
		if f := cands[id].file; f != 0 {
			fileOf[id] = f
		} else {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return fileOf, nil
	}
	found, err := st.FileIDs(ctx, unknown)
	maps.Copy(fileOf, found)
	return fileOf, err
}

// rankFiles scores files as wholes: whole-file BM25 over each file's
// document (what whole-file retrieval does; whole is wholeFileRanks'), a
// file's best entity per term (entity-level fields keep names and signatures
// strong), the union coverage of what the file matches, and exact, graph and
// activity signals from its best entity; the leading files are then
// re-ordered by their size prior, by how recently a commit touched them
// (recentFiles) and by the directories the message's subject names (text
// is the message).
//
// fileOf holds the files of the candidates that can lift one
// (candidateFiles).
func rankFiles(ctx context.Context, st *store.Store, text string, cands map[int64]*cand, fileOf map[int64]int64, whole map[int64]float64, hterms []string, idf, weights map[string]float64, idfMass, scale float64, want asks, limit int) ([]FileResult, error) {
	type acc struct {
		terms                map[string]float64
		exact, graph, active float64
	}
	files := map[int64]*acc{}
	for id, c := range cands {
		fid, ok := fileOf[id]
		if !ok {
			continue
		}
		a := files[fid]
		if a == nil {
			a = &acc{terms: map[string]float64{}}
			files[fid] = a
		}
		for t, v := range c.matched {
			a.terms[t] = math.Max(a.terms[t], v)
		}
		a.exact = math.Max(a.exact, c.exact)
		a.graph = math.Max(a.graph, c.graph)
		a.active = math.Max(a.active, c.active)
	}
	for fid := range whole {
		if files[fid] == nil {
			files[fid] = &acc{terms: map[string]float64{}}
		}
	}
	type scored struct {
		id    int64
		sig   FileSignals
		mass  float64
		score float64
	}
	var list []scored
	var maxLex float64
	var terms []string
	for fid, a := range files {
		// Sum in term order: in a map's random order the last bits of a
		// score changed between runs and near-ties flipped.
		terms = terms[:0]
		for t := range a.terms {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		var lex, m float64
		for _, t := range terms {
			lex += a.terms[t]
			m += idf[t] * weights[t]
		}
		maxLex = math.Max(maxLex, lex)
		list = append(list, scored{id: fid, sig: FileSignals{Lexical: lex, Exact: a.exact, Graph: a.graph, Active: a.active, Demotion: 1}, mass: m})
	}
	for i := range list {
		f := &list[i]
		if maxLex > 0 {
			f.sig.Lexical /= maxLex
		}
		f.sig.Whole = whole[f.id]
		if idfMass > 0 {
			f.sig.Coverage = math.Min(1, f.mass/idfMass)
		}
		f.score = fileScore(f.sig)
	}
	byScore := func(a, b int) bool {
		if list[a].score != list[b].score {
			return list[a].score > list[b].score
		}
		return list[a].id < list[b].id
	}
	sort.Slice(list, byScore)
	// History: the files of past commits whose messages resemble the
	// message.
	hist, err := pastCommitFiles(ctx, st, hterms)
	if err != nil {
		return nil, err
	}
	if len(hist) > 0 {
		paths := make([]string, 0, len(hist))
		for p := range hist {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		ids, err := st.FileIDsByPath(ctx, paths)
		if err != nil {
			return nil, err
		}
		at := make(map[int64]int, len(list))
		for i, f := range list {
			at[f.id] = i
		}
		for _, p := range paths {
			id, ok := ids[p]
			if !ok {
				continue
			}
			i, ok := at[id]
			if !ok {
				list = append(list, scored{id: id, sig: FileSignals{Demotion: 1}})
				i = len(list) - 1
				at[id] = i
			}
			list[i].sig.History = hist[p]
			list[i].score = fileScore(list[i].sig)
		}
		sort.Slice(list, byScore)
	}
	// Paths and sizes are needed for the demotion and the size prior, which
	// re-order only these leading files; look at enough files that demoted
	// ones can be replaced, and that a file the scope lifts is among them.
	if depth := max(fileDepth, 4*limit); len(list) > depth {
		list = list[:depth]
	}
	fids := make([]int64, len(list))
	for i, f := range list {
		fids[i] = f.id
	}
	info, err := st.FilesByID(ctx, fids)
	if err != nil {
		return nil, err
	}
	recent, err := recentFiles(ctx, st)
	if err != nil {
		return nil, err
	}
	sc := &scopes{st: st, subject: subjectWords(text)}
	out := make([]FileResult, 0, len(list))
	for _, f := range list {
		e, ok := info[f.id]
		if !ok {
			continue
		}
		sig := f.sig
		sig.Demotion = fileDemotion(e.Class, want)
		sig.Size = sizePrior(e.Size)
		sig.Recent = recent[e.Path]
		if sig.Scope, err = sc.of(ctx, e.Path); err != nil {
			return nil, err
		}
		rel := math.Max(sig.Exact, relevanceOf(sig.Coverage, f.mass, scale))
		out = append(out, FileResult{Path: e.Path, Score: fileScore(sig), Relevance: rel, Signals: &sig})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
