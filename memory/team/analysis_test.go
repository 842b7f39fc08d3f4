package team

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/memory"
)

// exec runs statements on a connection of its own (the test's superuser).
func exec(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
}

// readerRole makes a role that may read schema's tables and nothing more,
// as docs/TEAM-MEMORY.md grants the hooks' role, and returns its DSN.
func readerRole(t *testing.T, dsn, schema, role string) string {
	t.Helper()
	exec(t, dsn,
		`DROP ROLE IF EXISTS `+role,
		`CREATE ROLE `+role+` LOGIN`,
		`GRANT USAGE ON SCHEMA `+schema+` TO `+role,
		`GRANT SELECT ON ALL TABLES IN SCHEMA `+schema+` TO `+role)
	return strings.Replace(dsn, "postgres@", role+"@", 1)
}

func hitCount(t *testing.T, s *Store, text string) int {
	t.Helper()
	hits, err := s.Search(context.Background(), memory.Query{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits)
}

func TestTermsFollowTheAnalyzer(t *testing.T) {
	srv := pg.Need(t)
	schema := schemaFor(t)
	ctx := context.Background()
	s := openTeam(t, schema)
	m := newMem("decision-owner-notified", memory.Decision, "mail")
	m.Content = "We notify the owner of every change.\n"
	if _, err := s.Write(ctx, m); err != nil {
		t.Fatal(err)
	}
	if n := hitCount(t, s, "notification"); n != 1 {
		t.Fatalf("search of a fresh write: %d hits", n)
	}
	// Terms as an older analyzer wrote them: "notify" was "notifi".
	term, _ := analyzer.Term("notify")
	stale := func(version string) {
		exec(t, srv.DSN,
			`UPDATE `+schema+`.terms SET term = 'notifi' WHERE term = '`+term+`'`,
			`UPDATE `+schema+`.analyzers SET version = '`+version+`'`)
	}
	stale("17")
	if n := hitCount(t, s, "notification"); n != 0 {
		t.Fatalf("the stale terms still match (%d hits): the test proves nothing", n)
	}
	again := openTeam(t, schema)
	if n := hitCount(t, again, "notification"); n != 1 {
		t.Errorf("after an Open by a writer: %d hits, want the terms written again", n)
	}
	// A newer ctxls's terms are not rewritten back.
	stale("999")
	if n := hitCount(t, openTeam(t, schema), "notification"); n != 0 {
		t.Errorf("terms of a newer analyzer were rewritten (%d hits)", n)
	}
}

func TestReaderOpensASchemaNotYetUpgraded(t *testing.T) {
	srv := pg.Need(t)
	schema := schemaFor(t)
	ctx := context.Background()
	w := openTeam(t, schema)
	if _, err := w.Write(ctx, newMem("decision-readable", memory.Decision, "x")); err != nil {
		t.Fatal(err)
	}
	// The schema as the previous release left it.
	exec(t, srv.DSN,
		`DROP TABLE `+schema+`.analyzers`,
		`DELETE FROM `+schema+`.schema_migrations WHERE version >= `+strconv.Itoa(analysesFrom))
	dsn := readerRole(t, srv.DSN, schema, "ctxls_reader_old")
	r, err := Open(ctx, Options{DSN: dsn, Schema: schema, Project: "acme/app"})
	if err != nil {
		t.Fatalf("a reader of a schema one version old: %v", err)
	}
	defer r.Close()
	if r.Version() != analysesFrom-1 {
		t.Errorf("reader opened version %d, want %d", r.Version(), analysesFrom-1)
	}
	if n := hitCount(t, r, "readable"); n != 1 {
		t.Errorf("reader search: %d hits", n)
	}
	// The next writer upgrades it.
	if v := openTeam(t, schema).Version(); v != SchemaVersion() {
		t.Errorf("writer opened version %d, want %d", v, SchemaVersion())
	}
}
