package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
)

// ErrNoIndex means the store was opened without the workspace's full-text
// index (Options.Index), which Search and Attached need.
var ErrNoIndex = errors.New("memory: no full-text index attached")

// SyncStats says what Sync changed.
type SyncStats struct {
	Files   int // memory files seen
	Indexed int // files (re-)analyzed
	Removed int // rows of files that are gone
}

// Sync brings the full-text index in step with the memory files of every
// enabled scope. Files whose size and modification time are unchanged are
// not read, so a sync with nothing to do costs one directory walk per
// scope; hooks call it before every search, which is how edits made by
// hand or by the TypeScript plugin are seen.
func (s *Store) Sync(ctx context.Context) (SyncStats, error) {
	if s.index == nil {
		return SyncStats{}, ErrNoIndex
	}
	return s.sync(ctx, s.Dirs())
}

// reindex syncs one scope after a change, when an index is attached.
func (s *Store) reindex(ctx context.Context, scope Scope) error {
	if s.index == nil {
		return nil
	}
	dir, err := s.Dir(scope)
	if err != nil {
		return err
	}
	_, err = s.sync(ctx, map[Scope]string{scope: dir})
	return err
}

type fileStat struct {
	scope       Scope
	size, mtime int64
}

func docID(path string) int64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	return int64(h.Sum64() & math.MaxInt64)
}

func (s *Store) sync(ctx context.Context, dirs map[Scope]string) (SyncStats, error) {
	return s.syncParsed(ctx, dirs, nil, nil, syncBatch)
}

// syncParsed is sync with the files of dirs already listed (cur; nil walks
// the directories) and some already parsed (by path), writing batch files
// per transaction.
func (s *Store) syncParsed(ctx context.Context, dirs map[Scope]string, cur map[string]fileStat, parsed map[string]*Memory, batch int) (SyncStats, error) {
	var stats SyncStats
	// Terms of another analyzer would not meet a query's: analyze every
	// memory again, of every scope.
	forgot, err := s.index.ForgetMemoriesAnalyzedBefore(ctx, analyzer.Version)
	if err != nil {
		return stats, err
	}
	if all := s.Dirs(); forgot && len(dirs) < len(all) {
		dirs, cur = all, nil
	}
	if cur == nil {
		cur = map[string]fileStat{}
		for sc, dir := range dirs {
			err := walkStats(dir, sc, func(p string, size, mtime int64) { cur[p] = fileStat{sc, size, mtime} })
			if err != nil {
				return stats, err
			}
		}
	}
	stats.Files = len(cur)
	scopes := make([]string, 0, len(dirs))
	for sc := range dirs {
		scopes = append(scopes, string(sc))
	}
	stored, err := s.index.MemoryStats(ctx, scopes)
	if err != nil {
		return stats, err
	}
	var gone []int64
	known := map[string]bool{}
	for _, m := range stored {
		st, ok := cur[m.Path]
		if ok && st.size == m.Size && st.mtime == m.MTime {
			known[m.Path] = true
			continue
		}
		gone = append(gone, m.ID)
		if !ok {
			stats.Removed++
		}
	}
	var changed []string
	for p := range cur {
		if !known[p] {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return stats, nil
	}
	sort.Strings(changed)
	// Batches commit on their own, so that a sync cut short by a hook's
	// deadline keeps its progress and the next call carries on.
	batch = max(batch, 1)
	for start := 0; start == 0 || start < len(changed); start += batch {
		files := changed[start:min(start+batch, len(changed))]
		n, err := s.syncBatch(ctx, cur, dirs, gone, files, parsed)
		stats.Indexed += n
		if err != nil {
			return stats, err
		}
		gone = nil
	}
	n, err := s.index.CountMemories(ctx)
	if err != nil {
		return stats, err
	}
	return stats, s.index.SetMeta(ctx, "memory_docs", strconv.Itoa(n))
}

// syncBatch is the number of memory files parsed and written per
// transaction.
const syncBatch = 500

func (s *Store) syncBatch(ctx context.Context, cur map[string]fileStat, dirs map[Scope]string, gone []int64, changed []string, parsed map[string]*Memory) (int, error) {
	// Parse by scope, so that each memory records the scope it is in.
	mems := make([]*Memory, len(changed))
	errs := make([]error, len(changed))
	for sc := range dirs {
		var idx []int
		var files []string
		for i, p := range changed {
			if m, ok := parsed[p]; ok {
				mems[i] = m
				continue
			}
			if cur[p].scope == sc {
				idx, files = append(idx, i), append(files, p)
			}
		}
		ms, es, _ := parseFiles(ctx, files, sc, s.now())
		for j, i := range idx {
			mems[i], errs[i] = ms[j], es[j]
		}
	}
	rows := make([]store.MemoryRow, len(changed))
	parallel(ctx, len(changed), func() func(int) {
		ra := newRowAnalyzer() // one per worker: its caches are not safe for concurrent use
		return func(i int) { rows[i] = ra.row(changed[i], cur[changed[i]], mems[i], errs[i]) }
	})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// In rowid order: FTS5 flushes its pending terms to a new segment
	// whenever a rowid is not above the last one written in the
	// transaction, so rows in hash order would write a segment (and merge
	// it) every other row; a B-tree also appends faster than it inserts.
	slices.SortFunc(rows, func(a, b store.MemoryRow) int { return cmp.Compare(a.ID, b.ID) })
	slices.Sort(gone)

	docs := 0
	for _, r := range rows {
		if r.Skip == "" {
			docs++
		}
	}
	if err := s.index.WriteMemories(ctx, gone, rows); err != nil {
		return 0, err
	}
	return docs, nil
}

// rowAnalyzer turns memories into rows, reusing its analyzer's word cache
// and its set of seen terms from one memory to the next.
type rowAnalyzer struct {
	an   *analyzer.Analyzer
	seen map[string]struct{}
}

func newRowAnalyzer() *rowAnalyzer {
	return &rowAnalyzer{an: analyzer.New(), seen: make(map[string]struct{}, 256)}
}

// row analyzes one file's memory (or records why it is not one).
func (ra *rowAnalyzer) row(path string, st fileStat, m *Memory, err error) store.MemoryRow {
	an := ra.an
	r := store.MemoryRow{ID: docID(path), Path: path, Size: st.size, MTime: st.mtime, Scope: string(st.scope)}
	if err != nil {
		r.Skip = reason(err, path)
		return r
	}
	ft := FieldTerms(an, m)
	title, tags, files, body := ft[FieldTitle], ft[FieldTags], ft[FieldFiles], ft[FieldBody]
	r.Scope, r.Slug, r.Type, r.Title = string(m.Scope), m.Slug, string(m.Type), m.Title
	r.Tags, r.Severity, r.Files = strings.Join(m.Tags, " "), m.Severity, strings.Join(m.Files, "\n")
	r.Created, r.Updated = m.Created.UnixMilli(), m.Updated.UnixMilli()
	r.Terms = ra.distinct(title, tags, files, body)
	r.FTSTitle, r.FTSTags = strings.Join(title, " "), strings.Join(tags, " ")
	r.FTSFiles, r.FTSBody = strings.Join(files, " "), strings.Join(body, " ")
	return r
}

// distinct is strings.Join(distinctTerms(lists...), " ") without a map
// and a slice per memory.
func (ra *rowAnalyzer) distinct(lists ...[]string) string {
	clear(ra.seen)
	n := 0
	for _, l := range lists {
		for _, t := range l {
			n += len(t) + 1
		}
	}
	var b strings.Builder
	b.Grow(n)
	first := true
	for _, l := range lists {
		for _, t := range l {
			if _, ok := ra.seen[t]; ok {
				continue
			}
			ra.seen[t] = struct{}{}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(t)
		}
	}
	return b.String()
}

func distinctTerms(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, t := range l {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// walkStats calls fn with the size and modification time of every memory
// file of a scope.
func walkStats(dir string, scope Scope, fn func(path string, size, mtime int64)) error {
	return walkMemories(dir, scope, func(p string, d fs.DirEntry) {
		if info, err := d.Info(); err == nil { // else removed while walking
			fn(p, info.Size(), info.ModTime().UnixNano())
		}
	})
}

// Query is a memory search.
type Query struct {
	Text string
	// Scopes, Types and Tags restrict the results (empty: any).
	Scopes []Scope
	Types  []Type
	Tags   []string
	// Limit is the most results; 0 means 20.
	Limit int
}

// Hit is a search result.
type Hit struct {
	Summary
	// Score is the BM25F score (higher is better; comparable within one
	// query only).
	Score float64 `json:"score"`
	// Relevance in [0,1] is the share of the query's information (terms
	// weighted by IDF over the memories) that the memory contains; 1 for
	// a memory attached to the exact path asked about.
	Relevance float64 `json:"relevance"`
}

// pruneCommonAbove is the store size from which very common query terms
// are left out of matching.
const pruneCommonAbove = 1000

// BM25F weights of title, tags, files, body.
const bm25Weights = "8.0, 4.0, 4.0, 1.0"

// summaryOf converts a stored memory summary, and returns its distinct
// analysed terms.
func summaryOf(m store.MemorySummary) (Summary, []string) {
	sm := Summary{Scope: Scope(m.Scope), Slug: m.Slug, Type: Type(m.Type), Title: m.Title, Severity: m.Severity, Path: m.Path}
	sm.Tags = strings.Fields(m.Tags)
	if m.Files != "" {
		sm.Files = strings.Split(m.Files, "\n")
	}
	sm.Created, sm.Updated = time.UnixMilli(m.Created).UTC(), time.UnixMilli(m.Updated).UTC()
	return sm, strings.Fields(m.Terms)
}

// Search ranks the memories for a text with the full-text index, best
// first. Call Sync first to see changes made outside this store.
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	if s.index == nil {
		return nil, ErrNoIndex
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	terms := distinctTerms(analyzer.Terms(q.Text))
	if len(terms) == 0 {
		return nil, nil
	}
	idf, df, n, err := s.idf(ctx, terms)
	if err != nil {
		return nil, err
	}
	// In a large store, terms in more than half the memories barely move
	// BM25 but make it score most of the store: they count for relevance,
	// not for matching (unless nothing else is left).
	matchTerms := terms
	if n >= pruneCommonAbove {
		matchTerms = slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return df[t] > 0.5 })
	}
	if len(matchTerms) == 0 {
		matchTerms = terms
	}
	var match strings.Builder
	for i, t := range matchTerms {
		if i > 0 {
			match.WriteString(" OR ")
		}
		match.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
	}
	f := filterOf(q)
	// Filters apply after ranking; fetch more candidates when filtering.
	fetch := q.Limit
	if !f.Empty() {
		fetch = max(q.Limit*10, 200)
	}
	found, err := s.index.SearchMemories(ctx, store.MemoryQuery{Match: match.String(), Weights: BM25Weights(), Filter: f, Fetch: fetch, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(found))
	docTerms := make([][]string, 0, len(found))
	for _, m := range found {
		sm, dt := summaryOf(m)
		hits = append(hits, Hit{Summary: sm, Score: m.Score})
		docTerms = append(docTerms, dt)
	}
	for i := range hits {
		hits[i].Relevance = coverage(terms, docTerms[i], idf)
	}
	return hits, nil
}

// filterOf is q's restrictions as the store takes them.
func filterOf(q Query) store.MemoryFilter {
	var f store.MemoryFilter
	for _, s := range q.Scopes {
		f.Scopes = append(f.Scopes, string(s))
	}
	for _, t := range q.Types {
		f.Types = append(f.Types, string(t))
	}
	f.Tags = q.Tags
	return f
}

// idf returns each term's inverse document frequency over the memories
// (BM25's form, always positive; a term no memory has weighs most) and the
// share of memories that contain it.
func (s *Store) idf(ctx context.Context, terms []string) (idf, share map[string]float64, n float64, err error) {
	if n, err = s.docCount(ctx); err != nil {
		return nil, nil, 0, err
	}
	dfs, err := s.index.MemoryDocFreqs(ctx, terms)
	if err != nil {
		return nil, nil, 0, err
	}
	idf = make(map[string]float64, len(terms))
	share = make(map[string]float64, len(terms))
	for _, t := range terms {
		df := dfs[t]
		idf[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
		if n > 0 {
			share[t] = df / n
		}
	}
	return idf, share, n, nil
}

// docCount is the number of indexed memories, kept in the meta table by
// sync (counting rows costs milliseconds on a large store).
func (s *Store) docCount(ctx context.Context) (float64, error) {
	if v, err := s.index.Meta(ctx, "memory_docs"); err == nil && v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n, nil
		}
	}
	n, err := s.index.CountMemories(ctx)
	return float64(n), err
}

// coverage is the IDF-weighted share of query terms found in a document.
func coverage(query, doc []string, idf map[string]float64) float64 {
	var have, total float64
	for _, t := range query {
		total += idf[t]
		if slices.Contains(doc, t) {
			have += idf[t]
		}
	}
	if total == 0 {
		return 0
	}
	return have / total
}

// Attached returns the memories attached to a workspace path (relative to
// the root, slash-separated) by their files frontmatter: relevance 1 for
// the exact path, 0.9 for a glob that matches it.
func (s *Store) Attached(ctx context.Context, path string) ([]Hit, error) {
	if s.index == nil {
		return nil, ErrNoIndex
	}
	path = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(path)), "./")
	attached, err := s.index.AttachedMemories(ctx)
	if err != nil {
		return nil, err
	}
	var out []Hit
	for _, m := range attached {
		sm, _ := summaryOf(m)
		best := 0.0
		for _, f := range sm.Files {
			f = strings.TrimPrefix(f, "./")
			switch {
			case f == path || strings.HasSuffix(f, "/") && strings.HasPrefix(path, f):
				best = 1
			case best < 0.9:
				if ok, _ := doublestar.Match(f, path); ok {
					best = 0.9
				}
			}
		}
		if best > 0 {
			out = append(out, Hit{Summary: sm, Relevance: best})
		}
	}
	return out, nil
}

// SyncAge is the maxAge every long-lived or per-call reader (hooks, the
// language server's hover, the MCP server) passes to SyncIfChanged: an edit
// made in place to a memory file is seen within this time.
const SyncAge = 30 * time.Second

// SyncIfChanged is Sync for the hooks' critical path: it skips the walk
// over every file's size and time when no directory holding memories
// changed (a memory written, renamed or deleted changes its directory, and
// ctxls and most editors write by rename) and the last full sync is younger
// than maxAge, so an edit made in place is seen within maxAge. The check
// stats the directories recorded by the last full sync, not the files.
func (s *Store) SyncIfChanged(ctx context.Context, maxAge time.Duration) (SyncStats, error) {
	if s.index == nil {
		return SyncStats{}, ErrNoIndex
	}
	dirs := s.Dirs()
	// The time of the last check is noted in the state file: rewriting it
	// in the index every maxAge emptied the other processes' caches of the
	// index (docs/decisions/0084). The directories stay with the memories
	// they describe: a new index has none, and syncs in full.
	at, _ := s.index.StateValue(ctx, "memory_sync_at")
	known, _ := s.index.Meta(ctx, "memory_sync_dirs")
	last, _ := s.index.Meta(ctx, "memory_sync_signature")
	analyzed, _ := s.index.Meta(ctx, store.MetaMemoryAnalyzer)
	if t, err := time.Parse(time.RFC3339Nano, at); err == nil && known != "" && s.now().Sub(t) < maxAge && analyzed == analyzer.Version &&
		dirSignature(strings.Split(known, "\n")) == last {
		return SyncStats{}, nil
	}
	st, err := s.sync(ctx, dirs)
	if err != nil {
		return st, err
	}
	watch, err := s.watchedDirs(ctx, dirs)
	if err != nil {
		return st, err
	}
	if joined, sig := strings.Join(watch, "\n"), dirSignature(watch); joined != known || sig != last {
		if err := s.index.SetMeta(ctx, "memory_sync_dirs", joined); err != nil {
			return st, err
		}
		if err := s.index.SetMeta(ctx, "memory_sync_signature", sig); err != nil {
			return st, err
		}
	}
	return st, s.index.SetStateValue(ctx, "memory_sync_at", s.now().Format(time.RFC3339Nano))
}

// watchedDirs are the scope directories and every directory that holds an
// indexed memory file; a new subdirectory changes its parent, which is one
// of them.
func (s *Store) watchedDirs(ctx context.Context, dirs map[Scope]string) ([]string, error) {
	set := map[string]bool{}
	for _, d := range dirs {
		set[d] = true
	}
	paths, err := s.index.MemoryPaths(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		set[filepath.Dir(p)] = true
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

// dirSignature hashes the modification times of directories (a missing one
// counts as such).
func dirSignature(dirs []string) string {
	h := fnv.New64a()
	for _, d := range dirs {
		var mt int64 = -1
		if info, err := os.Stat(d); err == nil {
			mt = info.ModTime().UnixNano()
		}
		fmt.Fprintf(h, "%s\x00%d\x00", d, mt)
	}
	return fmt.Sprintf("%x", h.Sum64())
}
