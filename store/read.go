package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/store/ftsrank"
)

// Files returns every tracked file keyed by path.
func (s *Store) Files(ctx context.Context) (map[string]File, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+fileCols+` FROM files`)
	if err != nil {
		return nil, classify(fmt.Errorf("list files: %w", err))
	}
	files, err := scanFiles(rows, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string]File, len(files))
	for _, f := range files {
		out[f.Path] = f
	}
	return out, nil
}

const fileCols = `id, path, lang, class, size, mtime, hash, skip, note, pkg, indexed_at`

// scanFiles reads rows of fileCols, keeping those keep accepts (nil: all).
func scanFiles(rows *sql.Rows, keep func(*File) bool) ([]File, error) {
	defer rows.Close()
	var out []File
	for rows.Next() {
		var f File
		if err := rows.Scan(&f.ID, &f.Path, &f.Lang, &f.Class, &f.Size, &f.MTime, &f.Hash, &f.Skip, &f.Note, &f.Pkg, &f.IndexedAt); err != nil {
			return nil, classify(err)
		}
		if keep == nil || keep(&f) {
			out = append(out, f)
		}
	}
	return out, classify(rows.Err())
}

// FileByPath returns one tracked file; ok is false when it is not tracked.
func (s *Store) FileByPath(ctx context.Context, path string) (f File, ok bool, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+fileCols+` FROM files WHERE path = ?`, path)
	if err != nil {
		return File{}, false, classify(err)
	}
	files, err := scanFiles(rows, nil)
	if err != nil || len(files) == 0 {
		return File{}, false, err
	}
	return files[0], true, nil
}

const entityCols = `e.id, e.file_id, coalesce(e.parent_id, 0), e.kind, e.name, e.qname, e.start_line, e.end_line, e.signature, e.doc, f.path, f.class`

func scanEntities(rows *sql.Rows) ([]Entity, error) {
	defer rows.Close()
	var out []Entity
	for rows.Next() {
		var e Entity
		if err := rows.Scan(&e.ID, &e.FileID, &e.ParentID, &e.Kind, &e.Name, &e.QName, &e.StartLine, &e.EndLine, &e.Signature, &e.Doc, &e.Path, &e.Class); err != nil {
			return nil, classify(err)
		}
		out = append(out, e)
	}
	return out, classify(rows.Err())
}

// EntitiesInFile returns a file's entities in source order, the file entity
// first.
func (s *Store) EntitiesInFile(ctx context.Context, path string) ([]Entity, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM entities e JOIN files f ON f.id = e.file_id
		WHERE f.path = ? ORDER BY e.kind != 'file', e.start_line, e.end_line DESC`, path)
	if err != nil {
		return nil, classify(fmt.Errorf("entities of %s: %w", path, err))
	}
	return scanEntities(rows)
}

// FileEntity returns the entity of the file at path, its outline; ok is
// false when the file is not tracked. Unlike EntitiesInFile it reads no
// declaration: a context that shows a file by its outline needs none.
func (s *Store) FileEntity(ctx context.Context, path string) (e Entity, ok bool, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM entities e JOIN files f ON f.id = e.file_id
		WHERE f.path = ? AND e.kind = 'file' ORDER BY e.start_line, e.end_line DESC LIMIT 1`, path)
	if err != nil {
		return Entity{}, false, classify(fmt.Errorf("file entity of %s: %w", path, err))
	}
	ents, err := scanEntities(rows)
	if err != nil || len(ents) == 0 {
		return Entity{}, false, err
	}
	return ents[0], true, nil
}

// EntitiesByID returns the entities with the given ids, keyed by id.
func (s *Store) EntitiesByID(ctx context.Context, ids []int64) (map[int64]Entity, error) {
	out := make(map[int64]Entity, len(ids))
	err := inChunks(ids, func(chunk []int64) error {
		rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM entities e JOIN files f ON f.id = e.file_id
			WHERE e.id IN (`+placeholders(len(chunk))+`)`, int64Args(chunk)...)
		if err != nil {
			return classify(fmt.Errorf("load entities: %w", err))
		}
		es, err := scanEntities(rows)
		if err != nil {
			return err
		}
		for _, e := range es {
			out[e.ID] = e
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EntitiesByName returns entities whose name equals name (case-insensitive),
// at most limit of them.
func (s *Store) EntitiesByName(ctx context.Context, name string, limit int) ([]Entity, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM entities e JOIN files f ON f.id = e.file_id
		WHERE `+nameKeyIn("e.name", 1)+` AND e.name = ? COLLATE NOCASE AND e.kind != 'file' ORDER BY e.name = ? DESC, length(f.path) LIMIT `+limitSQL(limit), name, name, name)
	if err != nil {
		return nil, classify(fmt.Errorf("entities named %s: %w", name, err))
	}
	return scanEntities(rows)
}

// EntityAt returns the innermost entity of path whose line range holds line.
func (s *Store) EntityAt(ctx context.Context, path string, line int) (Entity, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM entities e JOIN files f ON f.id = e.file_id
		WHERE f.path = ? AND e.kind != 'file' AND e.start_line <= ? AND e.end_line >= ?
		ORDER BY e.end_line - e.start_line LIMIT 1`, path, line, line)
	if err != nil {
		return Entity{}, false, classify(err)
	}
	es, err := scanEntities(rows)
	if err != nil || len(es) == 0 {
		return Entity{}, false, err
	}
	return es[0], true, nil
}

// Def is a definition candidate for reference resolution.
type Def struct {
	ID         int64
	FileID     int64
	Kind       string
	Name       string
	ParentName string // enclosing type for methods
	Path       string
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Definitions returns definitions named by names (all when names is nil).
func (s *Store) Definitions(ctx context.Context, names []string) ([]Def, error) {
	var out []Def
	err := eachDefinition(ctx, s.db, liveTables, names, func(d *Def) error {
		out = append(out, *d)
		return nil
	})
	return out, err
}

// EachDefinition calls fn with each definition named by names (all when
// names is nil) in the tables the writer writes, rows written earlier in its
// transaction included. The definitions stream from the store: a cold
// index of a large tree keeps only what the caller keeps of them.
func (w *Writer) EachDefinition(ctx context.Context, names []string, fn func(d *Def) error) error {
	return eachDefinition(ctx, w.tx, w.t, names, fn)
}

// receiverOf returns the type a method's qualified name names before the
// method ("Checker" of "types.Checker.expr"): a Go method declared in
// another file than its type has no parent entity, but is still that
// type's; so is a Rust method of an impl in another file than its type
// ("Thing" of "Thing.make": Rust qualified names carry no package).
func receiverOf(qname, path string) string {
	i := strings.LastIndexByte(qname, '.')
	if i < 0 {
		return ""
	}
	j := strings.LastIndexByte(qname[:i], '.')
	if j < 0 && strings.HasSuffix(path, ".rs") {
		return qname[:i]
	}
	if j < 0 {
		return "" // "pkg.M" or "T.M": which one is not known
	}
	return qname[j+1 : i]
}

func eachDefinition(ctx context.Context, db querier, t *tableNames, names []string, fn func(d *Def) error) error {
	// The file entity's qualified name is the file's path; joining it rather
	// than files lets the indexer resolve before it writes the file rows.
	q := t.sql(`SELECT e.id, e.file_id, e.kind, e.name, coalesce(p.name, ''), f.qname, e.qname
		FROM {entities} e JOIN {entities} f ON f.id = e.file_id LEFT JOIN {entities} p ON p.id = e.parent_id AND p.kind != 'file'
		WHERE e.kind NOT IN ('file', 'heading', 'variable')`)
	var want map[string]bool
	if names != nil {
		want = make(map[string]bool, len(names))
		for _, n := range names {
			want[n] = true
		}
	}
	scan := func(rows *sql.Rows, err error) error {
		if err != nil {
			return classify(fmt.Errorf("load definitions: %w", err))
		}
		defer rows.Close()
		var d Def
		var qname string
		for rows.Next() {
			if err := rows.Scan(&d.ID, &d.FileID, &d.Kind, &d.Name, &d.ParentName, &d.Path, &qname); err != nil {
				return classify(err)
			}
			// The lookup by name ignores case; the names asked for do not.
			if want != nil && !want[d.Name] {
				continue
			}
			if d.ParentName == "" && d.Kind == "method" {
				d.ParentName = receiverOf(qname, d.Path)
			}
			if err := fn(&d); err != nil {
				return err
			}
		}
		return classify(rows.Err())
	}
	if names == nil {
		return scan(db.QueryContext(ctx, q))
	}
	// The names' keys find them in entities_name.
	return inChunks(names, func(chunk []string) error {
		return scan(db.QueryContext(ctx, q+` AND `+nameKeyIn("e.name", len(chunk))+` AND e.name IN (`+placeholders(len(chunk))+`)`,
			append(stringArgs(chunk), stringArgs(chunk)...)...))
	})
}

// Refs returns stored references that originate in fileIDs or whose name is
// in names, with their row ids (for re-resolution).
func (s *Store) Refs(ctx context.Context, fileIDs []int64, names []string) ([]Ref, error) {
	return refs(ctx, s.db, fileIDs, names)
}

func refs(ctx context.Context, db querier, fileIDs []int64, names []string) ([]Ref, error) {
	var out []Ref
	if err := inChunks(fileIDs, func(chunk []int64) error {
		return appendRefs(&out)(db.QueryContext(ctx, refsQuery+`e.file_id IN (`+placeholders(len(chunk))+`)`, int64Args(chunk)...))
	}); err != nil {
		return nil, err
	}
	if err := inChunks(names, func(chunk []string) error {
		return appendRefs(&out)(db.QueryContext(ctx, refsNamedQuery(len(chunk)), append(stringArgs(chunk), stringArgs(chunk)...)...))
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// nameKeyIn is the condition that the name in column col has the key
// (ftsrank.NameKey) of one of n arguments, which entities_name serves.
func nameKeyIn(col string, n int) string {
	return ftsrank.NameKey + "(" + col + ") IN (" + calls(ftsrank.NameKey, n) + ")"
}

// refsNamedQuery reads the references named by n arguments, given twice:
// their hashes find them in refs_name (refsNameIndex), the names keep
// them.
func refsNamedQuery(n int) string {
	return refsQuery + ftsrank.HashName + `(r.name) IN (` + calls(ftsrank.HashName, n) + `) AND r.name IN (` + placeholders(n) + `)`
}

// calls is n calls of the SQL function fn, each of a parameter:
// "fn(?), fn(?)".
func calls(fn string, n int) string {
	return strings.TrimSuffix(strings.Repeat(fn+"(?), ", n), ", ")
}

// importsToCheck returns the import references that found no file of the
// workspace (read through refs_unresolved_imports) and those whose target
// is one of targets (file ids, through refs_dst).
func importsToCheck(ctx context.Context, db querier, targets []int64) ([]Ref, error) {
	var out []Ref
	if err := appendRefs(&out)(db.QueryContext(ctx, refsQuery+unresolvedImports("r."))); err != nil {
		return nil, err
	}
	if err := inChunks(targets, func(chunk []int64) error {
		return appendRefs(&out)(db.QueryContext(ctx, refsQuery+`r.dst_id IN (`+placeholders(len(chunk))+`) AND r.kind = `+strconv.Itoa(int(RefImports)), int64Args(chunk)...))
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// refsQuery reads references with their row ids and files; a condition
// follows.
var refsQuery = `SELECT r.rowid, r.src_id, e.file_id, r.kind, r.name, r.qualifier, r.line, r.dst_id
	FROM refs r JOIN entities e ON ` + refsOfEntity("e", "r") + ` WHERE `

// appendRefs returns a function that appends the rows of a refsQuery to
// *out and closes them: appendRefs(&out)(db.QueryContext(…)).
func appendRefs(out *[]Ref) func(*sql.Rows, error) error {
	return func(rows *sql.Rows, err error) error {
		if err != nil {
			return classify(fmt.Errorf("load refs: %w", err))
		}
		defer rows.Close()
		for rows.Next() {
			var r Ref
			var dst sql.NullInt64
			if err := rows.Scan(&r.RowID, &r.SrcID, &r.FileID, &r.Kind, &r.Name, &r.Qualifier, &r.Line, &dst); err != nil {
				return classify(err)
			}
			r.DstID = dst.Int64
			*out = append(*out, r)
		}
		return classify(rows.Err())
	}
}

// Edge is a resolved reference between two entities.
type Edge struct {
	Src, Dst int64
	Kind     RefKind
}

// MaxEdgeIDs is how many of the ids given to EdgesFrom and EdgesTo are
// looked up: the first MaxEdgeIDs.
const MaxEdgeIDs = 900

// EdgesFrom returns resolved references leaving any of ids (callees,
// referenced types, imported files).
func (s *Store) EdgesFrom(ctx context.Context, ids []int64, limit int) ([]Edge, error) {
	return s.edges(ctx, `src_id`, ids, limit)
}

// EdgesTo returns resolved references arriving at any of ids (callers,
// users, importers).
func (s *Store) EdgesTo(ctx context.Context, ids []int64, limit int) ([]Edge, error) {
	return s.edges(ctx, `dst_id`, ids, limit)
}

func (s *Store) edges(ctx context.Context, col string, ids []int64, limit int) ([]Edge, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if len(ids) > MaxEdgeIDs {
		ids = ids[:MaxEdgeIDs]
	}
	rows, err := s.db.QueryContext(ctx, edgesSQL(col, len(ids), limit), int64Args(ids)...)
	if err != nil {
		return nil, classify(fmt.Errorf("load edges: %w", err))
	}
	defer rows.Close()
	var out []Edge
	for rows.Next() {
		var e Edge
		if err := rows.Scan(&e.Src, &e.Dst, &e.Kind); err != nil {
			return nil, classify(err)
		}
		out = append(out, e)
	}
	return out, classify(rows.Err())
}

// edgesSQL is the statement of edges for n ids.
func edgesSQL(col string, n, limit int) string {
	// The order makes a capped list the same whatever order the files were
	// indexed in: ids are stable hashes, and one entity's references keep
	// their relative rowids because they are written in order. Both orders
	// are the order in which the rows are found (the ids' unique index and
	// each entity's range of references; refs_dst), so LIMIT still stops
	// early, and refs_dst holds every column read, so users are read from
	// the index alone (decision 0123).
	if col == `src_id` {
		return `SELECT r.src_id, r.dst_id, r.kind FROM entities e JOIN refs r ON ` + refsOfEntity("e", "r") + `
			WHERE e.id IN (` + placeholders(n) + `) AND r.dst_id IS NOT NULL AND r.dst_id != r.src_id ORDER BY e.id, r.rowid LIMIT ` + limitSQL(limit)
	}
	return `SELECT src_id, dst_id, kind FROM refs WHERE dst_id IN (` + placeholders(n) + `) AND dst_id IS NOT NULL AND dst_id != src_id ORDER BY dst_id, src_id, kind, rowid LIMIT ` + limitSQL(limit)
}

// RefsFrom returns the references (resolved or not) made by an entity.
func (s *Store) RefsFrom(ctx context.Context, id int64) ([]Ref, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.rowid, r.src_id, e.file_id, r.kind, r.name, r.qualifier, r.line, coalesce(r.dst_id, 0)
		FROM entities e JOIN refs r ON `+refsOfEntity("e", "r")+` WHERE e.id = ? ORDER BY r.line`, id)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Ref
	for rows.Next() {
		var r Ref
		if err := rows.Scan(&r.RowID, &r.SrcID, &r.FileID, &r.Kind, &r.Name, &r.Qualifier, &r.Line, &r.DstID); err != nil {
			return nil, classify(err)
		}
		out = append(out, r)
	}
	return out, classify(rows.Err())
}

// Hit is a full-text match.
type Hit struct {
	ID     int64
	FileID int64   // the entity's file
	Score  float64 // higher is better
}

// FieldWeights weight the full-text columns in BM25F order: name, qualified
// name, path, signature, doc, body.
type FieldWeights [6]float64

// rank is the FTS5 rank of an entity search with these weights.
func (w FieldWeights) rank() string { return entityLayout.rank(w[:]...) }

// score is the same function called in a query of fts.
func (w FieldWeights) score() string { return entityLayout.score("fts", w[:]...) }

// Search runs a full-text query over analyzed terms: terms are OR-ed and
// scored with FTS5's BM25 using the field weights.
func (s *Store) Search(ctx context.Context, terms []string, w FieldWeights, limit int) ([]Hit, error) {
	return s.search(ctx, orQuery(terms), w, limit)
}

// SearchAll is Search over the documents that hold every one of terms: a
// conjunction reads the terms' posting lists but scores only the documents
// they share, so words too common to rank alone can still be searched
// together.
func (s *Store) SearchAll(ctx context.Context, terms []string, w FieldWeights, limit int) ([]Hit, error) {
	return s.search(ctx, andQuery(terms), w, limit)
}

func (s *Store) search(ctx context.Context, match string, w FieldWeights, limit int) ([]Hit, error) {
	if match == "" {
		return nil, nil
	}
	// Full-text rows are numbered by entities.seq: map them to entity ids.
	// The weighted bm25() is the rank that chooses the best rows (see
	// rankBy).
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT e.id, e.file_id, h.score FROM
		(SELECT rowid AS seq, -rank AS score FROM fts WHERE fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT %d) h
		`+hitEntity+` ORDER BY h.score DESC, e.id LIMIT %d`,
		tieDepth(limit), limit), match, w.rank())
	if err != nil {
		return nil, classify(fmt.Errorf("full-text search: %w", err))
	}
	return scanHits(rows)
}

// Stats summarises the index.
type Stats struct {
	Files, Parsed, Skipped int
	Entities               int
	Refs, Resolved         int
	ByKind                 map[string]int
	ByLang                 map[string]int
	SkipReasons            map[string]int
	Bytes                  int64 // index file size
}

// Stats counts what the index holds.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{ByKind: map[string]int{}, ByLang: map[string]int{}, SkipReasons: map[string]int{}}
	q := func(query string, dst ...any) error {
		return classify(s.db.QueryRowContext(ctx, query).Scan(dst...))
	}
	if err := q(`SELECT count(*), coalesce(sum(skip = ''), 0) FROM files`, &st.Files, &st.Parsed); err != nil {
		return st, err
	}
	st.Skipped = st.Files - st.Parsed
	if err := q(`SELECT count(*) FROM entities`, &st.Entities); err != nil {
		return st, err
	}
	if err := q(`SELECT count(*), count(dst_id) FROM refs`, &st.Refs, &st.Resolved); err != nil {
		return st, err
	}
	group := func(query string, m map[string]int) error {
		rows, err := s.db.QueryContext(ctx, query)
		if err != nil {
			return classify(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				return err
			}
			m[k] = n
		}
		return rows.Err()
	}
	if err := group(`SELECT kind, count(*) FROM entities GROUP BY kind`, st.ByKind); err != nil {
		return st, err
	}
	if err := group(`SELECT lang, count(*) FROM files WHERE skip = '' GROUP BY lang`, st.ByLang); err != nil {
		return st, err
	}
	if err := group(`SELECT skip, count(*) FROM files WHERE skip != '' GROUP BY skip`, st.SkipReasons); err != nil {
		return st, err
	}
	var pages, pageSize int64
	if err := q(`PRAGMA page_count`, &pages); err != nil {
		return st, err
	}
	if err := q(`PRAGMA page_size`, &pageSize); err != nil {
		return st, err
	}
	st.Bytes = pages * pageSize
	return st, nil
}

func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, v := range ids {
		out[i] = v
	}
	return out
}

func stringArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}

// TermStat is a term's document frequency.
type TermStat struct {
	Term string
	Docs int
}

// TermStats returns the document frequency of each term that occurs in the
// full-text index, and the number of indexed documents.
func (s *Store) TermStats(ctx context.Context, terms []string) (map[string]int, int, error) {
	out := make(map[string]int, len(terms))
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), (SELECT count(*) FROM entities))`, MetaDocuments).Scan(&total); err != nil {
		return nil, 0, classify(err)
	}
	if len(terms) == 0 {
		return out, total, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT term, doc FROM fts_vocab WHERE term IN (`+placeholders(len(terms))+`)`, stringArgs(terms)...)
	if err != nil {
		return nil, 0, classify(fmt.Errorf("term statistics: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, 0, classify(err)
		}
		out[t] = n
	}
	return out, total, classify(rows.Err())
}

// FilesByPathSuffix returns parsed files whose path equals suffix or ends
// with "/"+suffix, ignoring case (as the LIKE it replaces did for ASCII
// letters), the shortest paths first, at most limit.
func (s *Store) FilesByPathSuffix(ctx context.Context, suffix string, limit int) ([]File, error) {
	// An exact path is the common case and uses the unique index.
	if f, ok, err := s.FileByPath(ctx, suffix); err != nil || ok {
		if ok && f.Skip == "" {
			return []File{f}, nil
		}
		if err != nil {
			return nil, err
		}
	}
	// Every match has suffix's base name, and file entities are named by
	// it: the candidates are found without scanning the file list, which a
	// kernel-size tree made cost milliseconds a try.
	base := suffix[strings.LastIndexByte(suffix, '/')+1:]
	return s.filesNamed(ctx, `= ? COLLATE NOCASE`, base, base, limit, func(f *File) bool {
		n := len(f.Path) - len(suffix)
		return n >= 0 && strings.EqualFold(f.Path[n:], suffix) && (n == 0 || f.Path[n-1] == '/')
	})
}

// filesNamed returns the parsed files whose file entity's name (the base
// name) meets cond (a comparison with one parameter) with arg and that keep
// accepts, the shortest paths first, at most limit. The candidates are
// those whose name has the key of key (a name, or a stem: ftsrank.NameKey)
// in entities_name. Every candidate is checked: a common base name
// ("utils", "index") has many files, and the one asked for may be the
// deepest.
func (s *Store) filesNamed(ctx context.Context, cond, arg, key string, limit int, keep func(*File) bool) ([]File, error) {
	if arg == "" {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.id, f.path, f.lang, f.class, f.size, f.mtime, f.hash, f.skip, f.note, f.pkg, f.indexed_at
		FROM entities e JOIN files f ON f.id = e.id
		WHERE `+nameKeyIn("e.name", 1)+` AND e.name `+cond+` AND e.kind = 'file' AND f.skip = ''`, key, arg)
	if err != nil {
		return nil, classify(fmt.Errorf("files named %s: %w", arg, err))
	}
	out, err := scanFiles(rows, keep)
	// The shortest path is the likeliest; equal lengths by path.
	slices.SortFunc(out, func(a, b File) int {
		return cmp.Or(cmp.Compare(len(a.Path), len(b.Path)), strings.Compare(a.Path, b.Path))
	})
	return out[:min(len(out), limit)], err
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// DeclaresTerm reports whether term occurs in the name, qualified name or
// signature of some indexed entity: whether it is a word of this
// workspace's declarations, not only of its comments and bodies. The
// relevance gate counts such words in a prompt (retrieval.GatePrompt).
func (s *Store) DeclaresTerm(ctx context.Context, term string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1`,
		`{name qname `+strings.Join(entityLayout.columnsOf("signature"), " ")+`} : `+orQuery([]string{term})).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, classify(fmt.Errorf("declared term %q: %w", term, err))
	}
	return true, nil
}

// NamesDirectory reports whether term is the whole name of a directory of
// the workspace's own code ("cookies" of src/cookies/jar.go, "valid" of
// validator/), as analyze reads a path segment. The full-text index of the
// source files' paths finds the candidates; at most dirCandidates of them
// are read, enough for a directory, which holds files, while a word that
// only parts of file names hold is rejected by the check of each segment.
func (s *Store) NamesDirectory(ctx context.Context, term string, analyze func(segment string) []string) (bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.path FROM
		(SELECT rowid AS seq FROM fts_files WHERE fts_files MATCH ? LIMIT `+limitSQL(dirCandidates)+`) h
		`+hitEntity+` JOIN files f ON f.id = e.file_id`, `{`+strings.Join(fileLayout.columnsOf("path"), " ")+`} : `+ftsString(term))
	if err != nil {
		return false, classify(fmt.Errorf("directory named %q: %w", term, err))
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return false, classify(fmt.Errorf("directory named %q: %w", term, err))
		}
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if ts := analyze(path.Base(dir)); len(ts) == 1 && ts[0] == term {
				return true, rows.Close()
			}
		}
	}
	if err := rows.Err(); err != nil {
		return false, classify(fmt.Errorf("directory named %q: %w", term, err))
	}
	return false, nil
}

// dirCandidates bounds the files NamesDirectory reads for one word.
const dirCandidates = 64

// NamedHit is an entity found by its name.
type NamedHit struct {
	ID, FileID int64
	Name       string
}

// NamedByPhrase returns the entities whose names hold terms as consecutive
// parts ("pick next task": pick_next_task_fair, __pick_next_task), at most
// limit, with their files and names. Which of more than limit is left
// unsaid: ask for one more than is used, to know whether there are more.
// analyze is the analysis that made the name column (analyzer.Terms): the
// postings say which names hold every term, not where (decision 0130), so
// the order is checked on the names themselves.
func (s *Store) NamedByPhrase(ctx context.Context, terms []string, limit int, analyze func(string) []string) ([]NamedHit, error) {
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	match := `{name} : (` + andQuery(terms) + `)`
	// Candidates in row order, read until limit of them spell the phrase:
	// the statement reads postings only as far as its rows are asked for.
	rows, err := s.db.QueryContext(ctx, `SELECT e.id, e.file_id, e.name FROM
		(SELECT rowid AS seq FROM fts WHERE fts MATCH ?) h
		`+hitEntity+` ORDER BY h.seq`, match)
	if err != nil {
		return nil, classify(fmt.Errorf("names with %q: %w", strings.Join(terms, " "), err))
	}
	defer rows.Close()
	var out []NamedHit
	for len(out) < limit && rows.Next() {
		var h NamedHit
		if err := rows.Scan(&h.ID, &h.FileID, &h.Name); err != nil {
			return nil, classify(err)
		}
		if holdsRun(analyze(h.Name), terms) {
			out = append(out, h)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	slices.SortFunc(out, func(a, b NamedHit) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// holdsRun reports whether run occurs in terms as consecutive elements.
func holdsRun(terms, run []string) bool {
	for i := 0; i+len(run) <= len(terms); i++ {
		if slices.Equal(terms[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// scanNamed reads rows of entity id, file id and name.
func scanNamed(rows *sql.Rows) ([]NamedHit, error) {
	defer rows.Close()
	var out []NamedHit
	for rows.Next() {
		var h NamedHit
		if err := rows.Scan(&h.ID, &h.FileID, &h.Name); err != nil {
			return nil, classify(err)
		}
		out = append(out, h)
	}
	return out, classify(rows.Err())
}

// NamedByAll returns the entities whose names hold every one of terms as
// parts, in any order and place ("load" and "modul": load_module,
// sms_board_load_modules), at most limit, with their files and names; as
// NamedByPhrase, ask for one more than is used to know whether there are
// more. The names of a large index are few beside its bodies: words too
// common to rank alone find their shared names in milliseconds.
func (s *Store) NamedByAll(ctx context.Context, terms []string, limit int) ([]NamedHit, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	match := `{name} : (` + andQuery(terms) + `)`
	rows, err := s.db.QueryContext(ctx, `SELECT e.id, e.file_id, e.name FROM
		(SELECT rowid AS seq FROM fts WHERE fts MATCH ? LIMIT `+limitSQL(limit)+`) h
		`+hitEntity+` ORDER BY e.id`, match)
	if err != nil {
		return nil, classify(fmt.Errorf("names with %s: %w", match, err))
	}
	return scanNamed(rows)
}

// BestInFile returns the declarations of the file at path whose full-text
// documents hold any of terms, best first by weighted BM25, at most limit:
// what of a file to show when the file ranks high on its whole text but
// none of its declarations made the candidates.
func (s *Store) BestInFile(ctx context.Context, path string, terms []string, w FieldWeights, limit int) ([]Hit, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	// A file's declarations are written together, so their full-text rows
	// are one range of row numbers, which FTS5 reads as a range of each
	// term's postings. The range is bound as constants: from a join or a
	// subquery the planner scanned every posting of the terms (70 ms
	// against 1 ms for net/http/server.go in GOROOT). The join keeps the
	// file's own rows should another file's lie inside the range.
	var lo, hi, file sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT min(e.seq), max(e.seq), f.id FROM entities e JOIN files f ON f.id = e.file_id
		WHERE f.path = ? AND e.kind != 'file'`, path).Scan(&lo, &hi, &file)
	if err != nil || !lo.Valid {
		return nil, classify(err)
	}
	rows, err := s.db.QueryContext(ctx, bestInFileSQL(w.score(), limit), orQuery(terms), lo.Int64, hi.Int64, file.Int64)
	if err != nil {
		return nil, classify(fmt.Errorf("best of %s: %w", path, err))
	}
	return scanHits(rows)
}

// bestInFileSQL is BestInFile's search of a range of row numbers, its
// hits scored by score.
func bestInFileSQL(score string, limit int) string {
	return fmt.Sprintf(`SELECT e.id, e.file_id, h.score FROM
		(SELECT rowid AS seq, -%s AS score FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ?) h
		`+hitEntity+` WHERE e.file_id = ? AND e.kind != 'file'
		ORDER BY h.score DESC, e.id LIMIT %d`, score, limit)
}

// ScoreDocs returns, for one term, the BM25F score of each of ids that
// contains it (ids without the term are absent).
func (s *Store) ScoreDocs(ctx context.Context, term string, w FieldWeights, ids []int64) (map[int64]float64, error) {
	out := map[int64]float64{}
	if len(ids) == 0 {
		return out, nil
	}
	args := append([]any{ftsString(term)}, int64Args(ids)...)
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT e.id, h.score FROM
		(SELECT rowid AS seq, -%s AS score FROM fts
		 WHERE fts MATCH ? AND rowid IN (SELECT seq FROM entities WHERE id IN (`+placeholders(len(ids))+`))) h
		`+hitEntity,
		w.score()), args...)
	if err != nil {
		return nil, classify(fmt.Errorf("score documents: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sc float64
		if err := rows.Scan(&id, &sc); err != nil {
			return nil, classify(err)
		}
		out[id] = sc
	}
	return out, classify(rows.Err())
}

// Holding returns which of the entities ids hold term in their full-text
// document. Unlike ScoreDocs it computes no BM25, whose document count for a
// common word is the costly part of scoring it (decision 0116).
func (s *Store) Holding(ctx context.Context, term string, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	// The term is matched once per candidate row (fts.rowid = e.seq).
	args := append(int64Args(ids), `"`+strings.ReplaceAll(term, `"`, `""`)+`"`)
	rows, err := s.db.QueryContext(ctx, `SELECT e.id FROM entities e
		WHERE e.id IN (`+placeholders(len(ids))+`)
		AND EXISTS (SELECT 1 FROM fts WHERE fts MATCH ? AND fts.rowid = e.seq)`, args...)
	if err != nil {
		return nil, classify(fmt.Errorf("documents holding %q: %w", term, err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, classify(err)
		}
		out[id] = true
	}
	return out, classify(rows.Err())
}

// FileIDs maps entity ids to the ids of their files.
func (s *Store) FileIDs(ctx context.Context, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	for start := 0; start < len(ids); start += 900 {
		chunk := ids[start:min(start+900, len(ids))]
		rows, err := s.db.QueryContext(ctx, `SELECT id, file_id FROM entities WHERE id IN (`+placeholders(len(chunk))+`)`, int64Args(chunk)...)
		if err != nil {
			return nil, classify(fmt.Errorf("file ids: %w", err))
		}
		for rows.Next() {
			var id, fid int64
			if err := rows.Scan(&id, &fid); err != nil {
				rows.Close()
				return nil, classify(err)
			}
			out[id] = fid
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, classify(err)
		}
	}
	return out, nil
}

// FilesByStem returns files whose path without extension equals stem or ends
// with "/"+stem (a module path such as "requests/compat" or "core/logx").
func (s *Store) FilesByStem(ctx context.Context, stem string, limit int) ([]File, error) {
	base := stem[strings.LastIndexByte(stem, '/')+1:]
	if base == "" {
		return nil, nil
	}
	// The key of the base name's stem finds the candidates in
	// entities_name; a prefix LIKE keeps those with an extension.
	return s.filesNamed(ctx, `LIKE ? ESCAPE '\'`, escapeLike(base)+".%", base, limit, func(f *File) bool {
		noExt := strings.TrimSuffix(f.Path, path.Ext(f.Path))
		return noExt == stem || strings.HasSuffix(noExt, "/"+stem)
	})
}

// Corpus selects a set of whole-file documents. Each has its own BM25
// statistics (document frequencies, average length).
type Corpus int

const (
	// CorpusSource is the workspace's own code.
	CorpusSource Corpus = iota
	// CorpusAside is tests, docs, examples and copies of third-party code:
	// kept apart so that they do not shift the source's IDF and lengths.
	CorpusAside
)

// SearchFiles runs an OR query over the whole-file documents of a corpus and
// returns the best limit files (by file id) with their BM25 score summed
// over the terms. A term given twice counts twice, as a repeated query word
// does in BM25.
func (s *Store) SearchFiles(ctx context.Context, corpus Corpus, terms []string, pathWeight, bodyWeight float64, limit int) ([]Hit, error) {
	return s.searchFiles(ctx, corpus, orQuery(terms), pathWeight, bodyWeight, limit)
}

// SearchAllFiles is SearchFiles over the files that hold every one of terms
// (see SearchAll).
func (s *Store) SearchAllFiles(ctx context.Context, corpus Corpus, terms []string, pathWeight, bodyWeight float64, limit int) ([]Hit, error) {
	return s.searchFiles(ctx, corpus, andQuery(terms), pathWeight, bodyWeight, limit)
}

func (s *Store) searchFiles(ctx context.Context, corpus Corpus, match string, pathWeight, bodyWeight float64, limit int) ([]Hit, error) {
	if match == "" {
		return nil, nil
	}
	table := fileTable(corpus)
	// The row number is the file entity's seq; its id is the file's id.
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT e.id, e.file_id, h.score FROM
		(SELECT rowid AS seq, -rank AS score FROM %[1]s WHERE %[1]s MATCH ? AND rank MATCH ? ORDER BY rank LIMIT %[2]d) h
		`+hitEntity+` ORDER BY h.score DESC, e.id LIMIT %[3]d`, table, tieDepth(limit), limit),
		match, fileLayout.rank(pathWeight, bodyWeight))
	if err != nil {
		return nil, classify(fmt.Errorf("file search: %w", err))
	}
	return scanHits(rows)
}

// rankBy is the FTS5 rank of a search: fn with the arguments (a
// textLayout's rank).
// A search orders by rank and reads only its best rows, so the rank must be
// the weighted score itself: FTS5's default rank, bm25() with every column
// weighing the same, chose the rows among which the weights then ranked,
// and a word's best matches by name could fall outside them.
func rankBy(fn string, args ...float64) string { return fn + "(" + weightList(args) + ")" }

// weightList writes weights as the arguments of a rank function.
func weightList(weights []float64) string {
	var b strings.Builder
	for i, w := range weights {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(w, 'g', -1, 64))
	}
	return b.String()
}

// tieDepth is how deep a ranked full-text search reads for limit results.
// FTS5 orders equal scores by row number, entities.seq, which follows the
// order files were written in: a cold index and one brought up to date
// file by file number the same entities differently. Documents with equal
// scores are common (small declarations alike in name and size), so the
// search reads past the limit and the stable entity id decides a tie at
// the cut.
func tieDepth(limit int) int { return limit + limit/4 + 8 }

// orQuery is an FTS5 query matching any of terms, each quoted as a string.
func orQuery(terms []string) string { return joinQuery(terms, " OR ") }

// andQuery is the FTS5 query matching documents that hold every term.
func andQuery(terms []string) string { return joinQuery(terms, " AND ") }

func joinQuery(terms []string, op string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(op)
		}
		b.WriteString(ftsString(t))
	}
	return b.String()
}

// ftsString quotes s as an FTS5 string: a term, or terms separated by
// spaces as a phrase.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// scanHits reads (rowid, score) rows.
func scanHits(rows *sql.Rows) ([]Hit, error) {
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.ID, &h.FileID, &h.Score); err != nil {
			return nil, classify(err)
		}
		out = append(out, h)
	}
	return out, classify(rows.Err())
}

// FileSummary returns "path: A, B, …": the file's path and the names of up
// to names of its top-level entities in source order, or the path alone when
// it has none. The working set is shown this way (hooks, MCP session).
func (s *Store) FileSummary(ctx context.Context, path string, names int) (string, error) {
	ents, err := s.EntitiesInFile(ctx, path)
	if err != nil {
		return "", err
	}
	var top []string
	for _, e := range ents {
		if e.Kind != "file" && e.ParentID == e.FileID && len(top) < names {
			top = append(top, e.Name)
		}
	}
	if len(top) == 0 {
		return path, nil
	}
	return path + ": " + strings.Join(top, ", "), nil
}
