package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// Options configure Open.
type Options struct {
	// Root is the workspace root (project and local scopes live under it).
	Root string
	// Home is the user's home directory (the global scope); "" means
	// os.UserHomeDir.
	Home string
	// Index is the workspace's full-text index; when set, every change is
	// mirrored into it and Search and Attached can be used.
	Index *store.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Store is the memory store of one workspace and user: every scope's
// directory, with its files, index.json and graph.json.
type Store struct {
	root, home string
	cfg        Config
	index      *store.Store
	now        func() time.Time
	// enterpriseCache is the local read cache of an enterprise scope on
	// PostgreSQL (read-only here; package memory/team writes it).
	enterpriseCache string
}

// Errors of the store.
var (
	ErrExists   = errors.New("memory already exists")
	ErrNotFound = errors.New("memory not found")
)

// Open returns the store of a workspace, with config.json merged global →
// project.
func Open(opts Options) (*Store, error) {
	s := &Store{root: opts.Root, home: opts.Home, index: opts.Index, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if s.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("memory: no home directory for the global scope: %w", err)
		}
		s.home = h
	}
	cfg, err := LoadConfig(filepath.Join(s.home, ".claude", "memory"), filepath.Join(s.root, ".claude", "memory"))
	if err != nil {
		return nil, err
	}
	s.cfg = cfg
	// A workspace config error is reported by the commands that read it;
	// here it only means no database-backed enterprise scope.
	if wc, err := config.Load(s.root); s.root != "" && err == nil && wc.Memory.Enterprise.Postgres() {
		s.enterpriseCache = config.EnterpriseCacheDir(s.root)
	}
	return s, nil
}

// ErrEnterpriseCache means a write reached the local read cache of an
// enterprise scope kept in PostgreSQL.
var ErrEnterpriseCache = errors.New("the enterprise scope is kept in PostgreSQL and read here from a local cache: write it with `ctxls memory ... --scope enterprise`")

// Config returns the merged configuration.
func (s *Store) Config() Config { return s.cfg }

// Root returns the workspace root.
func (s *Store) Root() string { return s.root }

// Dir returns a scope's directory. The enterprise scope needs
// scopes.enterprise.enabled and an absolute scopes.enterprise.path.
func (s *Store) Dir(scope Scope) (string, error) {
	switch scope {
	case Global:
		return filepath.Join(s.home, ".claude", "memory"), nil
	case Project:
		return filepath.Join(s.root, ".claude", "memory"), nil
	case Local:
		return filepath.Join(s.root, ".claude", "memory", "local"), nil
	case Enterprise:
		if s.enterpriseCache != "" {
			return s.enterpriseCache, nil
		}
		e := s.cfg.Scopes.Enterprise
		if !e.Enabled || e.Path == "" {
			return "", errors.New("the enterprise scope is off: set scopes.enterprise.enabled and scopes.enterprise.path in config.json")
		}
		return e.Path, nil
	}
	_, err := ParseScope(string(scope))
	return "", err
}

// Dirs returns the directories of every enabled scope.
func (s *Store) Dirs() map[Scope]string {
	out := map[Scope]string{}
	for _, sc := range Scopes {
		if d, err := s.Dir(sc); err == nil {
			out[sc] = d
		}
	}
	return out
}

// DefaultScope is the scope a new memory goes to when none is given.
func (s *Store) DefaultScope() Scope {
	switch d := s.cfg.Scopes.Default; d {
	case "global", "project", "local":
		return Scope(d)
	}
	return Project
}

// Skipped is a markdown file of a scope that is not a loadable memory, and
// why. Nothing is dropped silently: list, rebuild and health show these.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// walkMemories calls fn for each markdown file of a scope: any depth (the
// plugin keeps permanent/, temporary/ and archive/), except hidden entries
// and, for the project scope, the nested local scope. A missing directory
// has no files.
func walkMemories(dir string, scope Scope, fn func(path string, d fs.DirEntry)) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		name := d.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if scope == Project && p == filepath.Join(dir, "local") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") && d.Type().IsRegular() {
			fn(p, d)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list memories in %s: %w", dir, err)
	}
	return nil
}

// memoryFiles lists a scope's markdown files, sorted.
func memoryFiles(dir string, scope Scope) ([]string, error) {
	var out []string
	err := walkMemories(dir, scope, func(p string, _ fs.DirEntry) { out = append(out, p) })
	sort.Strings(out)
	return out, err
}

// Scan reads every memory file of a scope, on all cores. Files that are not
// memories, and second files claiming a slug, are returned as skipped.
func (s *Store) Scan(ctx context.Context, scope Scope) ([]*Memory, []Skipped, error) {
	sc, err := s.scan(ctx, scope)
	return sc.mems, sc.skipped, err
}

// scanResult is what scan read: the loadable memories and the skipped
// files, and the size and time of every file as it was read, which a
// rebuild's re-index records without a second walk.
type scanResult struct {
	mems    []*Memory
	skipped []Skipped
	stats   map[string]fileStat
}

func (s *Store) scan(ctx context.Context, scope Scope) (scanResult, error) {
	var res scanResult
	dir, err := s.Dir(scope)
	if err != nil {
		return res, err
	}
	files, err := memoryFiles(dir, scope)
	if err != nil {
		return res, err
	}
	mems, errs, stats := parseFiles(ctx, files, scope, s.now())
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.stats = make(map[string]fileStat, len(files))
	bySlug := map[string]string{}
	for i, m := range mems {
		if stats[i].scope != "" { // else the file went away while scanning
			res.stats[files[i]] = stats[i]
		}
		if errs[i] != nil {
			res.skipped = append(res.skipped, Skipped{files[i], reason(errs[i], files[i])})
			continue
		}
		if prev, dup := bySlug[m.Slug]; dup {
			res.skipped = append(res.skipped, Skipped{files[i], fmt.Sprintf("duplicate slug %q (also %s)", m.Slug, prev)})
			continue
		}
		bySlug[m.Slug] = files[i]
		res.mems = append(res.mems, m)
	}
	return res, nil
}

func reason(err error, path string) string {
	return strings.TrimPrefix(err.Error(), path+": ")
}

// parseFiles parses files in parallel; results are in the order of files.
// stats are the files' sizes and times as read (scope "" for a file that
// could not be stat'ed).
func parseFiles(ctx context.Context, files []string, scope Scope, now time.Time) ([]*Memory, []error, []fileStat) {
	mems := make([]*Memory, len(files))
	errs := make([]error, len(files))
	stats := make([]fileStat, len(files))
	parallel(ctx, len(files), func() func(int) {
		return func(i int) {
			data, st, err := readStat(files[i])
			if err == nil {
				mems[i], err = Parse(data, files[i], scope, now)
			}
			if st != nil {
				stats[i] = fileStat{scope, st.Size(), st.ModTime().UnixNano()}
			}
			errs[i] = err
		}
	})
	return mems, errs, stats
}

// parallel runs work(i) for i in [0, n) on all cores, in a bounded number
// of workers, each with the function newWorker returns (so that a worker can
// keep state that is not safe to share); it stops handing out work when ctx
// is done. Callers write results by index, so their order is the input's.
func parallel(ctx context.Context, n int, newWorker func() func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/32))
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for i := range next {
				work(i)
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}

// readStat reads a file and returns the stat of what it read (from the open
// file, so that the size and time recorded match the content), or a nil
// FileInfo when the file could not be opened and stat'ed.
func readStat(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		info, _ := os.Lstat(path) // e.g. unreadable, but there
		return nil, info, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	// One byte more than the size, so that an unchanged file is read with
	// one read and its EOF without growing the buffer.
	data := make([]byte, 0, info.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, info, nil
		}
		if err != nil {
			return nil, info, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// scopeState is a scope's index and graph, loaded under its lock.
type scopeState struct {
	scope Scope
	dir   string
	index *Index
	graph *Graph
	// rebuilt says index.json was missing or corrupt and was rebuilt.
	rebuilt      bool
	graphChanged bool
	indexChanged bool
}

// locked runs fn with the scope's lock held and its index and graph
// loaded, then saves what fn changed. The lock is a file lock, so that two
// processes never lose each other's updates to index.json and graph.json.
func (s *Store) locked(ctx context.Context, scope Scope, fn func(st *scopeState) error) error {
	return s.lockedWith(ctx, scope, true, fn)
}

// lockedWith is locked; loadIdx false leaves st.index nil for a caller that
// rebuilds it anyway (st.index must be set by fn).
func (s *Store) lockedWith(ctx context.Context, scope Scope, loadIdx bool, fn func(st *scopeState) error) error {
	if scope == Enterprise && s.enterpriseCache != "" {
		return ErrEnterpriseCache
	}
	dir, err := s.Dir(scope)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	lk := flock.New(filepath.Join(dir, ".lock"))
	ok, err := lk.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil || !ok {
		return fmt.Errorf("lock memory scope %s: %w", dir, errors.Join(err, ctx.Err()))
	}
	defer lk.Unlock()
	st := &scopeState{scope: scope, dir: dir}
	if loadIdx {
		if st.index, st.rebuilt, err = s.loadIndex(ctx, scope, dir); err != nil {
			return err
		}
	}
	st.indexChanged = st.rebuilt
	if st.graph, err = loadGraph(dir); err != nil {
		return err
	}
	if err := fn(st); err != nil {
		return err
	}
	now := s.now()
	if st.indexChanged {
		data, err := st.index.Marshal(dir, scope, now)
		if err != nil {
			return err
		}
		if err := workspace.WriteFileAtomic(filepath.Join(dir, "index.json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	if st.graphChanged {
		data, err := st.graph.Marshal(st.nodes())
		if err != nil {
			return err
		}
		if err := workspace.WriteFileAtomic(filepath.Join(dir, "graph.json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// nodes lists the scope's memories for the plugin's graph format.
func (st *scopeState) nodes() []Node {
	out := make([]Node, 0, len(st.index.Memories))
	for _, e := range st.index.Memories {
		out = append(out, Node{ID: e.Slug, Title: e.Title, Type: string(e.Type)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// loadIndex reads index.json, rebuilding it from the files when it is
// missing, malformed or names a file that no longer exists.
func (s *Store) loadIndex(ctx context.Context, scope Scope, dir string) (*Index, bool, error) {
	path := filepath.Join(dir, "index.json")
	data, err := os.ReadFile(path)
	format := IndexSeed
	if err == nil {
		ix, perr := ParseIndex(data, dir)
		if perr == nil && ix.consistent() {
			return ix, false, nil
		}
		if perr == nil {
			format = ix.Format
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	ix, _, err := s.buildIndex(ctx, scope)
	if err != nil {
		return nil, false, err
	}
	ix.Format = format
	return ix, true, nil
}

// consistent checks that every entry's file exists.
func (ix *Index) consistent() bool {
	for _, e := range ix.Memories {
		if _, err := os.Stat(e.FilePath); err != nil {
			return false
		}
	}
	return true
}

func (s *Store) buildIndex(ctx context.Context, scope Scope) (*Index, []*Memory, error) {
	mems, _, err := s.Scan(ctx, scope)
	if err != nil {
		return nil, nil, err
	}
	ix := NewIndex()
	for _, m := range mems {
		ix.Memories[m.Slug] = entryOf(m)
	}
	return ix, mems, nil
}

func loadGraph(dir string) (*Graph, error) {
	path := filepath.Join(dir, "graph.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return NewGraph(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	g, err := ParseGraph(data)
	if err != nil {
		// The graph cannot be rebuilt from the files (labels and
		// timestamps live only here): refuse to overwrite it.
		return nil, fmt.Errorf("%s is malformed; fix or move it aside: %w", path, err)
	}
	return g, nil
}

// read loads one memory of a scope through its index entry.
func (st *scopeState) read(slug string, now time.Time) (*Memory, error) {
	e, ok := st.index.Memories[slug]
	if !ok {
		return nil, fmt.Errorf("%s in the %s scope: %w", slug, st.scope, ErrNotFound)
	}
	data, err := os.ReadFile(e.FilePath)
	if err != nil {
		return nil, fmt.Errorf("read memory %s: %w", slug, err)
	}
	return Parse(data, e.FilePath, st.scope, now)
}

// save writes a memory's file atomically and its index entry.
func (st *scopeState) save(m *Memory) error {
	data, err := Marshal(m)
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(m.Path, data, 0o644); err != nil {
		return err
	}
	st.index.Memories[m.Slug] = entryOf(m)
	st.indexChanged = true
	return nil
}

// Write creates a memory. Missing timestamps are now; the scope is the
// configured default when empty. The memory is validated first: on any
// error nothing is written. Links to existing memories of the scope become
// relates-to edges in graph.json.
func (s *Store) Write(ctx context.Context, m *Memory) error {
	now := s.now()
	if m.Scope == "" {
		m.Scope = s.DefaultScope()
	}
	if _, err := ParseScope(string(m.Scope)); err != nil {
		return err
	}
	if m.Created.IsZero() {
		m.Created = now
	}
	if m.Updated.IsZero() {
		m.Updated = m.Created
	}
	m.Tags, m.Links, m.Files = dedup(m.Tags), dedup(m.Links), dedup(m.Files)
	if err := Validate(m, now); err != nil {
		return err
	}
	err := s.locked(ctx, m.Scope, func(st *scopeState) error {
		if _, ok := st.index.Memories[m.Slug]; ok {
			return fmt.Errorf("%s in the %s scope: %w (use update)", m.Slug, m.Scope, ErrExists)
		}
		m.Path = filepath.Join(st.dir, m.Slug+".md")
		if _, err := os.Stat(m.Path); err == nil {
			return fmt.Errorf("%s: %w", m.Path, ErrExists)
		}
		if err := st.save(m); err != nil {
			return err
		}
		for _, l := range m.Links {
			if _, ok := st.index.Memories[l]; ok && l != m.Slug {
				if err := st.link(m.Slug, l, DefaultLabel, now); err != nil && !errors.Is(err, ErrDuplicateLink) {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.reindex(ctx, m.Scope)
}

// link adds an edge and mirrors it in both memories' links.
func (st *scopeState) link(from, to, label string, now time.Time) error {
	if err := st.graph.Link(from, to, label, now); err != nil {
		return err
	}
	st.graphChanged = true
	return st.mirrorLinks(now, from, to)
}

// mirrorLinks makes the frontmatter links of the given memories equal to
// their graph neighbours (keeping links to memories not in the graph, which
// health reports).
func (st *scopeState) mirrorLinks(now time.Time, slugs ...string) error {
	for _, slug := range slugs {
		m, err := st.read(slug, now)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return err
		}
		want := st.graph.Neighbours(slug)
		for _, l := range m.Links {
			if _, known := st.index.Memories[l]; !known && !slices.Contains(want, l) {
				want = append(want, l)
			}
		}
		if slices.Equal(dedup(m.Links), want) {
			continue
		}
		m.Links = want
		if err := st.save(m); err != nil {
			return err
		}
	}
	return nil
}

func dedup(ss []string) []string {
	var out []string
	for _, s := range ss {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Get reads a memory. An empty scope searches local, project, global and
// enterprise in that order.
func (s *Store) Get(ctx context.Context, scope Scope, slug string) (*Memory, error) {
	if err := CheckSlug(slug); err != nil {
		return nil, err
	}
	scopes := []Scope{scope}
	if scope == "" {
		scopes = Scopes
	}
	for _, sc := range scopes {
		dir, err := s.Dir(sc)
		if err != nil {
			if scope != "" {
				return nil, err
			}
			continue
		}
		ix, _, err := s.loadIndex(ctx, sc, dir)
		if err != nil {
			return nil, err
		}
		st := &scopeState{scope: sc, dir: dir, index: ix}
		m, err := st.read(slug, s.now())
		if errors.Is(err, ErrNotFound) {
			continue
		}
		return m, err
	}
	return nil, fmt.Errorf("%s: %w", slug, ErrNotFound)
}

// Update changes a memory with fn, sets its updated time, validates it and
// saves it; on any error nothing is written. Links added or removed by fn
// are mirrored in graph.json.
func (s *Store) Update(ctx context.Context, scope Scope, slug string, fn func(*Memory) error) (*Memory, error) {
	if err := CheckSlug(slug); err != nil {
		return nil, err
	}
	var out *Memory
	err := s.locked(ctx, scope, func(st *scopeState) error {
		now := s.now()
		m, err := st.read(slug, now)
		if err != nil {
			return err
		}
		before := slices.Clone(m.Links)
		if err := fn(m); err != nil {
			return err
		}
		if m.Slug != slug {
			return fmt.Errorf("update cannot change a slug (%s → %s)", slug, m.Slug)
		}
		m.Tags, m.Links, m.Files = dedup(m.Tags), dedup(m.Links), dedup(m.Files)
		m.Updated = now
		if m.Updated.Before(m.Created) {
			m.Created = m.Updated
		}
		if err := Validate(m, now); err != nil {
			return err
		}
		if err := st.save(m); err != nil {
			return err
		}
		for _, l := range m.Links {
			if _, ok := st.index.Memories[l]; ok && !slices.Contains(before, l) && !slices.Contains(st.graph.Neighbours(slug), l) {
				if err := st.link(slug, l, DefaultLabel, now); err != nil {
					return err
				}
			}
		}
		for _, l := range before {
			if !slices.Contains(m.Links, l) && slices.Contains(st.graph.Neighbours(slug), l) {
				if err := st.graph.Unlink(slug, l, ""); err != nil {
					return err
				}
				st.graphChanged = true
				if err := st.mirrorLinks(now, l); err != nil {
					return err
				}
			}
		}
		out = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, s.reindex(ctx, scope)
}

// Delete removes a memory, its index entry, its embedding cache and every
// graph edge to or from it (the other memories' links are updated).
func (s *Store) Delete(ctx context.Context, scope Scope, slug string) error {
	if err := CheckSlug(slug); err != nil {
		return err
	}
	err := s.locked(ctx, scope, func(st *scopeState) error {
		e, ok := st.index.Memories[slug]
		if !ok {
			return fmt.Errorf("%s in the %s scope: %w", slug, scope, ErrNotFound)
		}
		if err := os.Remove(e.FilePath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete memory %s: %w", slug, err)
		}
		delete(st.index.Memories, slug)
		st.indexChanged = true
		os.Remove(filepath.Join(st.dir, s.cfg.Embedding.CacheDirectory, slug+".json"))
		touched := st.graph.Remove(slug)
		if len(touched) > 0 {
			st.graphChanged = true
		}
		// Frontmatter links to the deleted memory go too.
		now := s.now()
		for other := range st.index.Memories {
			m, err := st.read(other, now)
			if err != nil || !slices.Contains(m.Links, slug) {
				continue
			}
			m.Links = slices.DeleteFunc(m.Links, func(l string) bool { return l == slug })
			if err := st.save(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.reindex(ctx, scope)
}

// Link adds a bidirectional edge from → to (the reverse edge has the
// inverse label) and mirrors it in both memories' links.
func (s *Store) Link(ctx context.Context, scope Scope, from, to, label string) error {
	for _, sl := range []string{from, to} {
		if err := CheckSlug(sl); err != nil {
			return err
		}
	}
	err := s.locked(ctx, scope, func(st *scopeState) error {
		for _, sl := range []string{from, to} {
			if _, ok := st.index.Memories[sl]; !ok {
				return fmt.Errorf("%s in the %s scope: %w (links stay within a scope)", sl, scope, ErrNotFound)
			}
		}
		return st.link(from, to, label, s.now())
	})
	if err != nil {
		return err
	}
	return s.reindex(ctx, scope)
}

// Unlink removes the edges between from and to (with label, or all when
// label is "") in both directions.
func (s *Store) Unlink(ctx context.Context, scope Scope, from, to, label string) error {
	err := s.locked(ctx, scope, func(st *scopeState) error {
		if err := st.graph.Unlink(from, to, label); err != nil {
			return err
		}
		st.graphChanged = true
		return st.mirrorLinks(s.now(), from, to)
	})
	if err != nil {
		return err
	}
	return s.reindex(ctx, scope)
}

// Graph returns a scope's graph.
func (s *Store) Graph(scope Scope) (*Graph, error) {
	dir, err := s.Dir(scope)
	if err != nil {
		return nil, err
	}
	return loadGraph(dir)
}

// List returns the index entries of a scope, sorted by slug.
func (s *Store) List(ctx context.Context, scope Scope) ([]IndexEntry, error) {
	dir, err := s.Dir(scope)
	if err != nil {
		return nil, err
	}
	ix, _, err := s.loadIndex(ctx, scope, dir)
	if err != nil {
		return nil, err
	}
	out := make([]IndexEntry, 0, len(ix.Memories))
	for _, e := range ix.Memories {
		out = append(out, e)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Slug < out[b].Slug })
	return out, nil
}

// RebuildReport says what a rebuild found.
type RebuildReport struct {
	Scope    Scope        `json:"scope"`
	Memories int          `json:"memories"`
	Skipped  []Skipped    `json:"skipped"`
	Problems int          `json:"memoriesWithProblems"`
	Graph    []GraphIssue `json:"graphIssues"`
}

// Rebuild regenerates a scope's index.json from its files (keeping the
// index's format), checks graph.json against it and re-indexes the scope's
// memories for search.
func (s *Store) Rebuild(ctx context.Context, scope Scope) (RebuildReport, error) {
	rep := RebuildReport{Scope: scope}
	var sc scanResult
	err := s.lockedWith(ctx, scope, false, func(st *scopeState) error {
		var err error
		if sc, err = s.scan(ctx, scope); err != nil {
			return err
		}
		ix := NewIndex()
		if data, err := os.ReadFile(filepath.Join(st.dir, "index.json")); err == nil {
			if old, err := ParseIndex(data, st.dir); err == nil {
				ix.Format = old.Format
			}
		}
		for _, m := range sc.mems {
			ix.Memories[m.Slug] = entryOf(m)
			if len(m.Problems) > 0 {
				rep.Problems++
			}
		}
		st.index, st.indexChanged = ix, true
		rep.Memories, rep.Skipped = len(sc.mems), sc.skipped
		rep.Graph = st.graph.Check(func(sl string) bool { _, ok := ix.Memories[sl]; return ok })
		return nil
	})
	if err != nil || s.index == nil {
		return rep, err
	}
	// The files were just read and parsed: the re-index reuses them and
	// their stats, in one transaction.
	dir, _ := s.Dir(scope)
	parsed := make(map[string]*Memory, len(sc.mems))
	for _, m := range sc.mems {
		parsed[m.Path] = m
	}
	_, err = s.syncParsed(ctx, map[Scope]string{scope: dir}, sc.stats, parsed, len(sc.stats))
	return rep, err
}
