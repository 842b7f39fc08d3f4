package index

import (
	"context"
	"slices"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// Resident is what a long-running writer, the hook daemon's follow loop,
// keeps between its Update calls instead of rebuilding it for each saved
// file (issue 19, decision 0092):
//
//   - the set of tracked paths, with the indexes import resolution builds
//     over it: loading it was 7 ms of the 77 ms re-index of
//     net/http/server.go on GOROOT/src, and grows with the tree. It is
//     reused only while the store's Generation shows no commit since the
//     last Update brought it up to date, which only a store of one
//     connection can tell (store.SeesOtherCommits); other stores load it
//     each time;
//   - a parsing worker whose analyzers keep their cache of analyzed words:
//     a new one stemmed every word of the file again.
//
// The zero value is ready to use; Close releases the parsers. A Resident
// belongs to one writer: its Update calls must not overlap.
type Resident struct {
	gen   uint64
	files *fileSet // nil until loaded, and after a failed run

	mu     sync.Mutex // held while a run's parse uses the worker
	worker *worker
}

// worker is one parsing goroutine's extractor and builder, and, for a
// resident worker, the syntax trees of the files it parsed last.
type worker struct {
	x     *symbols.Extractor
	b     *builder
	trees *treeCache // nil: every file is parsed from scratch
}

func newWorker(spare bool) *worker {
	w := &worker{x: symbols.NewExtractor(), b: newBuilder()}
	if spare {
		w.b.spare = newBuilder()
	}
	return w
}

// extract parses text, the content of rel, and returns what it declares
// and references. A file whose tree the worker kept from its last parse is
// parsed incrementally: saving net/http/server.go again re-parsed in
// 1–2 ms what took 14 ms from scratch. Tree-sitter re-parses only what the
// edit touched and gives the same tree a parse from scratch gives.
func (w *worker) extract(ctx context.Context, rel string, text []byte) (*symbols.File, error) {
	if w.trees == nil {
		return w.x.Extract(ctx, rel, text)
	}
	var old *sitter.Tree
	if k, ok := w.trees.take(rel); ok {
		if edit, changed := symbols.EditBetween(k.text, text); changed {
			symbols.EditTree(k.tree, edit)
		}
		old = k.tree
		defer old.Close()
	}
	sf, tree, err := w.x.ExtractIncremental(ctx, rel, old, text)
	if tree != nil {
		if err != nil {
			tree.Close()
		} else {
			w.trees.put(rel, slices.Clone(text), tree)
		}
	}
	return sf, err
}

func (w *worker) close() {
	w.x.Close()
	if w.trees != nil {
		w.trees.clear()
	}
}

// Bounds of a resident worker's kept trees: the files an editor saves again
// and again are few, and a tree costs some times its text in memory.
const (
	maxKeptTrees     = 8
	maxKeptTreeBytes = 4 << 20 // of text, all kept trees together
)

// treeCache keeps the syntax trees of the files parsed last, with the text
// each was parsed from, the newest last.
type treeCache struct {
	kept  []keptTree
	bytes int
}

type keptTree struct {
	rel  string
	text []byte
	tree *sitter.Tree
}

// take removes rel's tree from the cache and returns it.
func (c *treeCache) take(rel string) (keptTree, bool) {
	for i, k := range c.kept {
		if k.rel == rel {
			c.kept = slices.Delete(c.kept, i, i+1)
			c.bytes -= len(k.text)
			return k, true
		}
	}
	return keptTree{}, false
}

// put keeps tree, parsed from text, as rel's, and lets the oldest go while
// the cache holds too many or too large.
func (c *treeCache) put(rel string, text []byte, tree *sitter.Tree) {
	c.kept = append(c.kept, keptTree{rel, text, tree})
	c.bytes += len(text)
	for len(c.kept) > 1 && (len(c.kept) > maxKeptTrees || c.bytes > maxKeptTreeBytes) {
		c.bytes -= len(c.kept[0].text)
		c.kept[0].tree.Close()
		c.kept = slices.Delete(c.kept, 0, 1)
	}
}

func (c *treeCache) clear() {
	for _, k := range c.kept {
		k.tree.Close()
	}
	c.kept, c.bytes = nil, 0
}

// Close releases the kept parsers. A parse still running keeps its own
// until it ends.
func (r *Resident) Close() {
	if r.mu.TryLock() {
		if r.worker != nil {
			r.worker.close()
			r.worker = nil
		}
		r.mu.Unlock()
	}
}

// takeWorker returns the kept worker and a function that gives it back, or
// nil when r is nil or a parse of an earlier run that ended early still
// uses it.
func (r *Resident) takeWorker() (*worker, func()) {
	if r == nil || !r.mu.TryLock() {
		return nil, nil
	}
	if r.worker == nil {
		r.worker = newWorker(true)
		r.worker.trees = &treeCache{}
	}
	return r.worker, r.mu.Unlock
}

// Warm readies r for the next Update, so that the first save after a
// whole walk does not pay for the path set and the parsers: it makes the
// worker, loads the path set and compiles the queries of the languages in
// it. The generation is read before the paths, so a commit in between has
// the next Update load them again.
func (r *Resident) Warm(ctx context.Context, st *store.Store) error {
	if _, giveBack := r.takeWorker(); giveBack != nil {
		giveBack()
	}
	if !st.SeesOtherCommits() {
		return nil
	}
	gen := st.Generation(ctx)
	ids, err := st.PathIDs(ctx)
	if err != nil {
		return err
	}
	r.files, r.gen = newFileSet(ids), gen
	// The languages' queries, compiled once per process, for the first
	// save of each language's files.
	langs := map[*symbols.Language]bool{}
	for p := range ids {
		if l, ok := symbols.LanguageFor(p); ok {
			langs[l] = true
		}
	}
	go func() {
		for l := range langs {
			_ = l.Prepare() // an error shows again, and is logged, at the first parse
		}
	}()
	return nil
}

// load returns the tracked paths: the kept set while it is current, else
// the store's, kept for the next call when r is not nil. The caller holds
// the index lock, so no other process's run can commit until it is
// released.
func (r *Resident) load(ctx context.Context, st *store.Store) (*fileSet, error) {
	reuse := r != nil && st.SeesOtherCommits()
	if reuse && r.files != nil && r.gen == st.Generation(ctx) {
		return r.files, nil
	}
	ids, err := st.PathIDs(ctx)
	if err != nil {
		return nil, err
	}
	files := newFileSet(ids)
	if reuse {
		r.files = files
	}
	return files, nil
}

// done records how a run that used the set ended. apply brings the set up
// to date as it goes; a run that failed may have left it half changed.
// Still under the run's lock, the store's generation after the run's
// commits is the one the set is current for.
func (r *Resident) done(ctx context.Context, st *store.Store, err error) {
	if r == nil {
		return
	}
	if err != nil {
		r.files = nil
		return
	}
	r.gen = st.Generation(ctx)
}
