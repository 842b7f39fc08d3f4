package memory

import (
	"context"
	"os"
	"slices"
	"sort"
	"time"
)

// HealthReport is the result of a health check of one scope.
type HealthReport struct {
	Scope    Scope     `json:"scope"`
	Memories int       `json:"memories"`
	Skipped  []Skipped `json:"skipped"`
	// BrokenLinks are frontmatter links and graph edges to memories that do
	// not exist in the scope.
	BrokenLinks []Link `json:"brokenLinks"`
	// GraphIssues are violated graph invariants (one-sided edges,
	// self-edges, duplicates, wrong inverse labels).
	GraphIssues []GraphIssue `json:"graphIssues"`
	// Orphans have no links and were last updated more than
	// quality.orphanThreshold days ago.
	Orphans []string `json:"orphans"`
	// Problems are the seed's rules each memory breaks.
	Problems map[string][]string `json:"problems"`
	// Quality is each memory's score (0-100); Score is the scope's mean.
	Quality    map[string]int `json:"quality"`
	Score      int            `json:"score"`
	LowQuality []string       `json:"lowQuality"`
	// IndexStale says index.json was missing, corrupt or out of step.
	IndexStale bool `json:"indexStale"`
}

// Link is a reference from one memory to another.
type Link struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Healthy reports whether the check found nothing to fix.
func (r *HealthReport) Healthy() bool {
	return len(r.BrokenLinks) == 0 && len(r.GraphIssues) == 0 && len(r.Problems) == 0 && len(r.LowQuality) == 0 && !r.IndexStale
}

// Health checks a scope: broken links, graph invariants, orphans, each
// memory's problems and quality, and whether index.json is in step.
func (s *Store) Health(ctx context.Context, scope Scope) (*HealthReport, error) {
	dir, err := s.Dir(scope)
	if err != nil {
		return nil, err
	}
	mems, skipped, err := s.Scan(ctx, scope)
	if err != nil {
		return nil, err
	}
	g, err := loadGraph(dir)
	if err != nil {
		return nil, err
	}
	rep := CheckHealth(scope, mems, skipped, g, s.cfg.Quality, s.now())
	if _, err := os.Stat(dir); err != nil {
		// No directory, no memories: nothing can be out of step.
	} else if ix, rebuilt, err := s.loadIndex(ctx, scope, dir); err == nil {
		rep.IndexStale = rebuilt || len(ix.Memories) != len(mems)
		for _, m := range mems {
			if e, ok := ix.Memories[m.Slug]; !ok || e.FilePath != m.Path {
				rep.IndexStale = true
			}
		}
	}
	return rep, nil
}

// CheckHealth is the health of a scope's memories and graph however they are
// stored: broken links, graph invariants, orphans, each memory's problems
// and quality (index.json's state is the caller's to add).
func CheckHealth(scope Scope, mems []*Memory, skipped []Skipped, g *Graph, qc QualityConfig, now time.Time) *HealthReport {
	rep := &HealthReport{Scope: scope, Memories: len(mems), Skipped: skipped, Problems: map[string][]string{}, Quality: map[string]int{}}
	exists := map[string]bool{}
	for _, m := range mems {
		exists[m.Slug] = true
	}
	rep.GraphIssues = g.Check(func(sl string) bool { return exists[sl] })
	for _, gi := range rep.GraphIssues {
		if gi.Kind == "broken-link" {
			rep.BrokenLinks = append(rep.BrokenLinks, Link{gi.Source, gi.Target})
		}
	}
	rep.GraphIssues = slices.DeleteFunc(rep.GraphIssues, func(gi GraphIssue) bool { return gi.Kind == "broken-link" })
	cutoff := now.Add(-time.Duration(qc.OrphanThreshold) * 24 * time.Hour)
	total := 0
	for _, m := range mems {
		broken := 0
		for _, l := range m.Links {
			if !exists[l] {
				broken++
				rep.BrokenLinks = append(rep.BrokenLinks, Link{m.Slug, l})
			}
		}
		linked := len(g.Adj[m.Slug]) > 0 || len(m.Links) > broken
		if !linked && m.Updated.Before(cutoff) {
			rep.Orphans = append(rep.Orphans, m.Slug)
		}
		if len(m.Problems) > 0 {
			rep.Problems[m.Slug] = m.Problems
		}
		q := quality(m, linked, broken)
		rep.Quality[m.Slug] = q
		total += q
		if q < qc.MinQualityScore {
			rep.LowQuality = append(rep.LowQuality, m.Slug)
		}
	}
	if len(mems) > 0 {
		rep.Score = total / len(mems)
	} else {
		rep.Score = 100
	}
	sort.Strings(rep.Orphans)
	sort.Strings(rep.LowQuality)
	sort.Slice(rep.BrokenLinks, func(a, b int) bool {
		x, y := rep.BrokenLinks[a], rep.BrokenLinks[b]
		return x.From < y.From || x.From == y.From && x.To < y.To
	})
	return rep
}

// quality scores a memory 0-100: it loses points for broken rules, no
// links, broken links, a thin body, a single tag and a gotcha without
// severity.
func quality(m *Memory, linked bool, broken int) int {
	q := 100
	q -= min(40, 10*len(m.Problems))
	if !linked {
		q -= 15
	}
	q -= min(20, 10*broken)
	if len([]rune(m.Content)) < 80 {
		q -= 15
	}
	if len(m.Tags) < 2 {
		q -= 10
	}
	if m.Type == Gotcha && m.Severity == "" {
		q -= 5
	}
	return max(q, 0)
}
