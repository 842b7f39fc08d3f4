package memory

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"time"
)

// IndexVersion is the version written to index.json.
const IndexVersion = "1.0.0"

// IndexEntry is a memory's entry in index.json.
type IndexEntry struct {
	Slug         string   `json:"slug"`
	Title        string   `json:"title"`
	Type         Type     `json:"type"`
	Tags         []string `json:"tags"`
	Created      string   `json:"created"`
	Updated      string   `json:"updated"`
	FilePath     string   `json:"filePath"`
	HasEmbedding bool     `json:"hasEmbedding"`
	Severity     string   `json:"severity,omitempty"`
}

// Index is a scope's index.json: the metadata of every memory, so that
// listing and slug checks need no scan of the files.
type Index struct {
	Version     string
	LastUpdated string
	Memories    map[string]IndexEntry
	// Format is FormatAdjacency's sibling for indexes: "seed" (memories as
	// an object keyed by slug) or "plugin" (an array with relativePath).
	Format string
}

// Index formats on disk.
const (
	IndexSeed   = "seed"
	IndexPlugin = "plugin"
)

// NewIndex returns an empty index in the seed's format.
func NewIndex() *Index {
	return &Index{Version: IndexVersion, Memories: map[string]IndexEntry{}, Format: IndexSeed}
}

func entryOf(m *Memory) IndexEntry {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	e := IndexEntry{Slug: m.Slug, Title: m.Title, Type: m.Type, Tags: tags, FilePath: m.Path, Severity: m.Severity}
	if !m.Created.IsZero() {
		e.Created = FormatTime(m.Created)
	}
	if !m.Updated.IsZero() {
		e.Updated = FormatTime(m.Updated)
	}
	return e
}

type pluginEntry struct {
	ID           string   `json:"id"`
	Type         Type     `json:"type"`
	Title        string   `json:"title"`
	Tags         []string `json:"tags"`
	Created      string   `json:"created,omitempty"`
	Updated      string   `json:"updated"`
	Scope        string   `json:"scope,omitempty"`
	RelativePath string   `json:"relativePath"`
	Severity     string   `json:"severity,omitempty"`
}

// ParseIndex reads index.json in either format; dir resolves the plugin
// format's relative paths. A malformed file is an error (the caller
// rebuilds).
func ParseIndex(data []byte, dir string) (*Index, error) {
	var raw struct {
		Version     string          `json:"version"`
		LastUpdated string          `json:"lastUpdated"`
		Memories    json.RawMessage `json:"memories"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	ix := &Index{Version: raw.Version, LastUpdated: raw.LastUpdated, Memories: map[string]IndexEntry{}, Format: IndexSeed}
	if len(raw.Memories) == 0 {
		return nil, fmt.Errorf("index.json: no memories field")
	}
	if raw.Memories[0] == '[' {
		var list []pluginEntry
		if err := json.Unmarshal(raw.Memories, &list); err != nil {
			return nil, fmt.Errorf("index.json: %w", err)
		}
		ix.Format = IndexPlugin
		for _, p := range list {
			if p.ID == "" || p.RelativePath == "" {
				return nil, fmt.Errorf("index.json: entry without id or relativePath")
			}
			ix.Memories[p.ID] = IndexEntry{Slug: p.ID, Title: p.Title, Type: p.Type, Tags: p.Tags, Created: p.Created,
				Updated: p.Updated, FilePath: filepath.Join(dir, filepath.FromSlash(p.RelativePath)), Severity: p.Severity}
		}
		return ix, nil
	}
	if err := json.Unmarshal(raw.Memories, &ix.Memories); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	for k, e := range ix.Memories {
		if e.Slug != k || e.FilePath == "" {
			return nil, fmt.Errorf("index.json: entry %q is inconsistent (slug %q, filePath %q)", k, e.Slug, e.FilePath)
		}
	}
	return ix, nil
}

// Marshal renders index.json in the index's format.
func (ix *Index) Marshal(dir string, scope Scope, now time.Time) ([]byte, error) {
	ix.LastUpdated = FormatTime(now)
	if ix.Version == "" {
		ix.Version = IndexVersion
	}
	if ix.Format != IndexPlugin {
		mems := ix.Memories
		if mems == nil {
			mems = map[string]IndexEntry{}
		}
		return json.MarshalIndent(struct {
			Version     string                `json:"version"`
			LastUpdated string                `json:"lastUpdated"`
			Memories    map[string]IndexEntry `json:"memories"`
		}{ix.Version, ix.LastUpdated, mems}, "", "  ")
	}
	list := make([]pluginEntry, 0, len(ix.Memories))
	for _, e := range ix.Memories {
		rel, err := filepath.Rel(dir, e.FilePath)
		if err != nil {
			rel = e.FilePath
		}
		list = append(list, pluginEntry{ID: e.Slug, Type: e.Type, Title: e.Title, Tags: e.Tags, Created: e.Created,
			Updated: e.Updated, Scope: string(scope), RelativePath: filepath.ToSlash(rel), Severity: e.Severity})
	}
	sort.Slice(list, func(a, b int) bool { return list[a].ID < list[b].ID })
	return json.MarshalIndent(struct {
		Version     string        `json:"version"`
		LastUpdated string        `json:"lastUpdated"`
		Memories    []pluginEntry `json:"memories"`
	}{ix.Version, ix.LastUpdated, list}, "", "  ")
}
