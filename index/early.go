package index

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ctxls/ctxls/store"
)

// earlyFiles bounds how many changed files a re-index parses while its walk
// is still running. An edit or two is the common case; a checkout that
// changes thousands of files is parsed on all cores after the walk.
const earlyFiles = 8

// earlyParse parses the first changed files of a re-index while the walk
// looks for the others. After one edit, the walk (system calls) and the
// parse of the edited file (CPU) are most of a run; one after the other
// they leave a core idle.
//
// The walk meets a changed file wherever it is in name order, often near
// the end. Edits cluster, though: the file changed now is most often one
// changed shortly before. So the tracked files with the newest stored
// mtimes are looked at first, before the walk reaches them.
type earlyParse struct {
	ctx     context.Context
	st      *store.Store
	opts    Options
	recent  []store.FileStat
	offered int // walk side
	jobs    chan earlyJob
	stop    chan struct{}
	done    chan struct{}
	// out holds every result: at most earlyFiles recent files and
	// earlyFiles offered ones.
	out chan *result
}

type earlyJob struct {
	cand    candidate
	tracked bool // the index has a row for it, read when the job is taken
}

// startEarly starts parsing the changed files among the most recently
// modified of stats, then those the walk offers.
func startEarly(ctx context.Context, st *store.Store, opts Options, stats []store.FileStat) *earlyParse {
	e := &earlyParse{
		ctx:    ctx,
		st:     st,
		opts:   opts,
		recent: newest(stats, earlyFiles),
		jobs:   make(chan earlyJob, earlyFiles),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		out:    make(chan *result, 2*earlyFiles),
	}
	go e.run()
	return e
}

// newest returns the n files of stats with the newest mtimes, newest first.
func newest(stats []store.FileStat, n int) []store.FileStat {
	top := make([]store.FileStat, 0, n+1)
	for _, f := range stats {
		if len(top) == n && f.MTime <= top[n-1].MTime {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return top[i].MTime < f.MTime })
		top = slices.Insert(top, i, f)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}

// offer hands a changed file to the parsing goroutine, unless enough have
// been offered; tracked says whether the index has a row for it. It never
// blocks the walk.
func (e *earlyParse) offer(c candidate, tracked bool) {
	if e.offered >= earlyFiles {
		return
	}
	e.offered++
	e.jobs <- earlyJob{c, tracked} // never blocks: the channel holds earlyFiles
}

// finish stops the parsing goroutine after the file it is on and returns
// the results by path.
func (e *earlyParse) finish() map[string]*result {
	close(e.stop)
	<-e.done
	close(e.out)
	results := map[string]*result{}
	for r := range e.out {
		results[r.cand.rel] = r
	}
	return results
}

func (e *earlyParse) run() {
	defer close(e.done)
	var w *worker
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	parsed := map[string]bool{}
	parse := func(j job) {
		if w == nil {
			w = newWorker(false)
		}
		parsed[j.cand.rel] = true
		e.out <- process(e.ctx, e.opts, w, j)
	}
	stopped := func() bool {
		select {
		case <-e.stop:
			return true
		default:
			return false
		}
	}
	for _, f := range e.recent {
		if stopped() {
			return
		}
		lang := languageOf(path.Base(f.Path))
		if lang == "" {
			continue
		}
		// Lstat: a link (which the walk records and never reads) is not
		// regular, and a link to a file outside is not read here either.
		fi, err := os.Lstat(filepath.Join(e.opts.Root, filepath.FromSlash(f.Path)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == f.Size && fi.ModTime().UnixNano() == f.MTime {
			continue // gone, a link or unchanged: the walk decides
		}
		if old := e.stored(f.Path); old != nil {
			parse(job{cand: candidate{rel: f.Path, lang: lang, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, old: old})
		}
	}
	for {
		// Once the walk is over, files not yet started go to the parse on
		// all cores instead.
		if stopped() {
			return
		}
		var ej earlyJob
		select {
		case <-e.stop:
			return
		case ej = <-e.jobs:
		}
		if parsed[ej.cand.rel] {
			continue // one of the recent files
		}
		j := job{cand: ej.cand}
		if ej.tracked {
			if j.old = e.stored(j.cand.rel); j.old == nil {
				continue
			}
		}
		parse(j)
	}
}

// stored returns a file's row, or nil if it has none or it cannot be read
// (the run reads it again and reports the error).
func (e *earlyParse) stored(rel string) *store.File {
	olds, err := e.st.FilesByPath(e.ctx, []string{rel})
	if err != nil {
		return nil
	}
	if old, ok := olds[rel]; ok {
		return &old
	}
	return nil
}

// useEarly gives each job its early result, if there is one made of what
// the walk saw: the same stat, against the same stored row. A file that
// changed again after the early parse read it is parsed again; the stored
// row is the same in practice (the run holds the index lock), but a result
// made against another would be written wrongly.
func useEarly(work []job, parsed map[string]*result) {
	for i := range work {
		j := &work[i]
		r := parsed[j.cand.rel]
		if r == nil || r.cand.size != j.cand.size || r.cand.mtime != j.cand.mtime {
			continue
		}
		if (r.old == nil) != (j.old == nil) || r.old != nil && (r.old.ID != j.old.ID || r.old.Hash != j.old.Hash || r.old.Skip != j.old.Skip) {
			continue
		}
		j.parsed = r
	}
}
