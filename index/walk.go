package index

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/symbols"
)

// candidate is a file the walk found that a supported language claims.
type candidate struct {
	rel   string // slash-separated, relative to the root
	abs   string // "" for the walk's: see path
	lang  string
	size  int64
	mtime int64
	// link is why a symbolic link is not followed (SkipLinkOutside,
	// SkipLinkInside); "" for a file. The link is recorded, never read.
	link string
}

// path returns the file's absolute path. The walk leaves abs empty: of a
// re-index's thousands of candidates, few are read.
func (c *candidate) path(root string) string {
	if c.abs != "" {
		return c.abs
	}
	return filepath.Join(root, filepath.FromSlash(c.rel))
}

// alwaysSkipped are directories that never hold the workspace's own source.
var alwaysSkipped = map[string]bool{
	".git": true, ".hg": true, ".svn": true, workspace.DirName: true,
	"node_modules": true, "bower_components": true, "__pycache__": true,
	".venv": true, "venv": true, ".tox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".next": true, ".nuxt": true,
	".gradle": true, ".idea": true, ".terraform": true,
}

// NeverSource reports a directory name that never holds the workspace's own
// source, whatever the configuration (alwaysSkipped): the file watchers
// leave these out too.
func NeverSource(name string) bool { return alwaysSkipped[name] }

// vendorDirs hold copies of third-party code by the conventions of Go,
// pip and C/C++ projects; index.includeVendor indexes them.
var vendorDirs = map[string]bool{"vendor": true, "vendored": true, "vendored_packages": true, "_vendor": true, "third_party": true, "thirdparty": true}

// buildOutputs are skipped only next to a build manifest, because the same
// names are ordinary source directories elsewhere (Go's go/build package).
var buildOutputs = map[string]bool{"dist": true, "build": true, "out": true, "target": true, "coverage": true}

var manifests = []string{"package.json", "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts", "pyproject.toml", "setup.py", "go.mod", "tsconfig.json"}

// walker lists the files of a workspace that the index should consider,
// honouring .gitignore files (nested, with negations), .git/info/exclude,
// .ctxlsignore files and configured patterns.
//
// It follows no symbolic link (decision 0090). A link whose real path is
// outside the root would let a cloned repository have its index read
// ~/.ssh or /etc; one inside points at a file or directory that the walk
// indexes at its own path, once. Each link is a candidate with the reason,
// so that its row shows in ctxls stats, and is never read.
//
// The decisions (ignore rules, symlink loops, order) are taken by one
// goroutine in depth-first name order; the system calls behind them (open,
// getdents, a stat of every source file, reading ignore files) are done
// ahead of it by a few prefetching goroutines, because on a large tree they
// are most of the walk's time and a re-index after one change is mostly
// walk.
type walker struct {
	root          string
	includeVendor bool
	extra         []gitignore.Pattern
	visited       map[[2]uint64]bool // (dev, inode) of directories, against symlink loops
	unsupported   int
	// unsupportedExts sums the listings' (listing.unsupportedExts).
	unsupportedExts map[string]int
	// workers is the number of prefetching goroutines, one fewer than the
	// cores (the walking goroutine is busy too); 0 lists on the walking
	// goroutine only.
	workers int
}

func newWalker(root string, exclude []string, includeVendor bool) *walker {
	w := &walker{root: root, includeVendor: includeVendor, visited: map[[2]uint64]bool{}, workers: runtime.NumCPU() - 1}
	for _, p := range exclude {
		w.extra = append(w.extra, gitignore.ParsePattern(p, nil))
	}
	return w
}

// walk returns the candidate files below the root. skip, when not nil, is
// asked about each file first, with its relative path in a buffer it must
// not keep and, for a symbolic link, why it is not followed; the files it
// returns true for are left out. A re-index skips the unchanged files this
// way without a string or a candidate for each.
func (w *walker) walk(ctx context.Context, skip walkSkip) ([]candidate, error) {
	var out []candidate
	patterns := append([]gitignore.Pattern(nil), w.extra...)
	patterns = append(patterns, readIgnoreFile(filepath.Join(w.root, ".git", "info", "exclude"), nil)...)
	pf := newPrefetcher(w.workers)
	defer pf.close()
	err := w.dir(ctx, pf, newPendingDir(w.root, nil), nil, patterns, skip, &out)
	return out, err
}

// walkSkip is walk's question about each file.
type walkSkip func(rel []byte, lang string, size, mtime int64, link string) bool

func (w *walker) dir(ctx context.Context, pf *prefetcher, pending *pendingDir, rel []string, inherited []gitignore.Pattern, skip walkSkip, out *[]candidate) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l := pending.wait()
	if l.err != nil {
		if len(rel) == 0 {
			return fmt.Errorf("read %s: %w", pending.abs, l.err)
		}
		return nil // an unreadable subdirectory is skipped, not fatal
	}
	if l.key != nil {
		if w.visited[*l.key] {
			return nil // a symlink loop or a second link to the same tree
		}
		w.visited[*l.key] = true
	}
	hasManifest := l.manifest
	w.unsupported += l.unsupported
	for ext, n := range l.unsupportedExts {
		if w.unsupportedExts == nil {
			w.unsupportedExts = map[string]int{}
		}
		w.unsupportedExts[ext] += n
	}
	patterns := inherited
	if len(l.ignore) > 0 {
		patterns = append(patterns[:len(patterns):len(patterns)], l.ignore...)
	}
	matcher := gitignore.NewMatcher(patterns)
	// Subdirectories to descend into are queued for prefetching all at
	// once, before descending into the first.
	// The queue is a stack, so they are queued last first.
	subs := make([]*pendingDir, len(l.entries))
	var queue []*pendingDir
	// The files' relative paths are built in one buffer.
	var relBuf []byte
	if len(rel) > 0 {
		relBuf = append([]byte(strings.Join(rel, "/")), '/')
	}
	dirLen := len(relBuf)
	for i := len(l.entries) - 1; i >= 0; i-- {
		e := &l.entries[i]
		if e.lang != "" || e.link || w.skipDir(e.name, rel, hasManifest, matcher) {
			continue
		}
		childRel := append(rel[:len(rel):len(rel)], e.name)
		subs[i] = newPendingDir(filepath.Join(pending.abs, e.name), childRel)
		queue = append(queue, subs[i])
	}
	pf.push(queue...)
	// One path buffer for matching the files: the matcher does not keep it.
	fileRel := append(rel[:len(rel):len(rel)], "")
	for i := range l.entries {
		e := &l.entries[i]
		if sub := subs[i]; sub != nil {
			if err := w.dir(ctx, pf, sub, sub.rel, patterns, skip, out); err != nil {
				return err
			}
			continue
		}
		if e.lang == "" && !e.link {
			continue
		}
		fileRel[len(rel)] = e.name
		if e.statErr {
			continue
		}
		link := ""
		if e.link {
			// A link to a directory is filtered as the directory would be.
			if e.lang == "" && w.skipDir(e.name, rel, hasManifest, matcher) || e.lang != "" && matcher.Match(fileRel, false) {
				continue
			}
			link = w.linkReason(filepath.Join(pending.abs, e.name))
		} else if matcher.Match(fileRel, false) {
			continue
		}
		relBuf = append(relBuf[:dirLen], e.name...)
		if skip != nil && skip(relBuf, e.lang, e.size, e.mtime, link) {
			continue
		}
		*out = append(*out, candidate{rel: string(relBuf), lang: e.lang, size: e.size, mtime: e.mtime, link: link})
	}
	return nil
}

// skipDir reports whether the walk leaves out the subdirectory name of the
// directory rel.
func (w *walker) skipDir(name string, rel []string, hasManifest bool, matcher gitignore.Matcher) bool {
	if alwaysSkipped[name] || (vendorDirs[name] && !w.includeVendor) || (hasManifest && buildOutputs[name]) {
		return true
	}
	return matcher.Match(append(rel[:len(rel):len(rel)], name), true)
}

// linkReason says why the symbolic link at abs is not followed. Resolving
// it costs a system call per element of its path and target: links are
// rare, and only they are resolved.
func (w *walker) linkReason(abs string) string {
	if wspath.Inside(w.root, abs) {
		return SkipLinkInside
	}
	return SkipLinkOutside
}

// dirEntry is a subdirectory (or a link to one), or a file that a
// supported language claims (or a link to one) with its size and mtime,
// the link's own for a link. Other entries are only counted: they are most
// of a tree's names and the walk needs none.
type dirEntry struct {
	name        string
	lang        string // "" for a directory
	size, mtime int64
	statErr     bool
	link        bool // a symbolic link to what lang says
}

// listing is what the walk needs of one directory.
type listing struct {
	entries     []dirEntry // sorted by name
	unsupported int        // files (or links to files) no language claims
	// unsupportedExts counts them by extension ("" for none), for the
	// summary: a workspace in a language ctxls does not parse says which.
	unsupportedExts map[string]int
	manifest        bool       // a build manifest is among the names
	ignoreFiles     []string   // ignore files among the names, in the order read
	key             *[2]uint64 // (device, inode); nil where the platform has none
	ignore          []gitignore.Pattern
	err             error
}

// note records a name that is not an entry: a manifest, an ignore file.
func (l *listing) note(name string) {
	switch name {
	case ".gitignore", ".ctxlsignore":
		l.ignoreFiles = append(l.ignoreFiles, name)
	}
	if slices.Contains(manifests, name) {
		l.manifest = true
	}
}

// list reads one directory: entries, stats of source files, ignore files.
func list(abs string, rel []string) listing {
	l := listDir(abs, len(rel) > 0)
	if l.err != nil {
		return l
	}
	slices.SortFunc(l.entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	// Only ignore files the listing holds are opened: trying both names in
	// every directory was two failed opens per directory of the walk.
	for _, name := range []string{".gitignore", ".ctxlsignore"} {
		if slices.Contains(l.ignoreFiles, name) {
			l.ignore = append(l.ignore, readIgnoreFile(filepath.Join(abs, name), rel)...)
		}
	}
	return l
}

// languageOf returns the name of the language that claims a file name, or
// "".
func languageOf(name string) string {
	if lang, ok := symbols.LanguageFor(name); ok {
		return lang.Name
	}
	return ""
}

// pendingDir is a directory listing that a prefetcher or the walk itself,
// whichever comes first, reads.
type pendingDir struct {
	abs     string
	rel     []string
	claimed atomic.Bool
	done    chan struct{}
	l       listing
}

func newPendingDir(abs string, rel []string) *pendingDir {
	return &pendingDir{abs: abs, rel: rel, done: make(chan struct{})}
}

// run reads the listing unless another goroutine has claimed it.
func (p *pendingDir) run() {
	if p.claimed.CompareAndSwap(false, true) {
		p.l = list(p.abs, p.rel)
		close(p.done)
	}
}

// wait returns the listing, reading it here if no prefetcher has started.
func (p *pendingDir) wait() *listing {
	p.run()
	<-p.done
	return &p.l
}

// prefetcher reads queued directory listings on a few goroutines. The queue
// is a stack: the walk descends depth first, so the directories queued last
// (the children of the one it just entered) are the ones it needs next.
type prefetcher struct {
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []*pendingDir
	closed  bool
	workers int
	wg      sync.WaitGroup
}

func newPrefetcher(workers int) *prefetcher {
	pf := &prefetcher{workers: workers}
	pf.cond = sync.NewCond(&pf.mu)
	for range workers {
		pf.wg.Add(1)
		go pf.work()
	}
	return pf
}

// push queues directories for prefetching; the last is read first.
func (pf *prefetcher) push(ps ...*pendingDir) {
	if len(ps) == 0 || pf.workers == 0 {
		return
	}
	pf.mu.Lock()
	pf.stack = append(pf.stack, ps...)
	pf.mu.Unlock()
	if len(ps) == 1 {
		pf.cond.Signal()
	} else {
		pf.cond.Broadcast()
	}
}

func (pf *prefetcher) work() {
	defer pf.wg.Done()
	for {
		pf.mu.Lock()
		for len(pf.stack) == 0 && !pf.closed {
			pf.cond.Wait()
		}
		if pf.closed {
			pf.mu.Unlock()
			return
		}
		p := pf.stack[len(pf.stack)-1]
		pf.stack[len(pf.stack)-1] = nil
		pf.stack = pf.stack[:len(pf.stack)-1]
		pf.mu.Unlock()
		p.run()
	}
}

// close stops the prefetching goroutines; listings not yet started are
// dropped (the walk has ended or failed).
func (pf *prefetcher) close() {
	pf.mu.Lock()
	pf.closed = true
	pf.stack = nil
	pf.mu.Unlock()
	pf.cond.Broadcast()
	pf.wg.Wait()
}

// readIgnoreFile parses a gitignore-format file; a missing file yields none.
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// noteUnsupported counts a file no language claims, by its extension.
func (l *listing) noteUnsupported(name string) {
	l.unsupported++
	if l.unsupportedExts == nil {
		l.unsupportedExts = map[string]int{}
	}
	l.unsupportedExts[strings.ToLower(filepath.Ext(name))]++
}
