package memory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
)

// ImportReport says what Import did with every file and edge of the source:
// nothing is dropped without a line here.
type ImportReport struct {
	Source   string `json:"source"`
	Scope    Scope  `json:"scope"`
	Imported int    `json:"imported"`
	// Changed lists the memories that were normalised to meet the seed's
	// rules, with what changed.
	Changed map[string][]string `json:"changed"`
	// Renamed maps old slugs to new ones.
	Renamed map[string]string `json:"renamed"`
	Skipped []Skipped         `json:"skipped"`
	Edges   int               `json:"edges"`
	// MergedEdges counts duplicate edges of the source graph folded into one.
	MergedEdges  int      `json:"mergedEdges"`
	SkippedEdges []string `json:"skippedEdges"`
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// slugify makes s a valid slug (lowercase, runs of other characters become
// one hyphen).
func slugify(s string) string {
	return strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// Import converts a memory store (the TypeScript plugin's layout or the
// seed's) at src into scope: every memory is normalised to meet the seed's
// rules (each change reported), written in the seed's frontmatter under the
// same relative path, and the graph is converted to bidirectional edges with
// inverse labels; index.json and graph.json are written in the seed's
// format. src may be the scope's own directory, which converts it in place
// (the old index.json and graph.json are kept as *.bak).
func (s *Store) Import(ctx context.Context, src string, scope Scope) (*ImportReport, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("import: %s is not a directory", src)
	}
	rep := &ImportReport{Source: src, Scope: scope, Changed: map[string][]string{}, Renamed: map[string]string{}}
	files, err := memoryFiles(src, scope)
	if err != nil {
		return nil, err
	}
	now := s.now()
	mems, errs, _ := parseFiles(ctx, files, scope, now)
	srcGraph := NewGraph()
	if data, err := os.ReadFile(filepath.Join(src, "graph.json")); err == nil {
		if srcGraph, err = ParseGraph(data); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep.MergedEdges = srcGraph.Merged

	err = s.locked(ctx, scope, func(st *scopeState) error {
		inPlace := st.dir == src
		if inPlace {
			for _, name := range []string{"index.json", "graph.json"} {
				if data, err := os.ReadFile(filepath.Join(src, name)); err == nil {
					if err := workspace.WriteFileAtomic(filepath.Join(src, name+".bak"), data, 0o644); err != nil {
						return err
					}
				}
			}
			st.index = NewIndex()
			st.graph = NewGraph()
		}
		st.index.Format, st.graph.Format = IndexSeed, FormatAdjacency
		st.indexChanged, st.graphChanged = true, true
		// First decide every memory's slug and place, then convert the
		// graph, then write each file once.
		type accepted struct {
			m    *Memory
			from string
		}
		var todo []accepted
		for i, m := range mems {
			if errs[i] != nil {
				rep.Skipped = append(rep.Skipped, Skipped{files[i], reason(errs[i], files[i])})
				continue
			}
			old := m.Slug
			notes := normalise(m, scope, now)
			if err := Validate(m, now); err != nil {
				rep.Skipped = append(rep.Skipped, Skipped{files[i], err.Error()})
				continue
			}
			if _, dup := st.index.Memories[m.Slug]; dup {
				rep.Skipped = append(rep.Skipped, Skipped{files[i], fmt.Sprintf("slug %q already exists in the %s scope", m.Slug, scope)})
				continue
			}
			rel, _ := filepath.Rel(src, files[i])
			m.Path = filepath.Join(st.dir, filepath.Dir(rel), m.Slug+".md")
			st.index.Memories[m.Slug] = entryOf(m)
			if old != m.Slug {
				rep.Renamed[old] = m.Slug
			}
			if len(notes) > 0 {
				rep.Changed[m.Slug] = notes
			}
			todo = append(todo, accepted{m, files[i]})
		}
		rename := func(sl string) string {
			if n, ok := rep.Renamed[sl]; ok {
				return n
			}
			return sl
		}
		for _, from := range slices.Sorted(maps.Keys(srcGraph.Adj)) {
			for _, e := range srcGraph.Adj[from] {
				a, b := rename(from), rename(e.Target)
				if st.graph.Has(a, b, e.Label) || st.graph.Has(b, a, Inverse(e.Label)) {
					continue // the reverse of an edge already converted
				}
				_, okA := st.index.Memories[a]
				_, okB := st.index.Memories[b]
				if !okA || !okB {
					rep.SkippedEdges = append(rep.SkippedEdges, fmt.Sprintf("%s -[%s]-> %s: endpoint not imported", from, e.Label, e.Target))
					continue
				}
				at, _ := ParseTime(e.Timestamp)
				if at.IsZero() {
					at = now
				}
				label := e.Label
				if !ValidSlug(label) {
					label = slugify(label)
				}
				if err := st.graph.Link(a, b, label, at); err != nil {
					rep.SkippedEdges = append(rep.SkippedEdges, fmt.Sprintf("%s -[%s]-> %s: %v", from, e.Label, e.Target, err))
					continue
				}
				rep.Edges++
			}
		}
		for _, a := range todo {
			m := a.m
			// Frontmatter links follow renamed memories and mirror the
			// graph.
			var links []string
			for _, l := range m.Links {
				links = append(links, rename(l))
			}
			m.Links = dedup(append(links, st.graph.Neighbours(m.Slug)...))
			if err := os.MkdirAll(filepath.Dir(m.Path), 0o755); err != nil {
				return err
			}
			if err := st.save(m); err != nil {
				return err
			}
			if inPlace && m.Path != a.from {
				if err := os.Remove(a.from); err != nil {
					return fmt.Errorf("import: remove renamed %s: %w", a.from, err)
				}
			}
			rep.Imported++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, s.reindex(ctx, scope)
}

// normalise makes a loaded memory meet the seed's rules where that can be
// done without losing information, and says what it changed.
func normalise(m *Memory, scope Scope, now time.Time) []string {
	var notes []string
	if !ValidSlug(m.Slug) {
		n := slugify(m.Slug)
		notes = append(notes, fmt.Sprintf("slug %q → %q", m.Slug, n))
		m.Slug = n
	}
	if !m.Type.Valid() {
		t := inferType(m)
		notes = append(notes, fmt.Sprintf("type %q → %q (from the slug or tags)", m.Type, t))
		m.Type = t
	}
	if m.Scope != scope {
		m.Scope = scope
	}
	if m.Created.IsZero() && !m.Updated.IsZero() {
		m.Created = m.Updated
		notes = append(notes, "created was missing: set to updated")
	}
	if m.Updated.IsZero() && !m.Created.IsZero() {
		m.Updated = m.Created
		notes = append(notes, "updated was missing: set to created")
	}
	for _, t := range []struct {
		name string
		v    *time.Time
	}{{"created", &m.Created}, {"updated", &m.Updated}} {
		if t.v.After(now) {
			notes = append(notes, fmt.Sprintf("%s %s was in the future: set to the import time", t.name, FormatTime(*t.v)))
			*t.v = now
		}
	}
	if !m.Created.IsZero() && m.Updated.Before(m.Created) {
		m.Updated = m.Created
		notes = append(notes, "updated was before created: set to created")
	}
	var tags []string
	for _, t := range m.Tags {
		n := t
		if !ValidSlug(n) {
			n = slugify(t)
			if n == "" {
				notes = append(notes, fmt.Sprintf("tag %q dropped: no letters or digits", t))
				continue
			}
			notes = append(notes, fmt.Sprintf("tag %q → %q", t, n))
		}
		if len(n) > MaxTag {
			n = strings.TrimRight(n[:MaxTag], "-")
			notes = append(notes, fmt.Sprintf("tag %q shortened to %q", t, n))
		}
		if !slices.Contains(tags, n) {
			tags = append(tags, n)
		}
	}
	if len(tags) == 0 {
		tags = []string{string(m.Type)}
		notes = append(notes, fmt.Sprintf("no tags: tagged %q", m.Type))
	}
	m.Tags = tags
	if r := []rune(m.Title); len(r) > MaxTitle {
		m.Title = string(r[:MaxTitle-1]) + "…"
		notes = append(notes, "title shortened to 200 characters")
	}
	if m.Severity != "" && !slices.Contains(Severities, m.Severity) {
		notes = append(notes, fmt.Sprintf("severity %q is not low/medium/high/critical: cleared", m.Severity))
		m.Severity = ""
	}
	var links []string
	for _, l := range m.Links {
		if n := slugify(l); n != "" && n != m.Slug && !slices.Contains(links, n) {
			links = append(links, n)
		}
	}
	m.Links = links
	return notes
}

// inferType guesses a type from a slug prefix ("gotcha-...") or a tag.
func inferType(m *Memory) Type {
	for _, t := range Types {
		if strings.HasPrefix(m.Slug, string(t)+"-") {
			return t
		}
	}
	for _, t := range Types {
		if slices.Contains(m.Tags, string(t)) {
			return t
		}
	}
	return Learning
}
