package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/pgtest"
	"github.com/ctxls/ctxls/memory"
)

var pg pgtest.Package

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

var nonIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// schemaFor is a fresh schema name per test, so tests share the server
// but never rows.
func schemaFor(t testing.TB) string {
	s := "t_" + nonIdent.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

func openTeam(t testing.TB, schema string) *Store {
	t.Helper()
	srv := pg.Need(t)
	s, err := Open(context.Background(), Options{DSN: srv.DSN, Schema: schema, Project: "acme/app"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func newMem(slug string, typ memory.Type, tags ...string) *memory.Memory {
	return &memory.Memory{Slug: slug, Type: typ, Title: "About " + slug, Tags: tags, Content: "Content of " + slug + ".\n"}
}

func TestMigrationsRunOnceUnderConcurrentOpens(t *testing.T) {
	srv := pg.Need(t)
	schema := schemaFor(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, Options{DSN: srv.DSN, Schema: schema})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(ctx, srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, v int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM `+schema+`.schema_migrations`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != len(migrations) || v != SchemaVersion() {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d up to %d", n, v, len(migrations), SchemaVersion())
	}
	// A database migrated by a newer ctxls is refused, not written.
	if _, err := conn.Exec(ctx, `INSERT INTO `+schema+`.schema_migrations (version, name) VALUES (999, 'future')`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{DSN: srv.DSN, Schema: schema}); !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "999") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

func TestWriteGetAndValidation(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	m := newMem("gotcha-flock-needs-a-file", memory.Gotcha, "locking", "files")
	m.Severity, m.Files = "high", []string{"memory/store.go"}
	m.Content = "flock locks an open file; keep the descriptor.\n"
	v, err := s.Write(ctx, m)
	if err != nil || v != 1 {
		t.Fatalf("Write = %d, %v", v, err)
	}
	got, err := s.Get(ctx, m.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != m.Title || got.Type != memory.Gotcha || got.Severity != "high" || !slices.Equal(got.Tags, m.Tags) ||
		!slices.Equal(got.Files, m.Files) || got.Content != m.Content || got.Version != 1 || got.Scope != memory.Enterprise ||
		!got.Created.Equal(m.Created.Truncate(1e6)) || len(got.Problems) != 0 {
		t.Fatalf("Get = %+v (problems %v), wrote %+v", got.Memory, got.Problems, m)
	}
	if _, err := s.Write(ctx, newMem(m.Slug, memory.Gotcha, "x")); !errors.Is(err, memory.ErrExists) {
		t.Fatalf("second write of a slug: %v", err)
	}
	for _, tt := range []struct {
		name string
		m    *memory.Memory
		want string
	}{
		{"50,001 characters", &memory.Memory{Slug: "learning-big", Type: memory.Learning, Title: "Big", Tags: []string{"x"}, Content: strings.Repeat("a", memory.MaxContent+1)}, "at most 50000"},
		{"slug that escapes", &memory.Memory{Slug: "../../etc/passwd", Type: memory.Learning, Title: "Escape", Tags: []string{"x"}}, "slug"},
		{"file outside the workspace", &memory.Memory{Slug: "learning-out", Type: memory.Learning, Title: "Out", Tags: []string{"x"}, Files: []string{"../secret"}}, "without \"..\""},
		{"no tags", &memory.Memory{Slug: "learning-untagged", Type: memory.Learning, Title: "Untagged"}, "tags"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Write(ctx, tt.m); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write = %v, want an error about %q", err, tt.want)
			}
		})
	}
	// Exactly 50,000 characters is allowed and comes back whole.
	big := &memory.Memory{Slug: "learning-big", Type: memory.Learning, Title: "Big", Tags: []string{"x"}, Content: strings.Repeat("é", memory.MaxContent-1) + "\n"}
	if _, err := s.Write(ctx, big); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "learning-big"); err != nil || got.Content != big.Content {
		t.Fatalf("50,000-character memory: %v", err)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %v, %v; want the 2 valid memories", list, err)
	}
	if _, err := s.Get(ctx, "learning-untagged"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("an invalid memory was stored: %v", err)
	}
}

func TestGraphBothDirectionsWithInverseLabels(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	for _, sl := range []string{"decision-oauth2", "learning-token-refresh", "hub-auth"} {
		if _, err := s.Write(ctx, newMem(sl, memory.Decision, "auth")); err != nil {
			t.Fatal(err)
		}
	}
	// Links given at write time become relates-to edges to existing
	// memories; a link to a missing one stays in the frontmatter.
	w := newMem("artifact-login-form", memory.Artifact, "auth")
	w.Links = []string{"hub-auth", "nowhere"}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := s.Link(ctx, "decision-oauth2", "learning-token-refresh", "implements"); err != nil {
		t.Fatal(err)
	}
	if err := s.Link(ctx, "decision-oauth2", "learning-token-refresh", "implements"); !errors.Is(err, memory.ErrDuplicateLink) {
		t.Fatalf("duplicate link: %v", err)
	}
	if err := s.Link(ctx, "decision-oauth2", "nowhere", ""); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("link to a missing memory: %v", err)
	}
	if err := s.Link(ctx, "hub-auth", "hub-auth", ""); !errors.Is(err, memory.ErrSelfLink) {
		t.Fatalf("self link: %v", err)
	}
	g, err := s.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Has("decision-oauth2", "learning-token-refresh", "implements") || !g.Has("learning-token-refresh", "decision-oauth2", "implemented-by") {
		t.Fatalf("graph = %v, want implements and implemented-by", g.Adj)
	}
	if !g.Has("artifact-login-form", "hub-auth", "relates-to") || !g.Has("hub-auth", "artifact-login-form", "relates-to") {
		t.Fatalf("graph = %v, want the write's relates-to pair", g.Adj)
	}
	if issues := g.Check(nil); len(issues) > 0 {
		t.Fatalf("graph issues: %v", issues)
	}
	got, _ := s.Get(ctx, "artifact-login-form")
	if !slices.Equal(got.Links, []string{"hub-auth", "nowhere"}) {
		t.Fatalf("links = %v", got.Links)
	}
	if err := s.Unlink(ctx, "learning-token-refresh", "decision-oauth2", "implemented-by"); err != nil {
		t.Fatal(err)
	}
	if err := s.Unlink(ctx, "learning-token-refresh", "decision-oauth2", ""); !errors.Is(err, memory.ErrNoLink) {
		t.Fatalf("second unlink: %v", err)
	}
	// Deleting a memory takes its edges in both directions.
	if err := s.Delete(ctx, "hub-auth", 0); err != nil {
		t.Fatal(err)
	}
	g, _ = s.Graph(ctx)
	if len(g.Adj) != 0 {
		t.Fatalf("graph after unlink and delete = %v", g.Adj)
	}
}

func TestUpdateNamesTheVersionItRead(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	for _, sl := range []string{"decision-cache", "learning-ttl"} {
		if _, err := s.Write(ctx, newMem(sl, memory.Decision, "cache")); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := s.Get(ctx, "decision-cache")
	b, _ := s.Get(ctx, "decision-cache")
	up, err := s.Update(ctx, "decision-cache", a.Version, func(m *memory.Memory) error {
		m.Content = "first writer\n"
		m.Links = append(m.Links, "learning-ttl")
		return nil
	})
	if err != nil || up.Version != 2 || !slices.Equal(up.Links, []string{"learning-ttl"}) {
		t.Fatalf("first update = %+v, %v", up, err)
	}
	_, err = s.Update(ctx, "decision-cache", b.Version, func(m *memory.Memory) error { m.Content = "second writer\n"; return nil })
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("stale update = %v, want a conflict naming the version", err)
	}
	if err := s.Delete(ctx, "decision-cache", b.Version); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale delete = %v", err)
	}
	got, _ := s.Get(ctx, "decision-cache")
	if got.Content != "first writer\n" || got.Version != 2 {
		t.Fatalf("after the conflict: %q v%d", got.Content, got.Version)
	}
	g, _ := s.Graph(ctx)
	if !g.Has("learning-ttl", "decision-cache", "relates-to") {
		t.Fatalf("link added by update is not mirrored: %v", g.Adj)
	}
	// Removing the link in an update removes both directions.
	if _, err := s.Update(ctx, "decision-cache", 2, func(m *memory.Memory) error { m.Links = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.Graph(ctx); len(g.Adj) != 0 {
		t.Fatalf("graph after the link was removed: %v", g.Adj)
	}
	// An invalid update writes nothing.
	if _, err := s.Update(ctx, "decision-cache", 0, func(m *memory.Memory) error { m.Tags = nil; return nil }); err == nil {
		t.Fatal("update removing every tag succeeded")
	}
	if got, _ := s.Get(ctx, "decision-cache"); got.Version != 3 || len(got.Tags) == 0 {
		t.Fatalf("invalid update changed the memory: v%d %v", got.Version, got.Tags)
	}
}

// Many writers at once (goroutines on separate connections here; the CLI
// test runs processes): every memory and edge is present and the graph is
// consistent.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	srv := pg.Need(t)
	ctx := context.Background()
	const writers, each = 8, 25
	if _, err := s.Write(ctx, newMem("hub-shared", memory.Hub, "load")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, err := Open(ctx, Options{DSN: srv.DSN, Schema: s.Schema(), Project: "acme/app", MaxConns: 1})
			if err != nil {
				errs <- err
				return
			}
			defer ws.Close()
			for i := range each {
				sl := fmt.Sprintf("learning-w%d-n%d", w, i)
				if _, err := ws.Write(ctx, newMem(sl, memory.Learning, "load")); err != nil {
					errs <- err
					return
				}
				if err := ws.Link(ctx, sl, "hub-shared", "part-of"); err != nil {
					errs <- err
					return
				}
				// Everyone also updates the shared hub, naming the
				// version read; conflicts are retried, none lost.
				for {
					h, err := ws.Get(ctx, "hub-shared")
					if err != nil {
						errs <- err
						return
					}
					_, err = ws.Update(ctx, "hub-shared", h.Version, func(m *memory.Memory) error { m.Content += sl + "\n"; return nil })
					if errors.Is(err, ErrConflict) {
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	list, _ := s.List(ctx)
	if len(list) != writers*each+1 {
		t.Fatalf("%d memories, want %d", len(list), writers*each+1)
	}
	g, _ := s.Graph(ctx)
	if n := len(g.Adj["hub-shared"]); n != writers*each {
		t.Fatalf("hub has %d edges, want %d", n, writers*each)
	}
	exists := func(sl string) bool {
		return slices.ContainsFunc(list, func(x memory.Summary) bool { return x.Slug == sl })
	}
	if issues := g.Check(exists); len(issues) > 0 {
		t.Fatalf("graph issues: %v", issues[:min(5, len(issues))])
	}
	hub, _ := s.Get(ctx, "hub-shared")
	if lines := strings.Count(hub.Content, "\n"); lines != writers*each+1 || hub.Version != writers*each+1 {
		t.Fatalf("hub has %d lines at version %d: an update was lost", lines, hub.Version)
	}
}

func TestProjectsDoNotMeet(t *testing.T) {
	srv := pg.Need(t)
	schema := schemaFor(t)
	ctx := context.Background()
	a := openTeam(t, schema)
	b, err := Open(ctx, Options{DSN: srv.DSN, Schema: schema, Project: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.Write(ctx, newMem("decision-shared-name", memory.Decision, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write(ctx, newMem("decision-shared-name", memory.Decision, "y")); err != nil {
		t.Fatalf("same slug in another project: %v", err)
	}
	if hits, _ := b.Search(ctx, memory.Query{Text: "shared name"}); len(hits) != 1 || hits[0].Tags[0] != "y" {
		t.Fatalf("project other sees %v", hits)
	}
}

func TestBadConnections(t *testing.T) {
	srv := pg.Need(t)
	ctx := context.Background()
	const secret = "s3cr3t-passw0rd"
	for _, tt := range []struct {
		name, dsn string
		want      error
	}{
		{"malformed", "postgres://u:" + secret + "@127.0.0.1:notaport/db", nil},
		{"nothing listens", fmt.Sprintf("postgres://u:%s@127.0.0.1:1/db?connect_timeout=2", secret), ErrUnreachable},
		{"unknown database", strings.Replace(srv.DSN, "/postgres?", "/nosuchdb?", 1) + "&password=" + secret, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(ctx, Options{DSN: tt.dsn})
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error shows the password: %v", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// A role that may read but not write (the hooks' role) opens a migrated
// schema, reads, and gets a clear refusal on write.
func TestReaderRole(t *testing.T) {
	srv := pg.Need(t)
	schema := schemaFor(t)
	ctx := context.Background()
	w := openTeam(t, schema)
	if _, err := w.Write(ctx, newMem("decision-readable", memory.Decision, "x")); err != nil {
		t.Fatal(err)
	}
	dsn := readerRole(t, srv.DSN, schema, "ctxls_reader_test")
	r, err := Open(ctx, Options{DSN: dsn, Schema: schema, Project: "acme/app"})
	if err != nil {
		t.Fatalf("reader open: %v", err)
	}
	defer r.Close()
	if hits, err := r.Search(ctx, memory.Query{Text: "readable"}); err != nil || len(hits) != 1 {
		t.Fatalf("reader search = %v, %v", hits, err)
	}
	_, err = r.Write(ctx, newMem("decision-not-allowed", memory.Decision, "x"))
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "TEAM-MEMORY") {
		t.Fatalf("reader write = %v, want a permission error pointing at the docs", err)
	}
}

func TestHealth(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	a := newMem("decision-a", memory.Decision, "x", "y")
	a.Links = []string{"decision-missing"}
	for _, m := range []*memory.Memory{a, newMem("decision-b", memory.Decision, "x")} {
		if _, err := s.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Link(ctx, "decision-a", "decision-b", "builds-on"); err != nil {
		t.Fatal(err)
	}
	r, err := s.Health(ctx, memory.DefaultConfig().Quality)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 2 || len(r.GraphIssues) != 0 || len(r.BrokenLinks) != 1 || r.BrokenLinks[0].To != "decision-missing" || r.Healthy() {
		t.Fatalf("health = %+v", r)
	}
}

// The roles of docs/TEAM-MEMORY.md, as written there: a writer granted
// only the schema creates the tables and writes; a reader reads what the
// writer made and may not write.
func TestDocumentedRoles(t *testing.T) {
	srv := pg.Need(t)
	ctx := context.Background()
	dsn, err := srv.CreateDatabase(ctx, "team_memory")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`CREATE SCHEMA ctxls`,
		`CREATE ROLE ctxls_writer LOGIN`,
		`GRANT USAGE, CREATE ON SCHEMA ctxls TO ctxls_writer`,
		`CREATE ROLE ctxls_reader LOGIN`,
		`GRANT USAGE ON SCHEMA ctxls TO ctxls_reader`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE ctxls_writer IN SCHEMA ctxls GRANT SELECT ON TABLES TO ctxls_reader`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	as := func(role string) string { return strings.Replace(dsn, "postgres@", role+"@", 1) }
	w, err := Open(ctx, Options{DSN: as("ctxls_writer")})
	if err != nil {
		t.Fatalf("writer open (creates the tables): %v", err)
	}
	defer w.Close()
	if _, err := w.Write(ctx, newMem("decision-documented", memory.Decision, "x")); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, Options{DSN: as("ctxls_reader")})
	if err != nil {
		t.Fatalf("reader open: %v", err)
	}
	defer r.Close()
	if _, err := r.Get(ctx, "decision-documented"); err != nil {
		t.Fatalf("reader get: %v", err)
	}
	if _, err := r.Write(ctx, newMem("decision-reader", memory.Decision, "x")); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("reader write: %v", err)
	}
}

// Two machines rename the same memory at once, each through its own
// connection: one wins, the other gets a clear not-found error, and the
// memory, its terms, its edges and the links to it all follow the winner.
func TestConcurrentRenamesOfOneMemory(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	srv := pg.Need(t)
	ctx := context.Background()
	for round := range 5 {
		from, hub := fmt.Sprintf("gotcha-flaky-lock-%d", round), fmt.Sprintf("hub-locks-%d", round)
		g := newMem(from, memory.Gotcha, "locking")
		g.Content = "Hold the descriptor open while the flock is held.\n"
		if _, err := s.Write(ctx, g); err != nil {
			t.Fatal(err)
		}
		h := newMem(hub, memory.Hub, "locking")
		h.Links = []string{from}
		if _, err := s.Write(ctx, h); err != nil {
			t.Fatal(err)
		}
		targets := []string{from + "-a", from + "-b"}
		errs := make([]error, len(targets))
		var start, wg sync.WaitGroup
		start.Add(1)
		for i, to := range targets {
			ms, err := Open(ctx, Options{DSN: srv.DSN, Schema: s.Schema(), Project: "acme/app", MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer ms.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				start.Wait()
				errs[i] = ms.Rename(ctx, from, to, 0)
			}()
		}
		start.Done()
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won == -1:
				won = i
			case err == nil:
				t.Fatalf("round %d: both renames succeeded", round)
			case !errors.Is(err, memory.ErrNotFound) || !strings.Contains(err.Error(), "another writer"):
				t.Fatalf("round %d: the losing rename's error is not the clear one: %v", round, err)
			}
		}
		if won == -1 {
			t.Fatalf("round %d: neither rename succeeded: %v", round, errs)
		}
		to, lost := targets[won], targets[1-won]
		got, err := s.Get(ctx, to)
		if err != nil || got.Memory.Content != g.Content || got.Memory.Slug != to {
			t.Fatalf("round %d: renamed memory %s: %v %+v", round, to, err, got)
		}
		for _, gone := range []string{from, lost} {
			if _, err := s.Get(ctx, gone); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("round %d: %s still readable: %v", round, gone, err)
			}
		}
		if hb, _ := s.Get(ctx, hub); !slices.Equal(hb.Links, []string{to}) {
			t.Fatalf("round %d: hub links %v, want [%s]", round, hb.Links, to)
		}
		gr, _ := s.Graph(ctx)
		if !gr.Has(hub, to, "relates-to") || !gr.Has(to, hub, "relates-to") || len(gr.Adj[from]) != 0 {
			t.Fatalf("round %d: graph %v", round, gr.Adj)
		}
		hits, err := s.Search(ctx, memory.Query{Text: "descriptor flock"})
		found := slices.ContainsFunc(hits, func(h memory.Hit) bool { return h.Slug == to })
		stale := slices.ContainsFunc(hits, func(h memory.Hit) bool { return h.Slug == from || h.Slug == lost })
		if err != nil || !found || stale {
			t.Fatalf("round %d: search after the rename finds %s: %v, an old slug: %v (%v)", round, to, found, stale, err)
		}
	}
	// A slug already taken, and a stale version, change nothing.
	if _, err := s.Write(ctx, newMem("gotcha-other", memory.Gotcha, "locking")); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename(ctx, "gotcha-other", "hub-locks-0", 0); !errors.Is(err, memory.ErrExists) {
		t.Fatalf("rename onto a taken slug: %v", err)
	}
	if err := s.Rename(ctx, "gotcha-other", "gotcha-renamed", 7); !errors.Is(err, ErrConflict) {
		t.Fatalf("rename at a stale version: %v", err)
	}
	if _, err := s.Get(ctx, "gotcha-other"); err != nil {
		t.Fatalf("after the refused renames: %v", err)
	}
}
