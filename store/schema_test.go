package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/workspace"
)

// An index of schema version 6 (files without a class) upgrades in place:
// the rows it holds are classified as the indexer would have classified
// them, and nothing has to be re-indexed.
func TestSchemaVersion6GainsFileClasses(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	paths := map[string]workspace.Class{
		"net/http/server.go":        workspace.Source,
		"net/http/server_test.go":   workspace.Test,
		"docs/guide.md":             workspace.Doc,
		"docs/example_test.go":      workspace.Test | workspace.Doc,
		"deps/external/zlib/inf.c":  workspace.ThirdParty,
		"api/zz_generated.pb.go":    workspace.Generated,
		"gen/testdata/generated.go": workspace.Test | workspace.Generated,
	}
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	id := int64(100)
	for p := range paths {
		ids[p] = id
		fd := sampleFile(p, id)
		if paths[p].Has(workspace.Generated) {
			fd = &FileData{File: File{ID: id, Path: p, Lang: "go", Size: 1, MTime: 1, Hash: "h", Skip: SkipGenerated, IndexedAt: 1}}
		}
		if err := w.PutFile(ctx, fd, false); err != nil {
			t.Fatal(err)
		}
		id += 10
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	// Back to version 6: the files and entities tables as they were.
	if _, err := s.DB().Exec(`ALTER TABLE files DROP COLUMN class;` + undoQNameSQL + undoVersion13SQL + `PRAGMA user_version = 6`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTest(t, root)
	files, err := s.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(paths) {
		t.Fatalf("after the upgrade: %d files, want %d", len(files), len(paths))
	}
	for _, f := range files {
		if f.ID != ids[f.Path] {
			t.Errorf("%s: id %d, want %d", f.Path, f.ID, ids[f.Path])
		}
		if f.Class != paths[f.Path] {
			t.Errorf("%s: class %v, want %v", f.Path, f.Class, paths[f.Path])
		}
	}
	// Entities carry their file's class to ranking.
	fn := ids["net/http/server_test.go"] + 1 // sampleFile's function
	ents, err := s.EntitiesByID(ctx, []int64{fn})
	if err != nil || ents[fn].Path != "net/http/server_test.go" || ents[fn].Class != workspace.Test {
		t.Fatalf("entity of server_test.go: %+v, %v", ents[fn], err)
	}
}

// An entity's qualified name is stored only where it is not its name, and
// read back whole either way (schema version 9); an index of version 8,
// which stored every qualified name, upgrades in place and reads the same.
func TestQualifiedNameStoredWhereItIsNotTheName(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	fd := sampleFile("drivers/tcp.c", 100)
	fd.Entities = append(fd.Entities, Entity{ID: 102, FileID: 100, ParentID: 100, Kind: "constant", Name: "TCP_RTO_MAX", QName: "TCP_RTO_MAX", StartLine: 7, EndLine: 7})
	fd.Docs = append(fd.Docs, Doc{ID: 102, Name: "tcprtomax tcp rto max"})
	putFile(t, s, fd)
	check := func(when string) {
		t.Helper()
		got, err := s.EntitiesInFile(ctx, "drivers/tcp.c")
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]string{100: "drivers/tcp.c", 101: "http.ListenAndServe", 102: "TCP_RTO_MAX"}
		for _, e := range got {
			if e.QName != want[e.ID] {
				t.Errorf("%s: entity %d (%s): qualified name %q, want %q", when, e.ID, e.Name, e.QName, want[e.ID])
			}
			delete(want, e.ID)
		}
		if len(want) > 0 {
			t.Errorf("%s: entities missing: %v", when, want)
		}
		if e, ok, err := s.EntityByQName(ctx, "drivers/tcp.c", "constant", "TCP_RTO_MAX"); err != nil || !ok || e.ID != 102 {
			t.Errorf("%s: EntityByQName(TCP_RTO_MAX) = %v, %v, %v", when, e.ID, ok, err)
		}
	}
	check("version 9")
	var stored int
	if err := s.DB().QueryRow(`SELECT count(*) FROM entities WHERE qname_stored != ''`).Scan(&stored); err != nil || stored != 2 {
		t.Errorf("%d qualified names stored (%v), want 2: the constant's is its name", stored, err)
	}

	// Back to version 8: every qualified name in a column of its own.
	if _, err := s.DB().Exec(undoQNameSQL + undoVersion13SQL + `PRAGMA user_version = 8`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, root)
	check("upgraded from version 8")
}

// undoQNameSQL turns the entities table back into its form before schema
// version 9: every qualified name in a column of its own.
const undoQNameSQL = `ALTER TABLE entities DROP COLUMN qname;
	ALTER TABLE entities RENAME COLUMN qname_stored TO qname;
	UPDATE entities SET qname = name WHERE qname = '';
	`

// undoVersion13SQL turns the entities table back into its form before
// schema version 13: signatures, kinds and parents stored whole.
const undoVersion13SQL = `ALTER TABLE entities ADD COLUMN whole_signature TEXT NOT NULL DEFAULT '';
	ALTER TABLE entities ADD COLUMN whole_kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE entities ADD COLUMN whole_parent INTEGER;
	UPDATE entities SET whole_signature = signature, whole_kind = kind, whole_parent = parent_id;
	ALTER TABLE entities DROP COLUMN signature;
	ALTER TABLE entities DROP COLUMN signature_stored;
	ALTER TABLE entities DROP COLUMN kind;
	ALTER TABLE entities DROP COLUMN kind_stored;
	ALTER TABLE entities DROP COLUMN parent_id;
	ALTER TABLE entities DROP COLUMN parent_stored;
	ALTER TABLE entities RENAME COLUMN whole_signature TO signature;
	ALTER TABLE entities RENAME COLUMN whole_kind TO kind;
	ALTER TABLE entities RENAME COLUMN whole_parent TO parent_id;
	`

// TestRefsByTargetIndexUpgrades: an index of version 9, whose refs_dst
// holds only the target, and one of version 10, ordered by source but
// without the kind, get the index that covers EdgesTo.
func TestRefsByTargetIndexUpgrades(t *testing.T) {
	root := t.TempDir()
	s := openTest(t, root)
	putFile(t, s, sampleFile("a.go", 10))
	columns := func() []string {
		t.Helper()
		return queryStrings(t, s, `SELECT name FROM pragma_index_info('refs_dst') ORDER BY seqno`)
	}
	const want = "dst_id,src_id,kind"
	if got := strings.Join(columns(), ","); got != want {
		t.Fatalf("new index: refs_dst on %s", got)
	}
	for _, old := range []struct {
		version int
		index   string
	}{
		{9, "dst_id"},
		{10, "dst_id, src_id"},
	} {
		if _, err := s.DB().Exec(fmt.Sprintf(`DROP INDEX refs_dst; CREATE INDEX refs_dst ON refs(%s) WHERE dst_id IS NOT NULL; %s PRAGMA user_version = %d`, old.index, undoVersion13SQL, old.version)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = openTest(t, root)
		if got := strings.Join(columns(), ","); got != want {
			t.Errorf("upgraded from version %d: refs_dst on %s", old.version, got)
		}
		if fs, err := s.Files(context.Background()); err != nil || len(fs) != 1 {
			t.Errorf("upgraded from version %d: %d files (%v), want the one written", old.version, len(fs), err)
		}
	}
}

// TestEdgesToReadsTheIndexAlone: reading an entity's users needs no row of
// the refs table (decision 0123).
func TestEdgesToReadsTheIndexAlone(t *testing.T) {
	s := openTest(t, t.TempDir())
	if got := queryPlan(t, s, edgesSQL(`dst_id`, 2, 10), 1, 2); !strings.Contains(got, "COVERING INDEX refs_dst") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("plan %q: want refs_dst as a covering index and no sort", got)
	}
}

// TestImportsOfNamesReadsItsIndex: finding the imports of a name, or of a
// local name, reads refs_imported_names or refs_import_locals, not every
// reference.
func TestImportsOfNamesReadsItsIndex(t *testing.T) {
	s := openTest(t, t.TempDir())
	if got := queryPlan(t, s, namedImportsSQL(importedName("r."), 2), "fmt", "toSSG"); !strings.Contains(got, "INDEX refs_imported_names") {
		t.Errorf("plan %q: want refs_imported_names", got)
	}
	if got := queryPlan(t, s, namedImportsSQL(importLocal("r."), 2), "jsx", "shown"); !strings.Contains(got, "INDEX refs_import_locals") {
		t.Errorf("plan %q: want refs_import_locals", got)
	}
}

// TestRefsByNameReadTheHashIndex: references by name are found through
// refs_name, keyed by the names' hashes (decision 0132), and a name that
// shares another's hash does not bring its references.
func TestRefsByNameReadTheHashIndex(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	if got := queryPlan(t, s, refsNamedQuery(2), "Serve", "Listen", "Serve", "Listen"); !strings.Contains(got, "INDEX refs_name") {
		t.Errorf("plan %q: want refs_name", got)
	}
	putFile(t, s, sampleFile("a.go", 10))
	refs, err := s.Refs(ctx, nil, []string{"Serve", "Listen"})
	if err != nil || len(refs) != 1 || refs[0].Name != "Serve" {
		t.Fatalf("refs named Serve or Listen: %+v, %v", refs, err)
	}
	// Two names of the same hash: FNV-1a folded to 23 bits has
	// collisions among short names; find one.
	var a, b string
	seen := map[int64]string{}
	for i := 0; a == ""; i++ {
		name := "n" + strconv.Itoa(i)
		var h int64
		if err := s.DB().QueryRow(`SELECT ctxhash(?)`, name).Scan(&h); err != nil {
			t.Fatal(err)
		}
		if other, ok := seen[h]; ok {
			a, b = other, name
		}
		seen[h] = name
	}
	fd := sampleFile("b.go", 20)
	fd.Refs[0].Name = a
	putFile(t, s, fd)
	if refs, err := s.Refs(ctx, nil, []string{b}); err != nil || len(refs) != 0 {
		t.Errorf("refs named %s, whose hash %s shares: %+v, %v", b, a, refs, err)
	}
	if refs, err := s.Refs(ctx, nil, []string{a}); err != nil || len(refs) != 1 {
		t.Errorf("refs named %s: %+v, %v", a, refs, err)
	}
}

// TestEntitiesByNameReadTheKeyIndex: entities and files by name are found
// through entities_name, keyed by a hash of the name's stem folded to
// lower case (decision 0132): a name without case, a file by its name or
// by its stem and any extension.
func TestEntitiesByNameReadTheKeyIndex(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	for _, q := range []string{
		`SELECT id FROM entities e WHERE ` + nameKeyIn("e.name", 1) + ` AND e.name = ? COLLATE NOCASE`,
		`SELECT id FROM entities e WHERE ` + nameKeyIn("e.name", 2) + ` AND e.name IN (?, ?)`,
	} {
		args := []any{"a", "b", "a", "b"}[:strings.Count(q, "?")]
		if got := queryPlan(t, s, q, args...); !strings.Contains(got, "INDEX entities_name") {
			t.Errorf("plan %q: want entities_name", got)
		}
	}
	for i, p := range []string{"pkg/base.go", "pkg/base.test.go", "lib/Base.py", "pkg/based.go"} {
		fd := sampleFile(p, int64(100*(i+1)))
		fd.Entities[1].Name = strings.ToUpper(p[:1]) + "Server"
		putFile(t, s, fd)
	}
	if es, err := s.EntitiesByName(ctx, "pserver", 10); err != nil || len(es) != 3 {
		t.Errorf("entities named pserver: %d (%v), want the three of PServer", len(es), err)
	}
	paths := func(fs []File, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, f := range fs {
			ps = append(ps, f.Path)
		}
		slices.Sort(ps)
		return strings.Join(ps, " ")
	}
	if got, want := paths(s.FilesByStem(ctx, "pkg/base", 10)), "pkg/base.go"; got != want {
		t.Errorf("files of stem pkg/base: %s, want %s", got, want)
	}
	if got, want := paths(s.FilesByPathSuffix(ctx, "lib/base.py", 10)), "lib/Base.py"; got != want {
		t.Errorf("files ending lib/base.py: %s, want %s", got, want)
	}
}

// queryPlan is SQLite's plan for a statement, its steps joined by "; ".
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.DB().Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// TestUpgradeFromVersion12: an index of version 12 opens with its
// full-text tables recreated in the layouts of decision 0131 and its
// analysis forgotten, so that the next index run analyses every file
// again; its entities' signatures, kinds and parents, stored whole, read
// as before.
func TestUpgradeFromVersion12(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	putFile(t, s, sampleFile("a.go", 10))
	// Back to version 12's tables: the whole-file tables with positions,
	// the entity table with a pad column, signatures stored whole.
	if _, err := s.DB().Exec(`DROP TABLE fts_vocab; DROP TABLE fts; DROP TABLE fts_files; DROP TABLE fts_files_aside;
		CREATE VIRTUAL TABLE fts USING fts5(name, qname, path, signature, doc, body,
			signature_2, signature_4, signature_8, signature_16, doc_2, doc_4, doc_8, doc_16, pad,
			content='', contentless_delete=1, detail=column, tokenize='unicode61 remove_diacritics 0');
		CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, row);
		CREATE VIRTUAL TABLE fts_files USING fts5(path, body,
			content='', contentless_delete=1, detail=full, tokenize='unicode61 remove_diacritics 0');
		CREATE VIRTUAL TABLE fts_files_aside USING fts5(path, body,
			content='', contentless_delete=1, detail=full, tokenize='unicode61 remove_diacritics 0');
		INSERT INTO fts_files(rowid, path, body) VALUES (1, 'net http', 'serv serv');
		DROP INDEX refs_name; CREATE INDEX refs_name ON refs(name);
		DROP INDEX entities_name; CREATE INDEX entities_name ON entities(name COLLATE NOCASE);
		` + undoVersion13SQL + `
		UPDATE entities SET signature = 'func ListenAndServe(addr string)' WHERE name = 'ListenAndServe';
		INSERT OR REPLACE INTO meta(key, value) VALUES ('analyzer', 'old'), ('` + MetaComplete + `', '1');
		PRAGMA user_version = 12`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, root)
	for _, table := range []string{"fts", "fts_files", "fts_files_aside"} {
		if got, want := tableColumns(t, s, table), layoutOf(table).columns(); !slices.Equal(got, want) {
			t.Errorf("upgraded from version 12: %s has columns %q, want %q", table, got, want)
		}
		var q string
		if err := s.DB().QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&q); err != nil || !strings.Contains(q, "detail=column") {
			t.Errorf("upgraded from version 12: %s (%v)", q, err)
		}
	}
	for index, key := range map[string]string{"refs_name": "ctxhash(name)", "entities_name": "ctxnamekey(name)"} {
		var ddl string
		if err := s.DB().QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, index).Scan(&ddl); err != nil || !strings.Contains(ddl, key) {
			t.Errorf("upgraded from version 12: %s is %q (%v)", index, ddl, err)
		}
	}
	for _, key := range []string{"analyzer", MetaComplete} {
		if v, err := s.Meta(ctx, key); err != nil || v != "" {
			t.Errorf("upgraded from version 12: %s %q (%v), want it forgotten", key, v, err)
		}
	}
	var sig string
	if err := s.DB().QueryRow(`SELECT signature FROM entities WHERE name = 'ListenAndServe'`).Scan(&sig); err != nil || sig != "func ListenAndServe(addr string)" {
		t.Errorf("upgraded from version 12: signature %q (%v)", sig, err)
	}
	if rows := queryStrings(t, s, `SELECT id || ' ' || kind || ' ' || coalesce(parent_id, 'none') FROM entities ORDER BY id`); !slices.Equal(rows, []string{"10 file none", "11 function 10"}) {
		t.Errorf("upgraded from version 12: entities %q", rows)
	}
	if fs, err := s.Files(ctx); err != nil || len(fs) != 1 {
		t.Errorf("upgraded from version 12: %d files (%v), want the one written", len(fs), err)
	}
}

// TestTextLayouts: the columns the writer fills and ctxrank weighs are
// the full-text tables', in their order.
func TestTextLayouts(t *testing.T) {
	s := openTest(t, t.TempDir())
	for _, table := range []string{"fts", "fts_files", "fts_files_aside"} {
		l := layoutOf(table)
		if got := tableColumns(t, s, table); !slices.Equal(got, l.columns()) {
			t.Errorf("%s has columns %q, its layout %q", table, got, l.columns())
		}
		if n, want := len(l.rankArgs(make([]float64, len(l.fields)))), 2*len(l.columns()); n != want {
			t.Errorf("%s: %d rank arguments, want a weight and a multiplicity for each of %d columns", table, n, want/2)
		}
	}
}

func layoutOf(table string) textLayout {
	if table == "fts" {
		return entityLayout
	}
	return fileLayout
}

// tableColumns are a table's columns in order.
func tableColumns(t *testing.T, s *Store, table string) []string {
	t.Helper()
	return queryStrings(t, s, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
}

// queryStrings is the rows of a query of one text column.
func queryStrings(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.DB().Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
