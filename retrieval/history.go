package retrieval

import (
	"context"
	"math"
	"time"

	"github.com/ctxls/ctxls/store"
)

// The history signal of file ranking (docs/decisions/0094): the files of
// past commits whose messages resemble the message.
const (
	// similarCommits is how many of the best-matching past commits credit
	// their files.
	similarCommits = 30
	// commitSizePower divides a commit's credit among its files: a commit
	// of n files gives each similarity / n^power.
	commitSizePower = 0.5
	// maxHistoryTerms bounds the terms of the commit search (the most
	// informative of the message).
	maxHistoryTerms = 40
	// hotFilePower discounts a file that many commits touch: its summed
	// credit is divided by (1 + its recorded commits)^power. A hub (a
	// central command.go, models.py) is among the files of any 30 commits
	// and won on the votes alone (decision 0094's amendment of stop 42).
	hotFilePower = 0.25
	// commitHalfLife is the age at which a similar commit's credit halves:
	// code moves on, and a fix of three years ago touched files that have
	// since been split, renamed in part or left behind (decision 0094's
	// amendment of stop 43).
	commitHalfLife = 3 * 365.25 * 24 * time.Hour
)

// The recency signal of file ranking (docs/decisions/0114): the files the
// newest commits touched are where work is going on.
const (
	// recentCommits is how many of the newest commits recency looks at;
	// a file last touched further back scores under 0.05 anyway.
	recentCommits = 200
	// recencyScale is the commit position at which a file's recency
	// halves: a file of the newest commit scores 1, of the tenth newest
	// 0.5 (1 / (1 + position/recencyScale)).
	recencyScale = 10
)

// recentFiles scores the files of the newest recentCommits commits by the
// position of the newest that touched them.
func recentFiles(ctx context.Context, st *store.Store) (map[string]float64, error) {
	pos, err := st.RecentFiles(ctx, recentCommits)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(pos))
	for p, i := range pos {
		out[p] = 1 / (1 + float64(i)/recencyScale)
	}
	return out, nil
}

// historyTerms are the terms of the commit search: the message's own
// terms, the most informative first (terms are sorted by weighted IDF), at
// most maxHistoryTerms, each repeated as often as the message repeats it
// (at most maxQueryTF times).
func historyTerms(qtf map[string]int, terms []string, fromMessage map[string]bool) []string {
	var out []string
	n := 0
	for _, t := range terms {
		if !fromMessage[t] {
			continue
		}
		if n++; n > maxHistoryTerms {
			break
		}
		for range min(max(qtf[t], 1), maxQueryTF) {
			out = append(out, t)
		}
	}
	return out
}

// pastCommitFiles scores files by the past commits whose messages match
// terms: each of the best similarCommits commits credits each of its files
// that the index still tracks with its BM25 similarity (relative to the
// best commit's) divided by its size to commitSizePower, halved for every
// commitHalfLife of its age; a file's sum is divided by its number of
// commits to hotFilePower. Scores are normalised to the best file.
func pastCommitFiles(ctx context.Context, st *store.Store, terms []string) (map[string]float64, error) {
	hits, err := st.SimilarCommits(ctx, terms, similarCommits)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	files, err := st.CommitFiles(ctx, ids)
	if err != nil {
		return nil, err
	}
	best := hits[0].Score
	// Ages count from the newest of the hits: any other point (HEAD, the
	// clock) scales every credit alike, which the normalisation removes.
	newest := hits[0].At
	for _, h := range hits {
		newest = max(newest, h.At)
	}
	out := map[string]float64{}
	for _, h := range hits { // best first: a fixed order of the sums
		if best <= 0 {
			break
		}
		credit := h.Score / best / math.Pow(float64(max(h.NFiles, 1)), commitSizePower)
		credit *= math.Exp2(-float64(newest-h.At) / commitHalfLife.Seconds())
		for _, p := range files[h.ID] {
			out[p] += credit
		}
	}
	paths := make([]string, 0, len(out))
	for p := range out {
		paths = append(paths, p)
	}
	counts, err := st.FileCommitCounts(ctx, paths)
	if err != nil {
		return nil, err
	}
	for p := range out {
		out[p] /= math.Pow(float64(1+counts[p]), hotFilePower)
	}
	normalise(out)
	return out, nil
}

// normalise scales m so that its largest value is 1.
func normalise(m map[string]float64) {
	var best float64
	for _, v := range m {
		best = math.Max(best, v)
	}
	if best <= 0 {
		return
	}
	for k := range m {
		m[k] /= best
	}
}
