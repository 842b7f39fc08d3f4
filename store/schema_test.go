package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// An entity's qualified name is stored only where it is not its name, and
// read back whole either way (schema version 9).
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
	check("written")
	var stored int
	if err := s.DB().QueryRow(`SELECT count(*) FROM entities WHERE qname_stored != ''`).Scan(&stored); err != nil || stored != 2 {
		t.Errorf("%d qualified names stored (%v), want 2: the constant's is its name", stored, err)
	}
}

// TestUpgradeIndexesEveryFileAgain: an index of an older version opens at
// the current one with its code tables empty, in the current layout, and
// its analysis forgotten (migrations[13]), so that the next index run, or
// a hook in the background, indexes every file again; the rows of an older
// layout cannot be renumbered in place. The chain of migrations from each
// version runs on tables of that version's layout.
func TestUpgradeIndexesEveryFileAgain(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		version int
		sql     string // from version 13's layout to the version's
	}{
		{13, ""},
		{12, undoVersion13SQL},
		{10, `DROP INDEX refs_dst; CREATE INDEX refs_dst ON refs(dst_id, src_id) WHERE dst_id IS NOT NULL;` + undoVersion13SQL},
		{9, `DROP INDEX refs_dst; CREATE INDEX refs_dst ON refs(dst_id) WHERE dst_id IS NOT NULL;` + undoVersion13SQL},
		{8, undoQNameSQL + undoVersion13SQL},
		{6, `ALTER TABLE files DROP COLUMN class;` + undoQNameSQL + undoVersion13SQL},
	} {
		root := t.TempDir()
		s := openTest(t, root)
		putFile(t, s, sampleFile("a.go", 10))
		if err := s.SetMeta(ctx, MetaComplete, "1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().Exec(version13SQL + c.sql + fmt.Sprintf(`PRAGMA user_version = %d`, c.version)); err != nil {
			t.Fatalf("version %d: %v", c.version, err)
		}
		s.Close()
		s = openTest(t, root)
		for _, table := range []string{"files", "entities", "refs"} {
			if n := queryStrings(t, s, `SELECT count(*) FROM `+table); n[0] != "0" {
				t.Errorf("upgraded from version %d: %s rows in %s, want none", c.version, n[0], table)
			}
		}
		if got := queryStrings(t, s, `SELECT name FROM pragma_table_info('entities') WHERE pk`); !slices.Equal(got, []string{"seq"}) {
			t.Errorf("upgraded from version %d: entities keyed by %q, want seq", c.version, got)
		}
		if got := queryStrings(t, s, `SELECT name FROM sqlite_master WHERE name IN ('refs_src', 'entities_seq')`); len(got) > 0 {
			t.Errorf("upgraded from version %d: %q left", c.version, got)
		}
		for _, key := range []string{"analyzer", MetaComplete} {
			if v, err := s.Meta(ctx, key); err != nil || v != "" {
				t.Errorf("upgraded from version %d: %s %q (%v), want it forgotten", c.version, key, v, err)
			}
		}
		putFile(t, s, sampleFile("a.go", 10))
		if refs, err := s.RefsFrom(ctx, 11); err != nil || len(refs) != 1 {
			t.Errorf("upgraded from version %d: references of the function %+v (%v)", c.version, refs, err)
		}
		s.Close()
	}
}

// version13SQL turns the code tables of a new index back into version 13's
// layout (entities keyed by id, numbered by seq; references found by
// source through refs_src) and writes sampleFile("a.go", 10) into them.
const version13SQL = `DROP TABLE refs; DROP TABLE entities;
	CREATE TABLE entities (
		id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, parent_stored INTEGER, kind_stored TEXT NOT NULL,
		name TEXT NOT NULL, qname_stored TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
		signature_stored TEXT NOT NULL DEFAULT '', doc TEXT NOT NULL DEFAULT '', seq INTEGER NOT NULL,
		qname TEXT GENERATED ALWAYS AS (iif(qname_stored = '', name, qname_stored)) VIRTUAL,
		signature TEXT GENERATED ALWAYS AS (replace(signature_stored, char(1), name)) VIRTUAL,
		kind TEXT GENERATED ALWAYS AS (iif(kind_stored = '1', 'file', iif(kind_stored = '8', 'function', kind_stored))) VIRTUAL,
		parent_id INTEGER GENERATED ALWAYS AS (
			iif(parent_stored IS NULL, iif(id = file_id, NULL, file_id), nullif(parent_stored, 0))) VIRTUAL);
	CREATE UNIQUE INDEX entities_seq ON entities(seq);
	CREATE TABLE refs (src_id INTEGER NOT NULL, kind INTEGER NOT NULL, name TEXT NOT NULL,
		qualifier TEXT NOT NULL DEFAULT '', line INTEGER NOT NULL, dst_id INTEGER);
	CREATE INDEX refs_src ON refs(src_id);
	CREATE INDEX refs_dst ON refs(dst_id, src_id, kind) WHERE dst_id IS NOT NULL;
	INSERT INTO entities(id, file_id, parent_stored, kind_stored, name, qname_stored, start_line, end_line, signature_stored, seq)
		VALUES (10, 10, NULL, '1', 'a.go', 'a.go', 1, 9, '', 1), (11, 10, NULL, '8', 'ListenAndServe', 'http.ListenAndServe', 2, 5, 'func ' || char(1) || '()', 2);
	INSERT INTO refs(src_id, kind, name, line) VALUES (11, 1, 'Serve', 3);
	`

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
