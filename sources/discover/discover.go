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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/sources/frontmatter"
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

// Dirs returns the directories to scan for a workspace root and a home
// directory ("" for none): the seed's eight, then those of the plugins
// listed in ~/.claude/plugins/installed_plugins.json.
func Dirs(root, home string) []Dir {
	sub := map[Type]string{Agent: "agents", Command: "commands", Skill: "skills", OutputStyle: "output-styles"}
	var out []Dir
	for _, t := range Types {
		if home != "" {
			out = append(out, Dir{Path: filepath.Join(home, ".claude", sub[t]), Type: t, Scope: Global})
		}
		out = append(out, Dir{Path: filepath.Join(root, ".claude", sub[t]), Type: t, Scope: Local})
	}
	if home != "" {
		for _, p := range installedPlugins(home) {
			out = append(out, pluginDirs(p)...)
		}
	}
	return out
}

// installedPlugins reads Claude Code's plugin registry, in its version 1
// ({"plugins": {id: {installPath}}}) and version 2 ({"plugins": {id:
// [{installPath}]}}) shapes. A missing or unreadable registry lists none.
func installedPlugins(home string) []string {
	data, err := os.ReadFile(filepath.Join(home, ".claude", "plugins", "installed_plugins.json"))
	if err != nil {
		return nil
	}
	var reg struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return nil
	}
	type install struct {
		InstallPath string `json:"installPath"`
	}
	seen := map[string]bool{}
	var out []string
	ids := make([]string, 0, len(reg.Plugins))
	for id := range reg.Plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		raw := reg.Plugins[id]
		var many []install
		if json.Unmarshal(raw, &many) != nil {
			var one install
			if json.Unmarshal(raw, &one) != nil {
				continue
			}
			many = []install{one}
		}
		for _, in := range many {
			if in.InstallPath != "" && !seen[in.InstallPath] {
				seen[in.InstallPath] = true
				out = append(out, in.InstallPath)
			}
		}
	}
	return out
}

// pluginDirs returns a plugin's resource directories: the standard ones and
// any its manifest names.
func pluginDirs(dir string) []Dir {
	var man struct {
		Name         string          `json:"name"`
		Agents       json.RawMessage `json:"agents"`
		Commands     json.RawMessage `json:"commands"`
		OutputStyles json.RawMessage `json:"outputStyles"`
		Skills       json.RawMessage `json:"skills"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json")); err == nil {
		json.Unmarshal(data, &man)
	}
	name := man.Name
	if name == "" {
		name = filepath.Base(dir)
	}
	var out []Dir
	seen := map[string]bool{}
	add := func(t Type, rels ...string) {
		for _, r := range rels {
			p := filepath.Clean(filepath.Join(dir, filepath.FromSlash(r)))
			if rel, err := filepath.Rel(dir, p); err != nil || strings.HasPrefix(rel, "..") {
				continue // a manifest may not point outside its plugin
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, Dir{Path: p, Type: t, Scope: Plugin, Plugin: name})
			}
		}
	}
	add(Agent, append([]string{"agents"}, paths(man.Agents)...)...)
	add(Command, append([]string{"commands"}, paths(man.Commands)...)...)
	add(Skill, append([]string{"skills"}, paths(man.Skills)...)...)
	add(OutputStyle, append([]string{"output-styles"}, paths(man.OutputStyles)...)...)
	return out
}

// paths decodes a manifest path field: a string or a list of strings.
func paths(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}

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

// item returns the parsed item of one file, from the cache when the file
// is unchanged. fallback is the name to use when the frontmatter has none.
func (d *Discoverer) item(path, fallback string, dir Dir, an func() *analyzer.Analyzer) (Item, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return Item{}, false
	}
	if it, ok := d.cache.Get(path, info.ModTime(), info.Size()); ok {
		return it, true
	}
	head, err := readHead(path)
	if err != nil {
		return Item{}, false
	}
	it := parse(head, path, fallback, dir, an())
	d.cache.Set(path, it, info.ModTime(), info.Size())
	return it, true
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(maxHeadBytes)
	if info, err := f.Stat(); err == nil && info.Size() < size {
		size = info.Size()
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf[:n], nil
}

// Parse builds an item from the head of its file. Frontmatter that is
// missing or malformed leaves the name to the file name and the description
// empty.
func Parse(head []byte, path, fallback string, dir Dir) Item {
	return parse(head, path, fallback, dir, analyzer.New())
}

func parse(head []byte, path, fallback string, dir Dir, a *analyzer.Analyzer) Item {
	it := Item{Path: path, Type: dir.Type, Scope: dir.Scope, Plugin: dir.Plugin}
	meta, _, err := frontmatter.Parse(head)
	if err != nil {
		meta = frontmatter.Meta{}
	}
	it.Name = strings.TrimSpace(meta.Name)
	if dir.Type == Command || it.Name == "" {
		// Commands are invoked by their file name.
		it.Name = fallback
	}
	if dir.Scope == Plugin && dir.Plugin != "" && (dir.Type == Command || dir.Type == Agent) {
		it.Name = dir.Plugin + ":" + it.Name
	}
	it.Name = clip(it.Name, maxName)
	it.Description = clip(strings.Join(strings.Fields(meta.Description), " "), maxDescription)
	switch {
	case len(meta.Keywords) > 0:
		it.Keywords, it.KeywordSource = meta.Keywords, FromKeywords
	case it.Description != "":
		it.Keywords, it.KeywordSource = words(it.Description+" "+meta.WhenToUse), FromDescription
	default:
		it.Keywords, it.KeywordSource = words(strings.NewReplacer("-", " ", "_", " ", ":", " ").Replace(fallback)), FromFilename
	}
	if len(it.Keywords) > maxKeywords {
		it.Keywords = it.Keywords[:maxKeywords]
	}
	it.analyze(a)
	return it
}

// analyze computes the item's distinct analyzed keyword and name terms.
func (it *Item) analyze(a *analyzer.Analyzer) {
	name := it.Name
	if it.Plugin != "" {
		name = strings.TrimPrefix(name, it.Plugin+":") // the namespace is not the name
	}
	it.nameTerms = distinct(a.Terms(strings.NewReplacer(":", " ", "-", " ", "_", " ").Replace(name)))
	it.terms = distinct(a.Terms(strings.Join(it.Keywords, " ")))
}

func distinct(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// words returns the distinct lower-case words of s, in order.
func words(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 || r == '-' || r == '_')
	}) {
		w = strings.Trim(w, "-_")
		if len(w) > 1 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
