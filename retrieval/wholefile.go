package retrieval

import (
	"context"
	"math"
	"sort"

	"github.com/ctxls/ctxls/store"
)

// Whole-file BM25 (decision 0074).
const (
	// wholePathWeight and wholeBodyWeight weigh a whole-file document's
	// columns: a word of the path counts twice.
	wholePathWeight = 2
	wholeBodyWeight = 1
	// maxExactPostings bounds the postings read to score whole files
	// exactly. Above it (large workspaces, common words) FTS5's bm25()
	// ranks instead: there a message's discriminating words are rare, and
	// for rare words the two IDFs agree.
	maxExactPostings = 6000
	// maxRankedFilePostings bounds the estimated postings of the words a
	// whole-file bm25() query searches with OR (rankedWholeFiles): at about
	// 2.5 µs a posting, half the prompt hook's latency target on a kernel
	// tree (decision 0099, amendment of stop 31).
	maxRankedFilePostings = 30000
)

// wholeFileRanks is whole-file BM25 per corpus, each normalised to its own
// best file, by file id: the source's statistics leave tests and docs out
// (decision 0073), and those are searched only as deep as the message's
// interest in them (interested: it asks about tests or docs), and only when
// aside is set. Unless the message is about them, tests and docs are also
// ranked by FTS5's bm25() alone: read that shallowly and demoted tenfold,
// their order gains nothing from exact scores (decision 0074).
func wholeFileRanks(ctx context.Context, st *store.Store, wterms []string, entityDF map[string]int, limit int, interested, aside bool) (map[int64]float64, error) {
	whole := map[int64]float64{}
	if err := addWholeFiles(ctx, st, store.CorpusSource, wterms, entityDF, max(wholeFiles, 4*limit), maxExactPostings, whole); err != nil {
		return nil, err
	}
	if !aside {
		return whole, nil
	}
	depth, budget := limit, 0
	if interested {
		depth, budget = max(wholeFiles, 4*limit), maxExactPostings
	}
	if err := addWholeFiles(ctx, st, store.CorpusAside, wterms, entityDF, depth, budget, whole); err != nil {
		return nil, err
	}
	return whole, nil
}

// addWholeFiles adds to whole the corpus's best depth files for the query
// terms (see wholeFileScores), normalised to the corpus's best file.
func addWholeFiles(ctx context.Context, st *store.Store, corpus store.Corpus, wterms []string, entityDF map[string]int, depth, budget int, whole map[int64]float64) error {
	hits, err := wholeFileScores(ctx, st, corpus, wterms, entityDF, depth, budget)
	if err != nil {
		return err
	}
	var best float64
	for _, sc := range hits {
		best = math.Max(best, sc)
	}
	for id, sc := range hits {
		if best > 0 {
			whole[id] = sc / best
		}
	}
	return nil
}

// asideCeiling bounds the score of a demoted file (a test, doc or
// third-party file, when the message is not about tests or docs): every
// signal of FileSignals is at most 1, so its score is at most its demotion
// times the sum of the weights.
func asideCeiling() float64 {
	var sum float64
	for _, p := range (FileSignals{}).Parts() {
		sum += p.Weight
	}
	return max(fileTestDemotion, fileDocDemotion, fileThirdPartyDemotion) * sum
}

// hidesAside reports whether files, ranked for a focused request that is
// not about tests or docs, leave no place in the focus for a demoted file,
// whatever its whole-file score: focusOnFiles keeps only files within
// focusScoreShare of the best, and the best already outscores every demoted
// file by more than that. It holds for almost every message, since the
// source corpus's best file has a whole-file signal of 1 by itself; when it
// does not, the caller ranks the aside corpus after all.
func hidesAside(files []FileResult) bool {
	for _, f := range files {
		if isProse(f.Path) {
			continue // left out of a focus not about docs
		}
		return focusScoreShare*f.Score > asideCeiling()
	}
	return false
}

// wholeFileScores ranks a corpus's whole-file documents for the query terms
// (repeated as the query repeats them) and returns the best depth files by
// file id with their BM25 scores.
//
// The IDF is Lucene's, log(1 + (N − n + 0.5)/(n + 0.5)), which stays
// positive. FTS5's bm25() uses log((N − n + 0.5)/(n + 0.5)) floored near
// zero, so in a corpus of a few dozen files every word found in half of them
// counts for nothing, and most of a message's words are. Reading every
// posting costs one row each, so the exact score is computed only while the
// estimated postings (entityDF bounds a term's files from above) stay within
// budget (maxExactPostings, or 0 for FTS5's ranking alone).
func wholeFileScores(ctx context.Context, st *store.Store, corpus store.Corpus, wterms []string, entityDF map[string]int, depth, budget int) (map[int64]float64, error) {
	if len(wterms) == 0 {
		return nil, nil
	}
	qtf := map[string]int{}
	var distinct []string
	for _, t := range wterms {
		if qtf[t] == 0 {
			distinct = append(distinct, t)
		}
		qtf[t]++
	}
	n, err := st.FileDocCount(ctx, corpus)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	var cost int
	for _, t := range distinct {
		cost += min(entityDF[t], n)
	}
	if cost > budget {
		return rankedWholeFiles(ctx, st, corpus, wterms, distinct, entityDF, n, depth)
	}
	postings, err := st.FileTermPostings(ctx, corpus, distinct, wholePathWeight, wholeBodyWeight)
	if err != nil {
		return nil, err
	}
	scores := map[int64]float64{}
	for i, t := range distinct {
		w := float64(qtf[t]) * luceneIDF(n, len(postings[i]))
		for _, h := range postings[i] {
			scores[h.ID] += w * h.Score
		}
	}
	if len(scores) <= depth {
		return scores, nil
	}
	ids := make([]int64, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool {
		if scores[ids[a]] != scores[ids[b]] {
			return scores[ids[a]] > scores[ids[b]]
		}
		return ids[a] < ids[b]
	})
	out := make(map[int64]float64, depth)
	for _, id := range ids[:depth] {
		out[id] = scores[id]
	}
	return out, nil
}

// rankedWholeFiles ranks whole files with FTS5's bm25() when reading every
// posting would cost too much. bm25() still scores every file that holds any
// query word, so the words are split: the rarest (distinct is in weighted IDF
// order) while their estimated postings stay within maxRankedFilePostings
// are searched together with OR, the rest, too common to rank one by one,
// as a conjunction of the rarest maxConjunction of them; a file found by
// both gets both scores, the sum BM25 would give it (decision 0099).
func rankedWholeFiles(ctx context.Context, st *store.Store, corpus store.Corpus, wterms, distinct []string, entityDF map[string]int, files, depth int) (map[int64]float64, error) {
	long := map[string]bool{}
	var cost int
	var common []string
	for _, t := range distinct {
		if cost += min(entityDF[t], files); cost > maxRankedFilePostings {
			long[t] = true
			common = append(common, t)
		}
	}
	var short []string
	for _, t := range wterms {
		if !long[t] {
			short = append(short, t)
		}
	}
	out := map[int64]float64{}
	hits, err := st.SearchFiles(ctx, corpus, short, wholePathWeight, wholeBodyWeight, depth)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		out[h.ID] += h.Score
	}
	if len(common) == 0 {
		return out, nil
	}
	hits, err = st.SearchAllFiles(ctx, corpus, common[:min(len(common), maxConjunction)], wholePathWeight, wholeBodyWeight, depth)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		out[h.ID] += h.Score
	}
	return out, nil
}

// luceneIDF is BM25's IDF in Lucene's form, positive for every term.
func luceneIDF(total, hits int) float64 {
	return math.Log(1 + (float64(total-hits)+0.5)/(float64(hits)+0.5))
}

// sizePrior is a file's prior chance of being where a change belongs, from
// its size: log(1 + bytes) / log(1 MiB), at most 1. Larger files hold more
// behaviour and are changed more often (the file-length prior of bug
// localization), while BM25's length normalisation works against them. It
// re-orders the leading candidates only (see rankFiles); its weight was
// fitted on half of the dev set (decision 0075).
func sizePrior(bytes int64) float64 {
	if bytes <= 0 {
		return 0
	}
	return min(1, math.Log1p(float64(bytes))/math.Log(1<<20))
}
