package team

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/pgtest"
	"github.com/ctxls/ctxls/memory"
)

// privateDatabase creates a database for one test, so that the server's
// statistics of it (pg_stat_database) count that test's transactions
// only, and returns its name and DSN. It is dropped when the test ends.
func privateDatabase(t *testing.T, srv *pgtest.Server) (name, dsn string) {
	t.Helper()
	ctx := context.Background()
	name = schemaFor(t)
	dsn, err := srv.CreateDatabase(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(ctx, srv.DSN); err == nil {
			c.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
			c.Close(ctx)
		}
	})
	return name, dsn
}

// deadlocks is the server's count of deadlocks in db (pgtest.Deadlocks:
// close the connections to it first).
func deadlocks(t *testing.T, srv *pgtest.Server, db string) int64 {
	t.Helper()
	n, err := srv.Deadlocks(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Writers that lock the same memories lock them in one order (writeTx), so
// the server never has a deadlock to break, even when every kind of write
// meets every other on the same rows: updates adding links from either
// end, links and unlinks from either end, and writes, renames, updates and
// deletes of memories linked to those. Without the order, the server
// detects dozens of deadlocks in this workload (decision 0097). The graph
// ends consistent and nothing is lost: every link made is there in both
// directions and in both memories' links, every update's line is in the
// content, every memory deleted is gone from every links column.
func TestConcurrentWritersNeverDeadlock(t *testing.T) {
	srv := pg.Need(t)
	ctx := context.Background()
	db, dsn := privateDatabase(t, srv)
	schema := schemaFor(t)
	s, err := Open(ctx, Options{DSN: dsn, Schema: schema, Project: "acme/app"})
	if err != nil {
		t.Fatal(err)
	}
	bases := make([]string, 6)
	for i := range bases {
		bases[i] = fmt.Sprintf("decision-base-%d", i)
		if _, err := s.Write(ctx, newMem(bases[i], memory.Decision, "locks")); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if n := deadlocks(t, srv, db); n != 0 {
		t.Fatalf("a new database has %d deadlocks", n)
	}

	const workers, rounds = 8, 12
	// What each worker did, to check afterwards.
	type kept struct {
		slug  string
		links []string
	}
	type outcome struct {
		updates map[string]int // lines added to each base
		pairs   [][2]string    // relates-to links added by Update
		kept    []kept         // renamed memories not deleted
		gone    []string       // slugs that must exist no more
		errs    []error
		aborted int64
	}
	out := make([]outcome, workers)
	var start, wg sync.WaitGroup
	start.Add(1)
	for w := range workers {
		ws, err := Open(ctx, Options{DSN: dsn, Schema: schema, Project: "acme/app", MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ws.Close()
			o := &out[w]
			o.updates = map[string]int{}
			defer func() { o.aborted = ws.Aborted() }()
			rng := rand.New(rand.NewPCG(uint64(w), 21))
			fail := func(err error) bool {
				if err != nil {
					o.errs = append(o.errs, err)
				}
				return err != nil
			}
			line := func(i int) string { return fmt.Sprintf("worker %d round %d\n", w, i) }
			start.Wait()
			for i := range rounds {
				p := rng.Perm(len(bases))
				x, y := bases[p[0]], bases[p[1]]
				// Update(x) links y while another worker's Update(y)
				// links x: each locks its own row, then the other's.
				_, err := ws.Update(ctx, x, 0, func(m *memory.Memory) error {
					m.Links = append(m.Links, y)
					m.Content += line(i)
					return nil
				})
				if fail(err) {
					continue
				}
				o.updates[x]++
				o.pairs = append(o.pairs, [2]string{x, y})
				// Link and unlink from either end; another worker may
				// have made or removed the same edge first.
				if err := ws.Link(ctx, y, x, "builds-on"); !errors.Is(err, memory.ErrDuplicateLink) && fail(err) {
					continue
				}
				if err := ws.Unlink(ctx, x, y, "foundation-for"); !errors.Is(err, memory.ErrNoLink) && fail(err) {
					continue
				}
				// A memory linked to two bases at birth, renamed
				// (rewriting both bases' links), then sometimes unlinked
				// from one by updating the base, and deleted (rewriting
				// the bases' links again) or kept.
				a, b := bases[p[2]], bases[p[3]]
				tmp := fmt.Sprintf("learning-w%d-r%d", w, i)
				m := newMem(tmp, memory.Learning, "locks")
				m.Links = []string{a, b}
				if _, err := ws.Write(ctx, m); fail(err) {
					continue
				}
				renamed := tmp + "-renamed"
				if fail(ws.Rename(ctx, tmp, renamed, 0)) {
					continue
				}
				o.gone = append(o.gone, tmp)
				links := []string{a, b}
				if i%3 == 0 {
					_, err := ws.Update(ctx, a, 0, func(m *memory.Memory) error {
						m.Links = slices.DeleteFunc(m.Links, func(l string) bool { return l == renamed })
						m.Content += line(i)
						return nil
					})
					if fail(err) {
						continue
					}
					o.updates[a]++
					links = []string{b}
				}
				if i%2 == 0 {
					if fail(ws.Delete(ctx, renamed, 0)) {
						continue
					}
					o.gone = append(o.gone, renamed)
					continue
				}
				o.kept = append(o.kept, kept{renamed, links})
			}
		}()
	}
	began := time.Now()
	start.Done()
	wg.Wait()
	elapsed := time.Since(began)

	var aborted int64
	for _, o := range out {
		aborted += o.aborted
	}
	detected := deadlocks(t, srv, db)
	t.Logf("%d workers x %d rounds in %v: the server detected %d deadlocks; %d transactions aborted as victims", workers, rounds,
		elapsed.Round(time.Millisecond), detected, aborted)
	if detected != 0 || aborted != 0 {
		t.Errorf("the server detected %d deadlocks and aborted %d writes: the writes do not lock in one order", detected, aborted)
	}
	for w, o := range out {
		for _, err := range o.errs[:min(3, len(o.errs))] {
			t.Errorf("worker %d: %v", w, err)
		}
	}
	if t.Failed() {
		return
	}

	// The graph is consistent and holds every link made.
	s, err = Open(ctx, Options{DSN: dsn, Schema: schema, Project: "acme/app"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recs, err := s.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byslug := map[string]*Record{}
	for _, r := range recs {
		byslug[r.Slug] = r
	}
	g, err := s.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(sl string) bool { return byslug[sl] != nil }
	if issues := g.Check(exists); len(issues) > 0 {
		t.Fatalf("graph issues: %v", issues[:min(5, len(issues))])
	}
	// links mirror the edges, both ways (every link here names a memory
	// that exists, so none may stay without its edge).
	for _, r := range recs {
		var nb []string
		for _, e := range g.Adj[r.Slug] {
			if !slices.Contains(nb, e.Target) {
				nb = append(nb, e.Target)
			}
		}
		slices.Sort(nb)
		if have := slices.Sorted(slices.Values(r.Links)); !slices.Equal(have, nb) {
			t.Errorf("%s: links %v, edges to %v", r.Slug, have, nb)
		}
	}
	wantN := len(bases)
	lines := map[string]int{}
	for _, o := range out {
		for _, pr := range o.pairs {
			if !g.Has(pr[0], pr[1], memory.DefaultLabel) || !g.Has(pr[1], pr[0], memory.DefaultLabel) {
				t.Errorf("the link %s - %s made by an update is missing", pr[0], pr[1])
			}
		}
		for _, k := range o.kept {
			wantN++
			if !exists(k.slug) {
				t.Errorf("%s is lost", k.slug)
				continue
			}
			if have := slices.Sorted(slices.Values(byslug[k.slug].Links)); !slices.Equal(have, slices.Sorted(slices.Values(k.links))) {
				t.Errorf("%s links %v, want %v", k.slug, have, k.links)
			}
		}
		for _, sl := range o.gone {
			if exists(sl) {
				t.Errorf("%s was renamed or deleted but is still there", sl)
			}
		}
		for sl, n := range o.updates {
			lines[sl] += n
		}
	}
	if len(recs) != wantN {
		t.Errorf("%d memories, want %d", len(recs), wantN)
	}
	// Every update's line is there: an update whose memory changed
	// between its unlocked read and its lock ran its function again on
	// the memory as locked.
	for _, sl := range bases {
		if n := strings.Count(byslug[sl].Content, "\n"); n != 1+lines[sl] {
			t.Errorf("%s has %d lines, want %d: an update was lost", sl, n, 1+lines[sl])
		}
	}
}

// Update locks the rows its function's links name, so it runs the function
// before taking any lock, on the memory as read, and again on the memory
// as locked if another writer changed it in between. Here the other
// writer's change is made from inside the first run, the moment that
// window is open: nothing it did is lost, a stale version is still a
// conflict, and a link it added that the function then removes is
// unlinked, the update starting over to lock it.
func TestUpdateRunsItsFunctionAgainOnAChangedMemory(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, sl := range []string{"decision-a", "decision-b", "decision-c", "decision-d"} {
		if _, err := s.Write(ctx, newMem(sl, memory.Decision, "locks")); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name    string
		slug    string
		stale   bool                                      // name the version read before the change
		meddle  func(slug string) error                   // the other writer's change
		edit    func(m *memory.Memory)                    // the update's change
		check   func(rec *Record, g *memory.Graph) string // what must hold after
		wantErr error
		calls   int // runs of the function
	}{
		{
			name:   "content changed meanwhile",
			slug:   "decision-a",
			meddle: func(slug string) error { return appendLine(ctx, s, slug, "other writer\n") },
			edit:   func(m *memory.Memory) { m.Content += "this update\n"; m.Links = append(m.Links, "decision-b") },
			check: func(rec *Record, g *memory.Graph) string {
				if !strings.Contains(rec.Content, "other writer\n") || !strings.HasSuffix(rec.Content, "this update\n") || rec.Version != 3 {
					return fmt.Sprintf("content %q at version %d, want both lines at version 3", rec.Content, rec.Version)
				}
				if !g.Has("decision-a", "decision-b", memory.DefaultLabel) || !g.Has("decision-b", "decision-a", memory.DefaultLabel) {
					return fmt.Sprintf("graph %v lacks a - b", g.Adj)
				}
				return ""
			},
			calls: 2,
		},
		{
			name:    "stale version",
			slug:    "decision-a",
			stale:   true,
			meddle:  func(slug string) error { return appendLine(ctx, s, slug, "other writer again\n") },
			edit:    func(m *memory.Memory) { m.Content += "lost update\n" },
			wantErr: ErrConflict,
			check: func(rec *Record, g *memory.Graph) string {
				if strings.Contains(rec.Content, "lost update") {
					return "the stale update was written"
				}
				return ""
			},
			calls: 1,
		},
		{
			name:   "link added meanwhile, removed by the update",
			slug:   "decision-c",
			meddle: func(slug string) error { return s.Link(ctx, slug, "decision-d", "") },
			edit:   func(m *memory.Memory) { m.Links = nil },
			check: func(rec *Record, g *memory.Graph) string {
				if len(rec.Links) != 0 || len(g.Adj["decision-c"]) != 0 || len(g.Adj["decision-d"]) != 0 {
					return fmt.Sprintf("links %v, graph %v: the link made meanwhile stayed", rec.Links, g.Adj)
				}
				return ""
			},
			// Run on the memory read, again on the memory locked (its
			// links name decision-d, not locked: start over), and on
			// the memory read at the second start.
			calls: 3,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := s.Get(ctx, tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			version := int64(0)
			if tt.stale {
				version = rec.Version
			}
			calls := 0
			_, err = s.Update(ctx, tt.slug, version, func(m *memory.Memory) error {
				calls++
				if calls == 1 {
					if err := tt.meddle(tt.slug); err != nil {
						return fmt.Errorf("the other writer: %w", err)
					}
				}
				tt.edit(m)
				return nil
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Update = %v, want %v", err, tt.wantErr)
			}
			if calls != tt.calls {
				t.Errorf("the function ran %d times, want %d", calls, tt.calls)
			}
			got, err := s.Get(ctx, tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			g, err := s.Graph(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(got, g); msg != "" {
				t.Fatal(msg)
			}
			if issues := g.Check(nil); len(issues) > 0 {
				t.Fatalf("graph issues: %v", issues)
			}
		})
	}
}

// appendLine is another writer's update of slug.
func appendLine(ctx context.Context, s *Store, slug, line string) error {
	_, err := s.Update(ctx, slug, 0, func(m *memory.Memory) error { m.Content += line; return nil })
	return err
}
