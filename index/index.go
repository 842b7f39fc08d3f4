// Package index keeps a workspace's store in step with its files: it walks
// the tree, parses what changed with tree-sitter on all cores, writes
// entities, references and full-text documents, and resolves references to
// definitions across files.
package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/history"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// Options control an index run.
type Options struct {
	Root   string
	Config config.Config
	// Workers is the number of parsing goroutines; 0 means one per CPU.
	Workers int
	// Progress, if set, is called after each processed file.
	Progress func(done, total int)
	Log      *zap.Logger
	// LockTimeout bounds the wait for another process's index run; 0 means
	// wait up to a minute.
	LockTimeout time.Duration
	// LockHeld says the caller holds the index lock already (a background
	// rebuild inherits it from the process that started it; see TryLock).
	LockHeld bool
	// Reread makes Update read the given files even when their size and
	// mtime match the index: their content was found to differ (an edit
	// that kept both; decision 0092).
	Reread bool
	// Resident, when set, keeps the tracked paths and a parsing worker
	// between the Update calls of a long-running writer.
	Resident *Resident
}

// Summary reports what a run did.
type Summary struct {
	Root        string         `json:"root"`
	Files       int            `json:"files"`     // files tracked after the run
	Parsed      int            `json:"parsed"`    // files (re)parsed in this run
	Unchanged   int            `json:"unchanged"` // files found unchanged
	Deleted     int            `json:"deleted"`
	Skipped     map[string]int `json:"skipped"` // files not parsed in this run, by reason
	Unsupported int            `json:"unsupported"`
	// UnsupportedExts counts the unsupported files by extension ("" for
	// none), so that a workspace in a language no query parses says which.
	UnsupportedExts map[string]int `json:"unsupported_by_extension,omitempty"`
	Entities        int            `json:"entities"` // entities written in this run
	Refs            int            `json:"refs"`     // references written in this run
	Resolved        int            `json:"resolved"` // of which resolved to a definition
	Seconds         float64        `json:"seconds"`
	// Recovered names where a corrupt index was moved before rebuilding.
	Recovered string `json:"recovered,omitempty"`
	// IgnoredBy, when the run found no file to index, names the ignore
	// rules that excluded the root's entries (IgnoreRules).
	IgnoredBy []string `json:"ignored_by,omitempty"`
	// Followed says the run was answered by the workspace's hook daemon,
	// which has watched every change since a whole walk: no walk was
	// needed, and Parsed and Deleted are the changes it had pending.
	Followed bool `json:"followed,omitempty"`
}

// explainEmpty says, for a run that found no file, which ignore rules did
// it: a .gitignore ending in "/*" (Debian's packaging adds one) otherwise
// gives an empty index and no hint why.
func explainEmpty(sum *Summary, opts Options) {
	if sum.Files > 0 {
		return
	}
	sum.IgnoredBy, _ = IgnoreRules(opts.Root, opts.Config.Index.Exclude)
}

// Change is one file to bring into the index outside a full walk.
type Change struct {
	// Path is relative to the root (slash-separated) or absolute.
	Path string
	// Content, when non-nil, is indexed instead of the file on disk (an
	// editor's unsaved buffer).
	Content []byte
}

// Run walks the workspace and updates the index to match it.
func Run(ctx context.Context, st *store.Store, opts Options) (Summary, error) {
	start := time.Now()
	unlock, err := lock(ctx, opts)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	// HEAD before the walk: a checkout during the run leaves the recorded
	// HEAD behind, so the next render starts another run (decision 0092).
	head := GitHead(opts.Root)
	// Only the stat fields of every tracked file are read to find what
	// changed (full rows only of the files that did), while the walk lists
	// the first directories: it waits for them at its first file.
	var (
		stats     []store.FileStat
		version   string
		byPath    map[string]int
		seen      []bool
		reanalyze bool
		loadErr   error
		unchanged int
		// A re-index parses the first changed files while the walk goes on.
		early *earlyParse
	)
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		if stats, loadErr = st.FileStats(ctx); loadErr != nil {
			return
		}
		// Another analysis version: every document must be re-analyzed,
		// which rebuilds the code tables beside the live ones (decision
		// 0057).
		if version, loadErr = st.Meta(ctx, "analyzer"); loadErr != nil {
			return
		}
		reanalyze = len(stats) > 0 && version != analyzer.Version
		if len(stats) > 0 && !reanalyze {
			early = startEarly(ctx, st, opts, stats)
		}
		byPath = make(map[string]int, len(stats))
		for i, f := range stats {
			byPath[f.Path] = i
		}
		seen = make([]bool, len(stats))
	}()
	waited := false
	w := newWalker(opts.Root, opts.Config.Index.Exclude, opts.Config.Index.IncludeVendor)
	cands, err := w.walk(ctx, func(rel []byte, lang string, size, mtime int64, link string) bool {
		if !waited {
			<-loaded
			waited = true
		}
		if loadErr != nil {
			return false
		}
		i, ok := byPath[string(rel)]
		if ok {
			seen[i] = true
			f := &stats[i]
			// A link's reason can change without the link (its target
			// moved in or out): it is compared too.
			if !reanalyze && f.Size == size && f.MTime == mtime && f.Skip != SkipUnreadable && linkSkip(f.Skip) == link {
				unchanged++
				return true
			}
		}
		if early != nil {
			early.offer(candidate{rel: string(rel), lang: lang, size: size, mtime: mtime, link: link}, ok)
		}
		return false
	})
	<-loaded
	var parsed map[string]*result
	if early != nil {
		parsed = early.finish()
	}
	if loadErr != nil {
		return Summary{}, loadErr
	}
	if err != nil {
		return Summary{}, fmt.Errorf("walk %s: %w", opts.Root, err)
	}
	sum := Summary{Root: opts.Root, Skipped: map[string]int{}, Unsupported: w.unsupported, UnsupportedExts: w.unsupportedExts, Unchanged: unchanged}
	work := make([]job, len(cands))
	var changed []string // tracked paths among the work
	for i, c := range cands {
		work[i] = job{cand: c}
		if _, ok := byPath[c.rel]; ok && !reanalyze {
			changed = append(changed, c.rel)
		}
	}
	if len(changed) > 0 {
		olds, err := st.FilesByPath(ctx, changed)
		if err != nil {
			return Summary{}, err
		}
		for i := range work {
			if old, ok := olds[work[i].cand.rel]; ok {
				work[i].old = &old
			}
		}
	}
	useEarly(work, parsed)
	var deleted []store.File
	for i, f := range stats {
		if !seen[i] {
			deleted = append(deleted, store.File{ID: f.ID, Path: f.Path, Size: f.Size, MTime: f.MTime, Skip: f.Skip})
		}
	}
	if reanalyze {
		// A rebuild writes every file into empty tables, as a cold run
		// does: files that are gone are simply not written.
		sum.Deleted = len(deleted)
		err := apply(ctx, st, opts, newFileSet(map[string]int64{}), work, nil, true, true, &sum)
		if err == nil {
			err = st.Compact(ctx)
		}
		if err == nil {
			err = recordHead(ctx, st, head)
		}
		if err == nil {
			updateHistory(ctx, st, opts, head)
		}
		sum.Files = len(cands)
		explainEmpty(&sum, opts)
		sum.Seconds = time.Since(start).Seconds()
		return sum, err
	}
	// The resolver needs every path only when something changed.
	var ids map[string]int64
	if len(work) > 0 || len(deleted) > 0 {
		ids = make(map[string]int64, len(stats))
		for _, f := range stats {
			ids[f.Path] = f.ID
		}
	}
	if err := apply(ctx, st, opts, newFileSet(ids), work, deleted, false, true, &sum); err != nil {
		return sum, err
	}
	// A cold run wrote the whole file in the order of its hashed ids.
	if len(stats) == 0 && len(work) > 0 {
		if err := st.Compact(ctx); err != nil {
			return sum, err
		}
	}
	// Only a full run re-analyzes everything, so only it records the
	// analysis version (a rebuild records it with the swap).
	if version != analyzer.Version {
		if err := st.SetMeta(ctx, "analyzer", analyzer.Version); err != nil {
			return sum, err
		}
	}
	if err := recordHead(ctx, st, head); err != nil {
		return sum, err
	}
	updateHistory(ctx, st, opts, head)
	sum.Files = len(cands) + unchanged
	explainEmpty(&sum, opts)
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// Update indexes the given files now (a file the assistant just wrote, an
// editor buffer), deleting those that no longer exist.
func Update(ctx context.Context, st *store.Store, opts Options, changes []Change) (Summary, error) {
	start := time.Now()
	sum := Summary{Root: opts.Root, Skipped: map[string]int{}}
	// Most calls (a hook after a Read) change nothing: find out from the
	// stored stat and hash before taking the lock or loading the file list.
	// (With Reread only the content tells: process compares the hash.)
	if !opts.Reread {
		unchanged, err := allUnchanged(ctx, st, opts.Root, changes)
		if err != nil {
			return sum, err
		}
		if unchanged {
			sum.Unchanged = len(changes)
			sum.Seconds = time.Since(start).Seconds()
			return sum, nil
		}
	}
	unlock, err := lock(ctx, opts)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	// Paths and ids of all files (for the resolver); full rows only of the
	// files at hand.
	files, err := opts.Resident.load(ctx, st)
	if err != nil {
		return Summary{}, err
	}
	tracked := files.paths
	var work []job
	var deleted []store.File
	for _, ch := range changes {
		rel, abs, skip, err := changePath(opts.Root, ch.Path)
		if err != nil {
			return sum, err
		}
		if skip != "" {
			// Not even a buffer: an editor's buffer of a link to a file
			// outside holds that file.
			sum.Skipped[skip]++
			continue
		}
		lang, ok := symbols.LanguageFor(rel)
		if !ok {
			sum.Unsupported++
			continue
		}
		var old store.File
		wasTracked := false
		if _, ok := tracked[rel]; ok {
			if old, wasTracked, err = st.FileByPath(ctx, rel); err != nil {
				return sum, err
			}
		}
		var c candidate
		if ch.Content != nil {
			c = candidate{rel: rel, abs: abs, lang: lang.Name, size: int64(len(ch.Content)), mtime: time.Now().UnixNano()}
		} else {
			info, err := os.Lstat(abs)
			if errors.Is(err, os.ErrNotExist) {
				if wasTracked {
					deleted = append(deleted, old)
				}
				continue
			}
			if err != nil {
				return sum, fmt.Errorf("index %s: %w", rel, err)
			}
			if !info.Mode().IsRegular() {
				// Replaced by a directory or a link: what the index holds
				// of the file is gone (a walk records a link).
				if wasTracked {
					deleted = append(deleted, old)
				}
				continue
			}
			c = candidate{rel: rel, abs: abs, lang: lang.Name, size: info.Size(), mtime: info.ModTime().UnixNano()}
		}
		j := job{cand: c, content: ch.Content}
		if wasTracked {
			j.old = &old
		}
		work = append(work, j)
	}
	before := len(tracked) // apply brings files up to date
	err = apply(ctx, st, opts, files, work, deleted, false, false, &sum)
	opts.Resident.done(ctx, st, err)
	if err != nil {
		return sum, err
	}
	sum.Files = before + sum.Parsed - sum.Deleted
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// allUnchanged reports whether every change names a tracked file whose size
// and mtime (or, for a buffer, content hash) match what is stored.
func allUnchanged(ctx context.Context, st *store.Store, root string, changes []Change) (bool, error) {
	for _, ch := range changes {
		rel, abs, skip, err := changePath(root, ch.Path)
		if err != nil || skip != "" {
			return false, err // Update counts what it skips
		}
		if _, ok := symbols.LanguageFor(rel); !ok {
			continue
		}
		f, ok, err := st.FileByPath(ctx, rel)
		if err != nil || !ok || f.Skip == SkipUnreadable {
			return false, err
		}
		if ch.Content != nil {
			sum := sha256.Sum256(ch.Content)
			if hex.EncodeToString(sum[:16]) != f.Hash {
				return false, nil
			}
			continue
		}
		info, err := os.Lstat(abs)
		if err != nil || info.Size() != f.Size || info.ModTime().UnixNano() != f.MTime {
			return false, nil
		}
	}
	return true, nil
}

// changePath returns where a changed file is indexed, relative to root
// (slash-separated) and absolute: at its real path, as the walk indexes a
// file only at its own path, never through a link. A path whose real
// location is outside root is not indexed: skip says why.
func changePath(root, p string) (rel, abs, skip string, err error) {
	rel, abs, err = relPath(root, p)
	if err != nil {
		return "", "", "", err
	}
	real, err := wspath.Resolve(root, abs)
	switch {
	case errors.Is(err, wspath.ErrOutside):
		return rel, abs, SkipLinkOutside, nil
	case err != nil:
		// A link loop: the read fails and records the file unreadable.
		return rel, abs, "", nil
	case real != abs:
		r, err := filepath.Rel(root, real)
		if err != nil {
			return "", "", "", fmt.Errorf("index %s: %w", p, err)
		}
		return filepath.ToSlash(r), real, "", nil
	}
	return rel, abs, "", nil
}

// relPath returns p relative to root (slash-separated) and absolute.
func relPath(root, p string) (rel, abs string, err error) {
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
		r, err := filepath.Rel(root, abs)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", "", fmt.Errorf("%s is outside the workspace %s", p, root)
		}
		return filepath.ToSlash(r), abs, nil
	}
	rel = filepath.ToSlash(filepath.Clean(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "", fmt.Errorf("%s is outside the workspace %s", p, root)
	}
	return rel, filepath.Join(root, filepath.FromSlash(rel)), nil
}

// linkSkip returns skip if it is the reason a symbolic link was not
// followed, else "".
func linkSkip(skip string) string {
	if skip == SkipLinkOutside || skip == SkipLinkInside {
		return skip
	}
	return ""
}

// lock serialises index writers across processes.
func lock(ctx context.Context, opts Options) (func(), error) {
	if opts.LockHeld {
		return func() {}, nil
	}
	l := flock.New(lockPath(opts.Root))
	timeout := opts.LockTimeout
	if timeout == 0 {
		timeout = time.Minute
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := l.TryLockContext(lctx, 10*time.Millisecond)
	if err != nil || !ok {
		return nil, fmt.Errorf("another ctxls process is indexing %s (waited %s): %w", opts.Root, timeout, errors.Join(err, errLocked))
	}
	return func() { l.Unlock() }, nil
}

var errLocked = errors.New("index lock busy")

// job is one file to (re)process.
type job struct {
	cand    candidate
	old     *store.File
	content []byte
	parsed  *result // processed already, while the walk ran
}

// result is a processed job.
type result struct {
	job
	fd   store.FileData
	same bool // content hash unchanged: only the stat changed
	// stored holds the file's references as stored before this run, when it
	// had any rows: phase 2 turns them into fd.Refs with ReplaceRefs.
	stored []store.Ref
	// resolved marks the references of fd.Refs whose target was taken
	// from stored (reuseTargets) instead of resolved again.
	resolved []bool
	// entities counts fd.Entities, which are let go once written.
	entities int
	// imports keeps a spilled file's import references when its language
	// resolves through other files' imports (importScoped): every file's
	// scope must be known before the first is resolved.
	imports []store.Ref
}

// refKey is everything about a reference that resolution reads besides the
// definitions of its name and its file's imports: not its line.
type refKey struct {
	src        int64
	kind       store.RefKind
	name, qual string
}

// reuseTargets gives the file's references the targets their stored
// equivalents had, where resolving again would give the same: the file's
// imports resolve as before (so its scope is the same), the reference's
// name is not among those whose definitions this run changed (affected),
// and the stored references with that key agree. The caller ensures that
// no file was added or removed, which could change what imports resolve
// to. The rest are left for the resolver. Stored targets of other files'
// references rely on the same property: they are re-resolved only when
// their name is affected.
func (r *result) reuseTargets(affected map[string]bool) {
	if len(r.stored) == 0 || !sameImports(r.stored, r.fd.Refs) {
		return
	}
	targets := make(map[refKey]int64, len(r.stored))
	for _, s := range r.stored {
		if s.Kind == store.RefImports || affected[s.Name] {
			continue
		}
		k := refKey{s.SrcID, s.Kind, s.Name, s.Qualifier}
		if dst, seen := targets[k]; seen && dst != s.DstID {
			targets[k] = -1 // stored copies disagree: resolve again
			continue
		}
		targets[k] = s.DstID
	}
	r.resolved = make([]bool, len(r.fd.Refs))
	for i := range r.fd.Refs {
		ref := &r.fd.Refs[i]
		if ref.Kind == store.RefImports {
			continue
		}
		if dst, ok := targets[refKey{ref.SrcID, ref.Kind, ref.Name, ref.Qualifier}]; ok && dst >= 0 {
			ref.DstID = dst
			r.resolved[i] = true
		}
	}
}

// sameImports reports whether two versions of a file's references hold the
// same imports with the same resolved targets.
func sameImports(a, b []store.Ref) bool {
	type imp struct {
		name, qual string
		dst        int64
	}
	count := map[imp]int{}
	for _, ref := range a {
		if ref.Kind == store.RefImports {
			count[imp{ref.Name, ref.Qualifier, ref.DstID}]++
		}
	}
	for _, ref := range b {
		if ref.Kind == store.RefImports {
			k := imp{ref.Name, ref.Qualifier, ref.DstID}
			if count[k] == 0 {
				return false
			}
			count[k]--
		}
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// parseAheadMax is the most files a run on a store of one connection
// parses before its write transaction begins (see apply): the results of
// the daemon's largest re-index (followBatch) are held in memory at once.
const parseAheadMax = 256

// batchFiles is how many files one write transaction holds during a large
// run: large enough to amortise commits, small enough that a hook waiting
// for the write lock is not held up for long.
const batchFiles = 400

// files holds the path of every file stored before this run, with its id;
// apply updates it in place to the paths after the run.
//
// A rebuild (files empty, no deletions) writes every file into a new copy
// of the code tables, as a cold run writes into empty ones, and swaps it in
// for the live tables in its last transaction: until then readers see the
// old index, and an interrupted rebuild leaves it as it was (decision 0057).
//
// whole says the run covers the whole tree (Run): its last transaction
// marks the index complete (CheckHealth).
func apply(ctx context.Context, st *store.Store, opts Options, files *fileSet, work []job, deleted []store.File, rebuild, whole bool, sum *Summary) error {
	tracked := files.paths
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	dirty, err := st.Meta(ctx, "dirty")
	if err != nil {
		return err
	}
	small := len(work)+len(deleted) <= 64
	cold := len(tracked) == 0 || len(work) > len(tracked)/2
	// A cold run over an index that holds files (a checkout that rewrote
	// most of them) loads every definition, but the files it does not parse
	// again (unchanged content, or untouched) keep references that its
	// changes may have moved: they are checked as an incremental run checks
	// them. Only a first run has no such files.
	first := len(tracked) == 0
	// On a store of one connection (the hook daemon's, a hook process's),
	// the write transaction holds the connection that every hook's query
	// needs. A batch that fits in memory is parsed before it begins, so
	// that hooks wait for the writes only: the daemon's follow loop
	// re-indexing a checkout's 150 files on its one worker held them past
	// their deadline (decision 0092's amendment).
	var results <-chan *result
	var prior map[int64]priorRows
	if st.SeesOtherCommits() && !rebuild && len(work) <= parseAheadMax {
		parsing := parseAll(ctx, opts, work)
		if small {
			// What the replaced files had is read while they parse; the
			// index lock keeps other writers out until the write.
			if prior, err = readPrior(ctx, st, work); err != nil {
				return err
			}
		}
		ahead := make(chan *result, len(work))
		for r := range parsing {
			ahead <- r
		}
		close(ahead)
		results = ahead
	}
	var w *store.Writer
	if rebuild {
		if err := st.StartRebuild(ctx); err != nil {
			return err
		}
		w, err = st.BeginRebuildWrite(ctx)
	} else {
		w, err = st.BeginWrite(ctx)
	}
	if err != nil {
		return err
	}
	defer func() { w.Rollback() }()
	// A run over most of the tree resolves every reference against every
	// definition, after all are written. Until then its references wait on
	// disk, and what was written of a file is let go: held, they grew with
	// the tree (6.8 GiB for a kernel; decision 0106). Such a run reads back
	// most of what it writes, through the page cache rather than the map.
	var spill *refSpill
	if cold && !small {
		if spill, err = newRefSpill(filepath.Dir(st.Path())); err != nil {
			return err
		}
		defer spill.close()
		if err := w.Unmap(ctx); err != nil {
			return err
		}
	}
	// Partial rows of an interrupted run are in the live tables, which a
	// rebuild replaces.
	if dirty == "1" && !rebuild {
		log.Info("previous index run was interrupted; removing its partial rows")
		if err := w.PurgeOrphans(ctx); err != nil {
			return err
		}
	}
	// A cold run over many files loads faster without secondary indexes (a
	// rebuild's tables have none until the swap).
	bulk := !rebuild && len(tracked) == 0 && len(work) > 1000
	if bulk {
		if err := w.DropIndexes(ctx); err != nil {
			return err
		}
	}
	if !small && !rebuild {
		if err := w.SetMeta(ctx, "dirty", "1"); err != nil {
			return err
		}
		if w, err = w.Next(ctx); err != nil {
			return err
		}
	}

	// Phase 1: parse on all cores, write entities and documents.
	if results == nil {
		results = parseAll(ctx, opts, work)
		if small {
			// What the replaced files had is read while they parse.
			if prior, err = readPrior(ctx, w, work); err != nil {
				return err
			}
		}
	}
	var done []*result
	affected := map[string]bool{}
	inBatch := 0
	n := 0
	for r := range results {
		n++
		if opts.Progress != nil {
			opts.Progress(n, len(work))
		}
		if r.same {
			done = append(done, r)
			continue
		}
		// Only declarations that appeared or disappeared change what
		// references elsewhere resolve to: ids are stable, so an unchanged
		// declaration keeps every edge into it.
		var before map[int64]store.EntityKey
		if r.old != nil {
			p, ok := prior[r.fd.File.ID]
			if !ok {
				if p, err = readPriorRows(ctx, w, r.fd.File.ID); err != nil {
					return err
				}
			}
			before, r.stored = p.keys, p.refs
			err = w.ReplaceEntities(ctx, r.fd.File.ID, r.fd.Entities, r.fd.Docs)
		} else {
			err = w.PutEntities(ctx, r.fd.File.ID, r.fd.Entities, r.fd.Docs, false)
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", r.cand.rel, err)
		}
		if err := w.PutWhole(ctx, r.fd.File.ID, &r.fd.Whole, r.fd.File.Class.Aside()); err != nil {
			return fmt.Errorf("index %s: %w", r.cand.rel, err)
		}
		// A definition whose parent changed (a method whose type moved to
		// another file) keeps its id but not its parent's name, by which
		// qualified references resolve. A first run resolves every name.
		if !first {
			noteAffected(affected, before, r.fd.Entities)
			if r.old != nil {
				noteImportsChanged(affected, r.stored, r.fd.Refs)
			}
		}
		r.entities = len(r.fd.Entities)
		r.fd.Docs, r.fd.Entities, r.fd.Whole = nil, nil, store.Doc{}
		if spill != nil {
			if importScoped(r.cand.lang) {
				r.imports = importRefs(r.fd.Refs)
			}
			if err := spill.put(r.fd.Refs); err != nil {
				return err
			}
			r.fd.Refs = nil
		}
		done = append(done, r)
		inBatch++
		if !small && inBatch >= batchFiles {
			if w, err = w.Next(ctx); err != nil {
				return err
			}
			inBatch = 0
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Phase 2: deletions, reference resolution, file rows.
	for _, f := range deleted {
		keys, err := w.EntityKeys(ctx, f.ID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			affected[k.Name] = true
		}
		if err := w.DeleteFile(ctx, f.ID); err != nil {
			return fmt.Errorf("remove %s from index: %w", f.Path, err)
		}
		sum.Deleted++
	}
	if len(done) == 0 && len(deleted) == 0 {
		// Nothing changed: no references to resolve, no documents counted.
		return finish(ctx, w, small, bulk, rebuild, whole, dirty, dirty == "1" || rebuild)
	}
	sameFiles := len(deleted) == 0
	var added []string
	for _, r := range done {
		if _, ok := tracked[r.cand.rel]; !ok {
			sameFiles = false
			added = append(added, r.cand.rel)
		}
	}
	// files becomes the paths after this run: a copy of thousands of paths
	// cost more than a small update, and a Resident keeps them for the next.
	for _, f := range deleted {
		delete(files.paths, f.Path)
	}
	for _, r := range done {
		files.paths[r.cand.rel] = r.fd.File.ID
	}
	if !sameFiles {
		files.pathsChanged()
	}
	files.module = goModule(opts.Root)
	files.rootCrate = cargoPackage(opts.Root)
	res := newResolver(files)
	// A file this run did not parse has its scope read from the store when
	// a name imported from it is followed (decision 0111).
	res.load = func(id int64) ([]store.Ref, error) { return w.Refs(ctx, []int64{id}, nil) }
	// Spilled references get their file's scope as they are read back; the
	// scopes that other files' imports are followed through are known now.
	for _, r := range done {
		switch {
		case r.same:
		case spill == nil:
			res.addScope(r.fd.File.ID, r.cand.rel, r.cand.lang, r.fd.Refs)
		case r.imports != nil:
			res.addScope(r.fd.File.ID, r.cand.rel, r.cand.lang, r.imports)
			r.imports = nil
		}
	}

	// References of files whose imports now find another file (or none),
	// resolved again once their names' definitions are loaded.
	var rescoped []store.Ref
	if !first && !sameFiles {
		if rescoped, err = reimport(ctx, w, res, done, added, deleted); err != nil {
			return err
		}
	}
	if cold {
		err = w.EachDefinition(ctx, nil, addDef(res))
	} else {
		// Definitions are loaded only for the names that references must be
		// resolved by: new ones, and those whose definitions changed.
		names := map[string]bool{}
		for nm := range affected {
			names[nm] = true
		}
		for _, ref := range rescoped {
			names[ref.Name] = true
		}
		for _, r := range done {
			if r.same {
				continue
			}
			if sameFiles {
				r.reuseTargets(affected)
			}
			for i, ref := range r.fd.Refs {
				if ref.Kind != store.RefImports && (r.resolved == nil || !r.resolved[i]) {
					names[ref.Name] = true
				}
				// An alias resolves to the name it imports (decision 0111).
				if _, name := symbols.SplitImportQualifier(ref.Qualifier); ref.Kind == store.RefImports && name != "" {
					names[name] = true
				}
			}
		}
		if err = reexportedNames(ctx, w, names); err == nil {
			err = w.EachDefinition(ctx, keys(names), addDef(res))
		}
	}
	if err != nil {
		return err
	}
	res.sortDefs()
	if spill != nil {
		if err := spill.rewind(); err != nil {
			return err
		}
	}
	for i := range rescoped {
		r := &rescoped[i]
		if dst := res.resolve(r); dst != r.DstID {
			if err := w.SetRefTarget(ctx, r.RowID, dst); err != nil {
				return err
			}
		}
	}
	// References elsewhere to names that appeared or disappeared.
	if !first && len(affected) > 0 {
		if err := reresolve(ctx, w, st, res, keys(affected), done); err != nil {
			return err
		}
	}
	if res.loadErr != nil {
		return res.loadErr
	}
	inBatch = 0
	var refs []store.Ref // spilled references, read back file by file
	for _, r := range done {
		if !r.same {
			if spill != nil {
				if refs, err = spill.next(refs); err != nil {
					return err
				}
				r.fd.Refs = refs
				res.addScope(r.fd.File.ID, r.cand.rel, r.cand.lang, r.fd.Refs)
			}
			for i := range r.fd.Refs {
				ref := &r.fd.Refs[i]
				if ref.Kind != store.RefImports && (r.resolved == nil || !r.resolved[i]) {
					ref.DstID = res.resolve(ref)
				}
				if ref.DstID != 0 {
					sum.Resolved++
				}
			}
			if r.old != nil {
				err = w.ReplaceRefs(ctx, r.stored, r.fd.Refs)
				r.stored = nil
			} else {
				err = w.PutRefs(ctx, r.fd.Refs)
			}
			if err != nil {
				return fmt.Errorf("index %s: %w", r.cand.rel, err)
			}
			sum.Entities += r.entities
			sum.Refs += len(r.fd.Refs)
			if spill != nil {
				r.fd.Refs = nil
				delete(res.byFile, r.fd.File.ID) // no other file's references need it
			}
			if r.fd.File.Skip != "" {
				sum.Skipped[r.fd.File.Skip]++
			} else {
				sum.Parsed++
			}
		} else {
			sum.Unchanged++
		}
		if err := w.UpsertFile(ctx, &r.fd.File); err != nil {
			return err
		}
		inBatch++
		if !small && inBatch >= 4*batchFiles {
			if w, err = w.Next(ctx); err != nil {
				return err
			}
			inBatch = 0
		}
	}
	if spill != nil {
		// The definitions are garbage now (res is not used again): give
		// their memory back before SQLite builds the indexes, which sorts
		// in memory (temp_store).
		debug.FreeOSMemory()
	}
	return finish(ctx, w, small, bulk, rebuild, whole, dirty, true)
}

// priorRows is what a file about to be replaced has stored: the keys of
// its entities and its references.
type priorRows struct {
	keys map[int64]store.EntityKey
	refs []store.Ref
}

// priorSource reads a file's stored rows: a Writer inside its
// transaction, or the Store while the index lock keeps writers out.
type priorSource interface {
	EntityKeys(ctx context.Context, fileID int64) (map[int64]store.EntityKey, error)
	Refs(ctx context.Context, fileIDs []int64, names []string) ([]store.Ref, error)
}

func readPriorRows(ctx context.Context, w priorSource, fileID int64) (priorRows, error) {
	keys, err := w.EntityKeys(ctx, fileID)
	if err != nil {
		return priorRows{}, err
	}
	refs, err := w.Refs(ctx, []int64{fileID}, nil)
	return priorRows{keys, refs}, err
}

// readPrior reads the prior rows of the stored files among work, by file id.
func readPrior(ctx context.Context, w priorSource, work []job) (map[int64]priorRows, error) {
	prior := map[int64]priorRows{}
	for _, j := range work {
		if j.old == nil {
			continue
		}
		p, err := readPriorRows(ctx, w, j.old.ID)
		if err != nil {
			return nil, err
		}
		prior[j.old.ID] = p
	}
	return prior, nil
}

// noteAffected adds to affected the names of the definitions that appeared
// in or disappeared from a file, or changed parent, between before and
// after.
func noteAffected(affected map[string]bool, before map[int64]store.EntityKey, after []store.Entity) {
	now := make(map[int64]bool, len(after))
	for _, e := range after[min(1, len(after)):] {
		now[e.ID] = true
		if k, existed := before[e.ID]; !existed || k.ParentID != e.ParentID {
			affected[e.Name] = true
		}
	}
	for id, k := range before {
		if !now[id] {
			affected[k.Name] = true
		}
	}
}

// noteImportsChanged adds to affected the local names of the imports of a
// name that appeared in or disappeared from a file between before and
// after: a module's imports are also what it exports ("export { jsxDEV as
// jsx } from …"), so the files importing such a name from it may now
// resolve it elsewhere, though no definition changed. (A new file's
// importers are found by reimport: their imports found no file before.)
func noteImportsChanged(affected map[string]bool, before, after []store.Ref) {
	type named struct{ module, qualifier string }
	set := func(refs []store.Ref) map[named]string {
		out := map[named]string{} // → local name
		for _, r := range refs {
			if local, name := symbols.SplitImportQualifier(r.Qualifier); r.Kind == store.RefImports && name != "" {
				out[named{r.Name, r.Qualifier}] = local
			}
		}
		return out
	}
	was, is := set(before), set(after)
	for k, local := range was {
		if _, ok := is[k]; !ok {
			affected[local] = true
		}
	}
	for k, local := range is {
		if _, ok := was[k]; !ok {
			affected[local] = true
		}
	}
}

// finish ends a run's last transaction: a rebuild swapped in with the
// analysis version it was made with, the dirty mark cleared, secondary
// indexes rebuilt after a bulk load, the document count (when the run may
// have changed it) and the time recorded, and for a whole-tree run the mark
// that the index is complete.
func finish(ctx context.Context, w *store.Writer, small, bulk, rebuild, whole bool, dirty string, recount bool) error {
	if rebuild {
		if err := w.SwapRebuild(ctx); err != nil {
			return err
		}
		if err := w.SetMeta(ctx, "analyzer", analyzer.Version); err != nil {
			return err
		}
	}
	if !small || dirty == "1" {
		if err := w.SetMeta(ctx, "dirty", "0"); err != nil {
			return err
		}
	}
	if bulk {
		if err := w.CreateIndexes(ctx); err != nil {
			return err
		}
	}
	if !recount {
		counted, err := w.Counted(ctx)
		if err != nil {
			return err
		}
		recount = !counted
	}
	if recount {
		if err := w.Recount(ctx); err != nil {
			return err
		}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	if err := w.SetMeta(ctx, "indexed_at", now); err != nil {
		return err
	}
	if whole {
		if err := w.SetMeta(ctx, metaComplete, now); err != nil {
			return err
		}
	}
	return w.Commit()
}

// addDef returns a callback that gives res each definition read.
func addDef(res *resolver) func(*store.Def) error {
	return func(d *store.Def) error {
		res.addDef(d)
		return nil
	}
}

// reimport resolves again, in a run that added or removed files, the
// imports of the files it did not parse that found no file of the
// workspace, a removed one, or a file of a directory that gained one (a Go
// package's import names one of its files): an import is resolved against
// the files indexed with it, so one of a file that a later checkout added
// stayed unresolved, and an index updated run by run lost edges that a cold
// one has. It writes the imports whose target changed and returns the
// other references of their files, whose scope changed with them: the
// caller resolves them again once their names' definitions are loaded.
func reimport(ctx context.Context, w *store.Writer, res *resolver, done []*result, added []string, deleted []store.File) ([]store.Ref, error) {
	// A file whose content was unchanged keeps its stored references: it is
	// checked like a file this run did not touch.
	parsed := map[int64]bool{}
	for _, r := range done {
		parsed[r.fd.File.ID] = !r.same
	}
	var targets []int64
	for _, f := range deleted {
		targets = append(targets, f.ID)
	}
	dirs := map[string]bool{}
	for _, p := range added {
		if d := path.Dir(p); !dirs[d] {
			dirs[d] = true
			ps, _ := res.files.dirs(d)
			for _, q := range ps {
				targets = append(targets, res.files.paths[q])
			}
		}
	}
	slices.Sort(targets)
	stale, err := w.ImportsToCheck(ctx, targets)
	if err != nil {
		return nil, err
	}
	if len(stale) == 0 {
		return nil, nil
	}
	// Only the files one of whose imports now finds another target have
	// their references read and their scope built again.
	var ids []int64
	for _, r := range stale {
		if p := res.files.pathOf(r.FileID); !parsed[r.FileID] && p != "" {
			if target := res.files.resolveImport(langOf(p), p, r.Name); res.files.paths[target] != r.DstID {
				ids = append(ids, r.FileID)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	ids = uniq(ids)
	refs, err := w.Refs(ctx, ids, nil)
	if err != nil {
		return nil, err
	}
	byFile := map[int64][]store.Ref{}
	for _, r := range refs {
		byFile[r.FileID] = append(byFile[r.FileID], r)
	}
	var out []store.Ref
	for _, id := range ids {
		p := res.files.pathOf(id)
		lang := langOf(p)
		var imports, others []store.Ref
		for _, r := range byFile[id] {
			if r.Kind == store.RefImports {
				imports = append(imports, r)
			} else {
				others = append(others, r)
			}
		}
		before := make([]int64, len(imports))
		for i, r := range imports {
			before[i] = r.DstID
		}
		res.addScope(id, p, lang, imports) // sets each import's target
		changed := false
		for i, r := range imports {
			if r.DstID != before[i] {
				changed = true
				if err := w.SetRefTarget(ctx, r.RowID, r.DstID); err != nil {
					return nil, err
				}
			}
		}
		if changed {
			out = append(out, others...)
		}
	}
	return out, nil
}

// langOf is the name of the language of the file at p, "" for none.
func langOf(p string) string {
	if l, ok := symbols.LanguageFor(p); ok {
		return l.Name
	}
	return ""
}

// reresolve recomputes targets of stored references (in files not being
// re-indexed) whose names were added or removed by this run.
func reresolve(ctx context.Context, w *store.Writer, st *store.Store, res *resolver, names []string, done []*result) error {
	skip := map[int64]bool{}
	for _, r := range done {
		skip[r.fd.File.ID] = !r.same // an unchanged file kept its references
	}
	aliases, err := aliasNames(ctx, w, names)
	if err != nil {
		return err
	}
	refs, err := w.Refs(ctx, nil, append(slices.Clone(names), aliases...))
	if err != nil {
		return err
	}
	var need []int64
	for _, r := range refs {
		if !skip[r.FileID] && res.byFile[r.FileID] == nil {
			need = append(need, r.FileID)
			res.byFile[r.FileID] = nil
		}
	}
	if len(need) > 0 {
		need = uniq(need)
		imports, err := w.Refs(ctx, need, nil)
		if err != nil {
			return err
		}
		byFile := map[int64][]store.Ref{}
		for _, r := range imports {
			if r.Kind == store.RefImports {
				byFile[r.FileID] = append(byFile[r.FileID], r)
			}
		}
		for _, id := range need {
			p := res.files.pathOf(id)
			res.addScope(id, p, langOf(p), byFile[id])
		}
	}
	for i := range refs {
		r := &refs[i]
		if skip[r.FileID] || r.Kind == store.RefImports {
			continue
		}
		if dst := res.resolve(r); dst != r.DstID {
			if err := w.SetRefTarget(ctx, r.RowID, dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// reexportedNames adds to names the names they are imported as in the
// modules that re-export them: a reference to jsx imported from a module
// that has "export { jsxDEV as jsx } from './dev'" resolves to jsxDEV, whose
// definitions an incremental run must load as a cold run loads them all.
func reexportedNames(ctx context.Context, w *store.Writer, names map[string]bool) error {
	_, err := importClosure(ctx, names, keys(names), w.ImportsAs, func(_, name string) string { return name })
	return err
}

// aliasNames returns the other names under which names are imported
// ("import { toSSG as baseToSSG }", "from m import a as b", a re-export
// "export { jsxDEV as jsx }"), and the names those are imported under in
// turn. References through an alias carry the local name, which no changed
// file defines: without them reresolve missed them, and a cold index and an
// updated one bound them differently.
func aliasNames(ctx context.Context, w *store.Writer, names []string) ([]string, error) {
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	return importClosure(ctx, seen, names, w.ImportsOfNames, func(local, _ string) string { return local })
}

// importClosure follows named imports from names as deep as the resolver
// follows re-exports: next reads the imports one step away, far picks the
// name at their other end from an import's local and imported names. Each
// name reached is added to seen and returned, in the order reached.
func importClosure(ctx context.Context, seen map[string]bool, names []string,
	next func(context.Context, []string) ([]store.Ref, error), far func(local, name string) string) ([]string, error) {
	var out []string
	frontier := names
	for range maxReexports + 1 {
		if len(frontier) == 0 {
			break
		}
		imports, err := next(ctx, frontier)
		if err != nil {
			return nil, err
		}
		frontier = nil
		for _, im := range imports {
			if n := far(symbols.SplitImportQualifier(im.Qualifier)); n != "" && !seen[n] {
				seen[n] = true
				frontier = append(frontier, n)
			}
		}
		slices.Sort(frontier)
		out = append(out, frontier...)
	}
	return out, nil
}

// parseAll processes jobs on all cores and streams the results.
func parseAll(ctx context.Context, opts Options, work []job) <-chan *result {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	// Results made while the walk ran go out first; the rest is parsed.
	var parsed []*result
	rest := make([]job, 0, len(work))
	for _, j := range work {
		if j.parsed != nil {
			parsed = append(parsed, j.parsed)
		} else {
			rest = append(rest, j)
		}
	}
	// A worker builds an analyzer and parsers: none without work for them.
	workers = min(workers, len(rest))
	jobs := make(chan job)
	out := make(chan *result, 2*workers+len(parsed))
	for _, r := range parsed {
		out <- r
	}
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w *worker
			if i == 0 {
				var giveBack func()
				if w, giveBack = opts.Resident.takeWorker(); w != nil {
					defer giveBack()
				}
			}
			if w == nil {
				w = newWorker(workers < runtime.NumCPU())
				defer w.close()
			}
			for j := range jobs {
				out <- process(ctx, opts, w, j)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, j := range rest {
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// process reads, screens, parses and converts one file.
func process(ctx context.Context, opts Options, w *worker, j job) *result {
	b := w.b
	r := &result{job: j}
	c := j.cand
	f := &r.fd.File
	*f = store.File{ID: FileID(c.rel), Path: c.rel, Lang: c.lang, Class: workspace.ClassOf(c.rel), Size: c.size, MTime: c.mtime, IndexedAt: time.Now().Unix()}
	if c.link != "" {
		f.Skip = c.link
		f.Hash = "symlink"
		return r
	}
	if c.size > opts.Config.Index.MaxFileSize {
		f.Skip = SkipTooLarge
		f.Hash = fmt.Sprintf("size:%d", c.size)
		return r
	}
	src := j.content
	if src == nil {
		var err error
		src, err = wspath.ReadFile(opts.Root, c.path(opts.Root))
		switch {
		case errors.Is(err, wspath.ErrOutside):
			// A directory on its path became a link after the walk.
			f.Skip = SkipLinkOutside
			f.Hash = "symlink"
			return r
		case err != nil:
			f.Skip = SkipUnreadable
			f.Hash = "unreadable"
			return r
		}
	}
	sum := sha256.Sum256(src)
	f.Hash = hex.EncodeToString(sum[:16])
	if j.old != nil && j.old.Hash == f.Hash && j.old.Skip == "" && j.content == nil {
		// Touched but not changed: keep what is stored, refresh the stat.
		f.Skip, f.Note, f.Pkg = j.old.Skip, j.old.Note, j.old.Pkg
		r.same = true
		return r
	}
	text, skip, note := screen(c.rel, src)
	if skip != "" {
		f.Skip = skip
		if skip == SkipGenerated {
			f.Class |= workspace.Generated
		}
		return r
	}
	if bundledLibrary(c.rel, text) {
		f.Class |= workspace.ThirdParty
	}
	var whole string
	wholeDone := make(chan struct{})
	if b.spare != nil {
		go func() {
			defer close(wholeDone)
			whole = b.spare.wholeBody(text)
		}()
	} else {
		close(wholeDone)
	}
	sf, err := w.extract(ctx, c.rel, text)
	<-wholeDone
	if err != nil {
		f.Skip = "parse failed"
		f.Note = err.Error()
		return r
	}
	if sf.HasErrors {
		note = strings.TrimPrefix(note+"; "+NoteSyntaxErrors, "; ")
	}
	f.Note = note
	f.Pkg = sf.Package
	if b.spare == nil {
		whole = b.wholeBody(text)
	}
	b.build(c.rel, text, sf, whole, &r.fd)
	// Keep no reference into the source buffer past this point.
	for i := range r.fd.Refs {
		ref := &r.fd.Refs[i]
		ref.Name = strings.Clone(ref.Name)
		ref.Qualifier = strings.Clone(ref.Qualifier)
	}
	return r
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func uniq(ids []int64) []int64 {
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	out := ids[:0]
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			out = append(out, id)
		}
	}
	return out
}

// updateHistory brings the git history in line with head (package
// history). The history is an extra signal: a failure is logged, never
// the run's.
func updateHistory(ctx context.Context, st *store.Store, opts Options, head string) {
	sum, err := history.Update(ctx, st, opts.Root, head)
	if opts.Log == nil {
		return
	}
	switch {
	case err != nil:
		opts.Log.Warn("git history not updated", zap.Error(err))
	case !sum.Skipped:
		opts.Log.Info("git history", zap.Int("added", sum.Added), zap.Int("removed", sum.Removed), zap.String("note", sum.Note))
	}
}
