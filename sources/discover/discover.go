// Package discover finds the agents, commands, skills and output styles a
// person keeps for Claude Code (dynamic discovery, seed v1.3.0): in
// ~/.claude, in the project's .claude and in installed Claude Code plugins.
// Items carry a name, a description and matching keywords from their
// frontmatter (the file name when it has none); a local item overrides a
// global one of the same type and name. Directories are scanned in
// parallel under a timeout, parsed items are kept in an LRU cache keyed by
// path and invalidated by modification time, and missing directories are
// not errors.
package discover

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/analyzer"
)

// Type is the kind of resource.
type Type string

// Resource types.
const (
	Agent       Type = "agent"
	Command     Type = "command"
	Skill       Type = "skill"
	OutputStyle Type = "outputStyle"
)

// Types lists the resource types in display order.
var Types = []Type{Agent, Command, Skill, OutputStyle}

// Scope says where an item was found.
type Scope string

// Scopes, in increasing precedence.
const (
	Plugin Scope = "plugin"
	Global Scope = "global"
	Local  Scope = "local"
)

// KeywordSource says where an item's keywords came from.
type KeywordSource string

// Keyword sources.
const (
	FromKeywords    KeywordSource = "explicit"
	FromDescription KeywordSource = "description"
	FromFilename    KeywordSource = "filename"
)

// Item is one discovered resource.
type Item struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Keywords are the explicit keywords, or the words of the description
	// (and name), or the file name's parts.
	Keywords      []string      `json:"keywords"`
	KeywordSource KeywordSource `json:"keywordSource"`
	Path          string        `json:"path"`
	Type          Type          `json:"type"`
	Scope         Scope         `json:"scope"`
	// Plugin is the plugin's name for plugin items.
	Plugin string `json:"plugin,omitempty"`

	// terms and nameTerms are the analyzed keywords and name, computed once
	// when the item is parsed (and cached with it).
	terms, nameTerms []string
}

// Dir is one directory scanned for one type of resource.
type Dir struct {
	Path   string `json:"path"`
	Type   Type   `json:"type"`
	Scope  Scope  `json:"scope"`
	Plugin string `json:"plugin,omitempty"`
}

// SkipReason says why discovery produced nothing.
type SkipReason string

// Skip reasons (the seed's).
const (
	Disabled         SkipReason = "disabled"
	NoResourcesFound SkipReason = "no_resources_found"
	Timeout          SkipReason = "timeout"
	FilesystemError  SkipReason = "filesystem_error"
)

// DirResult is what scanning one directory gave.
type DirResult struct {
	Dir
	Exists bool   `json:"exists"`
	Items  int    `json:"items"`
	Error  string `json:"error,omitempty"`
}

// Shadowed is an item overridden by another of the same type and name.
type Shadowed struct {
	Item Item   `json:"item"`
	By   string `json:"by"`
}

// Result is a discovery run.
type Result struct {
	Items    []Item      `json:"items"`
	Shadowed []Shadowed  `json:"shadowed,omitempty"`
	Dirs     []DirResult `json:"dirs"`
	// TimedOut is set when some directories were not scanned in time;
	// Items then holds what was.
	TimedOut   bool       `json:"timedOut,omitempty"`
	SkipReason SkipReason `json:"skipReason,omitempty"`
}

// Bounds of a scan.
const (
	maxFilesPerDir = 500
	maxHeadBytes   = 16 << 10
	maxName        = 200
	maxDescription = 1000
	maxKeywords    = 100
)

// Discoverer scans directories, keeping parsed items in its cache between
// runs; one Discoverer serves a long-lived process.
type Discoverer struct {
	cache *Cache
	// beforeScan, when set, runs at the start of each directory's scan
	// (tests use it to hold a scan past the timeout).
	beforeScan func(ctx context.Context, dir Dir)
}

// New returns a Discoverer with an LRU cache of cacheSize items.
func New(cacheSize int) *Discoverer { return &Discoverer{cache: NewCache(cacheSize)} }

// Cache returns the Discoverer's cache.
func (d *Discoverer) Cache() *Cache { return d.cache }

// Discover scans dirs in parallel; after timeout (or ctx's end) it returns
// what the finished scans found, with TimedOut set.
func (d *Discoverer) Discover(ctx context.Context, dirs []Dir, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type scanned struct {
		i     int
		items []Item
		res   DirResult
	}
	// Buffered: a scan that finishes after the timeout does not block.
	ch := make(chan scanned, len(dirs))
	for i, dir := range dirs {
		go func() {
			items, res := d.scan(ctx, dir)
			ch <- scanned{i, items, res}
		}()
	}
	results := make([]DirResult, len(dirs))
	perDir := make([][]Item, len(dirs))
	done := make([]bool, len(dirs))
	var res Result
	for range dirs {
		select {
		case s := <-ch:
			results[s.i], perDir[s.i], done[s.i] = s.res, s.items, true
			continue
		case <-ctx.Done():
			res.TimedOut = true
		}
		break
	}
	fsErr := false
	for i := range dirs {
		if !done[i] {
			results[i] = DirResult{Dir: dirs[i], Error: "not scanned in time"}
			continue
		}
		if results[i].Error != "" {
			fsErr = true
		}
	}
	res.Dirs = results
	res.Items, res.Shadowed = merge(perDir)
	switch {
	case len(res.Items) > 0:
	case res.TimedOut:
		res.SkipReason = Timeout
	case fsErr:
		res.SkipReason = FilesystemError
	default:
		res.SkipReason = NoResourcesFound
	}
	return res
}

// merge orders items by type and name; for the same type and name a local
// item overrides a global one, which overrides a plugin's.
func merge(perDir [][]Item) ([]Item, []Shadowed) {
	type key struct {
		t    Type
		name string
	}
	best := map[key]Item{}
	var shadowed []Shadowed
	for _, items := range perDir {
		for _, it := range items {
			k := key{it.Type, strings.ToLower(it.Name)}
			prev, ok := best[k]
			switch {
			case !ok:
				best[k] = it
			case rank(it.Scope) > rank(prev.Scope):
				best[k] = it
				shadowed = append(shadowed, Shadowed{Item: prev, By: it.Path})
			default:
				shadowed = append(shadowed, Shadowed{Item: it, By: prev.Path})
			}
		}
	}
	out := make([]Item, 0, len(best))
	for _, it := range best {
		out = append(out, it)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Type != out[b].Type {
			return typeOrder(out[a].Type) < typeOrder(out[b].Type)
		}
		return strings.ToLower(out[a].Name) < strings.ToLower(out[b].Name)
	})
	return out, shadowed
}

func rank(s Scope) int {
	switch s {
	case Local:
		return 2
	case Global:
		return 1
	}
	return 0
}

func typeOrder(t Type) int {
	for i, x := range Types {
		if x == t {
			return i
		}
	}
	return len(Types)
}

// scan lists one directory's resources: *.md files (commands also one
// level of namespace subdirectories), or <name>/SKILL.md for skills.
func (d *Discoverer) scan(ctx context.Context, dir Dir) ([]Item, DirResult) {
	res := DirResult{Dir: dir}
	if d.beforeScan != nil {
		d.beforeScan(ctx, dir)
	}
	entries, err := os.ReadDir(dir.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, res // a missing directory is not an error
	}
	if err != nil {
		res.Exists = true
		res.Error = err.Error()
		return nil, res
	}
	res.Exists = true
	var items []Item
	// One Analyzer per scan, made on the first cache miss: an Analyzer is
	// not safe for concurrent use, and not free to make.
	var a *analyzer.Analyzer
	an := func() *analyzer.Analyzer {
		if a == nil {
			a = analyzer.New()
		}
		return a
	}
	add := func(path, name string) {
		if len(items) >= maxFilesPerDir || ctx.Err() != nil {
			return
		}
		if it, ok := d.item(path, name, dir, an); ok {
			items = append(items, it)
		}
	}
	for _, e := range entries {
		full := filepath.Join(dir.Path, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if info, err := os.Stat(full); err == nil {
				isDir = info.IsDir()
			}
		}
		switch {
		case dir.Type == Skill:
			if isDir {
				add(filepath.Join(full, "SKILL.md"), e.Name())
			}
		case isDir && dir.Type == Command:
			sub, err := os.ReadDir(full)
			if err != nil {
				continue
			}
			for _, s := range sub {
				if !s.IsDir() && strings.HasSuffix(s.Name(), ".md") {
					add(filepath.Join(full, s.Name()), e.Name()+":"+strings.TrimSuffix(s.Name(), ".md"))
				}
			}
		case !isDir && strings.HasSuffix(e.Name(), ".md"):
			add(full, strings.TrimSuffix(e.Name(), ".md"))
		}
	}
	res.Items = len(items)
	return items, res
}
