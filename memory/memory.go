// Package memory is the markdown knowledge store of the Claude Code memory
// plugin: decisions, gotchas, learnings and other memories kept as markdown
// files with YAML frontmatter, per scope (global, project, local,
// enterprise), with a graph of bidirectional links (graph.json), a metadata
// index (index.json) and a configuration (config.json) in each scope.
//
// The files are the source of truth. index.json and graph.json are kept in
// step under a per-scope file lock with atomic writes, and index.json is
// rebuilt from the files when it is missing or corrupt. Stores written by the
// TypeScript plugin (memories in permanent/, temporary/ and archive/, "id"
// instead of a file-name slug, graph.json as nodes and edges, index.json as
// an array) load as they are and keep their format when ctxls writes to
// them; Import converts them to the seed's format.
//
// Memories are also indexed into the workspace's SQLite full-text index
// (package store) with the analyzer used for code, which is how Search,
// Attached and the hooks' injection find them.
package memory

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Type is a memory's category.
type Type string

// The memory types of the seed.
const (
	Decision   Type = "decision"
	Learning   Type = "learning"
	Artifact   Type = "artifact"
	Gotcha     Type = "gotcha"
	Breadcrumb Type = "breadcrumb"
	Hub        Type = "hub"
)

// Types lists every memory type.
var Types = []Type{Decision, Learning, Artifact, Gotcha, Breadcrumb, Hub}

// Valid reports whether t is a known type.
func (t Type) Valid() bool { return slices.Contains(Types, t) }

// Scope is where a memory is stored.
type Scope string

// The scopes, from the most personal to the most shared.
const (
	Global     Scope = "global"
	Project    Scope = "project"
	Local      Scope = "local"
	Enterprise Scope = "enterprise"
)

// Scopes lists every scope in search order: the nearest scope first.
var Scopes = []Scope{Local, Project, Global, Enterprise}

// ParseScope returns the named scope or an error naming the valid ones.
func ParseScope(s string) (Scope, error) {
	sc := Scope(s)
	if slices.Contains(Scopes, sc) {
		return sc, nil
	}
	return "", fmt.Errorf("invalid scope %q: want one of local, project, global, enterprise", s)
}

// ParseType returns the named type or an error naming the valid ones.
func ParseType(s string) (Type, error) {
	t := Type(s)
	if t.Valid() {
		return t, nil
	}
	return "", fmt.Errorf("invalid memory type %q: want one of decision, learning, artifact, gotcha, breadcrumb, hub", s)
}

// Severities are the values of a gotcha's optional severity.
var Severities = []string{"low", "medium", "high", "critical"}

// Memory is one knowledge artifact.
type Memory struct {
	Slug    string
	Type    Type
	Title   string
	Tags    []string
	Created time.Time
	Updated time.Time
	// Links are slugs of related memories (mirrors of graph edges).
	Links []string
	// Severity is a gotcha's severity: low, medium, high or critical.
	Severity string
	// Files are workspace paths or globs (doublestar syntax, relative to
	// the workspace root) the memory concerns; they attach it to code.
	Files   []string
	Content string
	Scope   Scope
	// Path is the memory's file.
	Path string
	// Problems are what loading found wrong with a memory that does not
	// meet the seed's rules (stores written by older plugins); such a
	// memory is still loaded, and health reports them.
	Problems []string

	// front is the frontmatter as parsed, so that keys ctxls does not know
	// (project, topic, status, ...) survive a rewrite unchanged.
	front *yaml.Node
}

// Summary is what the full-text index knows of a memory: enough to rank,
// filter and list without reading its file.
type Summary struct {
	Scope    Scope     `json:"scope"`
	Slug     string    `json:"slug"`
	Type     Type      `json:"type"`
	Title    string    `json:"title"`
	Tags     []string  `json:"tags"`
	Severity string    `json:"severity,omitempty"`
	Files    []string  `json:"files,omitempty"`
	Path     string    `json:"path"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// Summary returns the memory's summary.
func (m *Memory) Summary() Summary {
	return Summary{Scope: m.Scope, Slug: m.Slug, Type: m.Type, Title: m.Title, Tags: m.Tags,
		Severity: m.Severity, Files: m.Files, Path: m.Path, Created: m.Created, Updated: m.Updated}
}

// SlugFor makes a slug from a type and a title ("gotcha" and "Flock needs
// a file" → "gotcha-flock-needs-a-file"), at most 80 characters.
func SlugFor(t Type, title string) string {
	s := slugify(string(t) + "-" + title)
	for len(s) > 80 {
		i := strings.LastIndexByte(s[:80], '-')
		if i <= 0 {
			s = strings.TrimRight(s[:80], "-")
			break
		}
		s = s[:i]
	}
	return s
}
