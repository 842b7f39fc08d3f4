package retrieval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/store"
)

// FileState says whether a file on disk still matches what the index holds
// of it (decision 0092).
type FileState int

const (
	// Fresh: the file's size, mtime and content are what was indexed.
	Fresh FileState = iota
	// Changed: the file differs from what was indexed, or is not indexed.
	Changed
	// Deleted: the file is gone.
	Deleted
	// Unreadable: the file cannot be read (permissions, a link that now
	// leads outside the workspace); what the index says of it is not shown.
	Unreadable
)

func (s FileState) String() string {
	switch s {
	case Fresh:
		return "fresh"
	case Changed:
		return "changed"
	case Deleted:
		return "deleted"
	}
	return "unreadable"
}

// Refresher brings files that Assemble found changed on disk back into the
// index before they are rendered. Package index implements it (index.Fresh);
// a caller that cannot write the index passes none, and the entities of
// changed files are then left out.
type Refresher interface {
	// Refresh re-indexes the files (root-relative, slash-separated); files
	// deleted on disk are removed from the index.
	Refresh(ctx context.Context, paths []string) error
	// Behind is told how many of the files about to be rendered were found
	// changed: when the workspace changed at large (a checkout, a pull, a
	// formatter run) it may start a whole index run in the background.
	Behind(ctx context.Context, stale int)
}

// minRefreshTime is the time left before the caller's deadline below which
// Assemble does not re-index changed files: a re-index of a few files, the
// query again and the assembly take tens of milliseconds, and the answer
// must not miss the deadline for them.
const minRefreshTime = 250 * time.Millisecond

// maxExcerptFile is the largest file excerpts are taken from.
const maxExcerptFile = 4 << 20

// srcFile is one file as read for rendering.
type srcFile struct {
	lines [][]byte
	state FileState
}

// sourceCache reads each file to be rendered once per assembly and checks it
// against the index's stored size, mtime and content hash.
type sourceCache struct {
	root string
	// stored holds the indexed rows of the paths the assembly may render,
	// read with one query; nil when nothing is verified (no root).
	stored map[string]store.File
	files  map[string]*srcFile
	// overlay, when set, answers for the files open in the editor.
	overlay Overlay
}

func newSourceCache(root string, overlay Overlay) *sourceCache {
	return &sourceCache{root: root, files: map[string]*srcFile{}, overlay: overlay}
}

// open reports whether rel is open in the editor's overlay.
func (s *sourceCache) open(rel string) bool {
	if s.overlay == nil {
		return false
	}
	_, ok := s.overlay.Open(rel)
	return ok
}

// load reads the stored rows of paths, one query for all of them.
func (s *sourceCache) load(ctx context.Context, st *store.Store, paths []string) error {
	stored, err := st.FilesByPath(ctx, paths)
	if err != nil {
		return err
	}
	s.stored = stored
	return nil
}

// file returns rel read from disk and its state. Without a root nothing is
// read and everything counts as fresh: there is no disk to compare with.
func (s *sourceCache) file(rel string) *srcFile {
	if f, ok := s.files[rel]; ok {
		return f
	}
	f := &srcFile{}
	if s.root != "" {
		f.state, f.lines = s.read(rel)
	}
	s.files[rel] = f
	return f
}

// read reads rel through the workspace boundary and compares it with its
// stored row. Size and mtime come from the open file's own stat, so that
// what is compared is what is read.
func (s *sourceCache) read(rel string) (FileState, [][]byte) {
	if s.overlay != nil {
		if text, ok := s.overlay.Open(rel); ok {
			return s.readBuffer(rel, text)
		}
	}
	// Through the boundary: an excerpt is never of a file outside the
	// workspace, whatever the index says is at rel.
	fh, err := wspath.Open(s.root, filepath.FromSlash(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return Deleted, nil
	}
	if err != nil {
		return Unreadable, nil
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return Unreadable, nil
	}
	if s.stored == nil {
		return Fresh, readLines(fh, info.Size())
	}
	f, ok := s.stored[rel]
	if !ok || info.Size() != f.Size || info.ModTime().UnixNano() != f.MTime {
		return Changed, nil
	}
	if f.Skip != "" {
		// Not parsed (too large, generated, ...): there is no content hash
		// to compare, and nothing of its text to show.
		return Fresh, nil
	}
	data, err := io.ReadAll(io.LimitReader(fh, info.Size()+1))
	if err != nil {
		return Unreadable, nil
	}
	// The index's content hash: an edit that kept the size and the mtime
	// (a tool that restores mtimes, a coarse clock) is still a change.
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:16]) != f.Hash {
		return Changed, nil
	}
	if len(data) > maxExcerptFile {
		return Fresh, nil
	}
	return Fresh, bytes.Split(data, []byte("\n"))
}

// readBuffer compares an open buffer with the stored row of rel: the
// buffer is current, so the index is fresh exactly when it holds the
// buffer's content (the index queue catches up a moment after each edit).
func (s *sourceCache) readBuffer(rel string, text []byte) (FileState, [][]byte) {
	if s.stored != nil {
		f, ok := s.stored[rel]
		if !ok {
			return Changed, nil
		}
		if f.Skip != "" {
			return Fresh, nil
		}
		sum := sha256.Sum256(text)
		if hex.EncodeToString(sum[:16]) != f.Hash {
			return Changed, nil
		}
	}
	if len(text) > maxExcerptFile {
		return Fresh, nil
	}
	return Fresh, bytes.Split(text, []byte("\n"))
}

// readLines reads an unverified file's lines for excerpts.
func readLines(r io.Reader, size int64) [][]byte {
	if size > maxExcerptFile {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(r, maxExcerptFile+1))
	if err != nil || len(data) > maxExcerptFile {
		return nil
	}
	return bytes.Split(data, []byte("\n"))
}

// Verify reports the state of each of paths (root-relative, slash-separated)
// against the index: one query for all of them and one open of each file.
func Verify(ctx context.Context, st *store.Store, root string, paths []string) (map[string]FileState, error) {
	src := newSourceCache(root, nil)
	if err := src.load(ctx, st, paths); err != nil {
		return nil, err
	}
	out := make(map[string]FileState, len(paths))
	for _, p := range paths {
		out[p] = src.file(p).state
	}
	return out, nil
}

// freshen makes resp render only what is current. It checks the files of
// the results Assemble may render (the first maxFiles distinct ones; any
// further file is checked when reached), re-indexes the changed ones and
// queries again when opts.Refresh allows and the deadline leaves time, and
// removes from resp the results of files still not current. It returns the
// cache of the checked files and the files left out.
func freshen(ctx context.Context, st *store.Store, req Request, resp *Response, opts ContextOptions, maxFiles int) (*sourceCache, []string, error) {
	src := newSourceCache(opts.Root, opts.Overlay)
	if opts.Root == "" {
		return src, nil, nil
	}
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	check := func() ([]string, error) {
		if err := src.load(ctx, st, resultPaths(resp.Results, 0)); err != nil {
			return nil, err
		}
		var stale []string
		for _, p := range resultPaths(resp.Results, maxFiles) {
			if src.file(p).state != Fresh {
				stale = append(stale, p)
			}
		}
		return stale, nil
	}
	requery := func() ([]string, error) {
		again, err := Query(ctx, st, req)
		if err != nil {
			return nil, err
		}
		*resp = *again
		src = newSourceCache(opts.Root, opts.Overlay)
		return check()
	}
	stale, err := check()
	if err == nil && st.Generation(ctx) != resp.generation {
		// The index was re-indexed between the query and the check: by
		// this process (the daemon's follow loop shares its connection)
		// or by another (a background index run after a checkout). The
		// rows just checked may be newer than the results, whose lines
		// would then be rendered from the wrong place. Ask again.
		stale, err = requery()
	}
	if err != nil {
		return nil, nil, err
	}
	// An open buffer the index does not hold yet is not re-indexed from
	// the disk: the editor's queue brings the buffer in.
	onDisk := slices.DeleteFunc(slices.Clone(stale), src.open)
	found := len(onDisk)
	if len(onDisk) > 0 && opts.Refresh != nil && timeLeft(ctx) >= minRefreshTime {
		if err := opts.Refresh.Refresh(ctx, onDisk); err != nil {
			log.Info("changed files not re-indexed before rendering", zap.Strings("files", stale), zap.Error(err))
		} else if stale, err = requery(); err != nil {
			return nil, nil, err
		}
	}
	if opts.Refresh != nil {
		opts.Refresh.Behind(ctx, found)
	}
	if len(stale) > 0 {
		states := make([]string, len(stale))
		for i, p := range stale {
			states[i] = src.file(p).state.String()
		}
		log.Info("entities of files that changed on disk left out of the context",
			zap.Strings("files", stale), zap.Strings("states", states))
		resp.Results = dropStale(resp.Results, src)
	}
	return src, stale, nil
}

// resultPaths returns the distinct files of results in rank order, at most
// n of them (0: all).
func resultPaths(results []Result, n int) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range results {
		if p := r.Entity.Path; !seen[p] {
			if n > 0 && len(out) == n {
				break
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// dropStale returns results without those of files src found not fresh.
func dropStale(results []Result, src *sourceCache) []Result {
	out := results[:0:0]
	for _, r := range results {
		if f, ok := src.files[r.Entity.Path]; ok && f.state != Fresh {
			continue
		}
		out = append(out, r)
	}
	return out
}

// timeLeft is the time until ctx's deadline; an hour without one.
func timeLeft(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d)
	}
	return time.Hour
}
