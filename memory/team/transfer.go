package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/teamcache"
)

// ImportReport says what an import moved and what it left, and why.
type ImportReport struct {
	From     memory.Scope     `json:"from"`
	Memories int              `json:"memories"`
	Edges    int              `json:"edges"`
	Skipped  []memory.Skipped `json:"skipped"`
}

// Import copies a file scope of ms into the enterprise database in one
// transaction: every memory with its file as written (timestamps, unknown
// frontmatter keys and dangling links kept) and every graph edge with its
// label and time; a link to a memory the database already had becomes an
// edge pair, as a Write's does. Memories that break the seed's rules, or whose slug the
// database already has, are skipped and reported, never half-written; run
// `ctxls memory import` into a file scope first to normalise a plugin
// store.
func (s *Store) Import(ctx context.Context, ms *memory.Store, from memory.Scope) (*ImportReport, error) {
	if from == memory.Enterprise {
		return nil, errors.New("import: the source must be a file scope (local, project or global)")
	}
	mems, skipped, err := ms.Scan(ctx, from)
	if err != nil {
		return nil, err
	}
	g, err := ms.Graph(from)
	if err != nil {
		return nil, err
	}
	rep := &ImportReport{From: from, Skipped: skipped}
	now := s.now()
	// Inserted in one order (by slug): two imports of the same memories
	// wait for each other's inserts in that order, never in a cycle.
	mems = slices.SortedFunc(slices.Values(mems), func(a, b *memory.Memory) int { return strings.Compare(a.Slug, b.Slug) })
	named := make([]string, 0, len(mems))
	for _, m := range mems {
		named = append(named, m.Slug)
		named = append(named, m.Links...)
	}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		// The memories the rows name, before any other lock (writeTx):
		// a memory being deleted or renamed keeps its linkers still while
		// it is (lockWithLinkers). The edges join only rows this inserts.
		if _, err := s.lockRows(ctx, tx, named); err != nil {
			return err
		}
		in := map[string]bool{}
		for _, m := range mems {
			if err := memory.Validate(m, now); err != nil {
				rep.Skipped = append(rep.Skipped, memory.Skipped{Path: m.Path, Reason: err.Error()})
				continue
			}
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE project = $1 AND slug = $2)`, s.project, m.Slug).Scan(&exists); err != nil {
				return err
			}
			if exists {
				rep.Skipped = append(rep.Skipped, memory.Skipped{Path: m.Path, Reason: fmt.Sprintf("slug %q already exists in the enterprise scope", m.Slug)})
				continue
			}
			c := *m
			c.Scope = memory.Enterprise
			if err := s.insert(ctx, tx, &c, 1); err != nil {
				return err
			}
			in[m.Slug] = true
			rep.Memories++
		}
		for _, src := range sortedKeys(g.Adj) {
			for _, e := range g.Adj[src] {
				if !in[src] || !in[e.Target] {
					continue
				}
				at, err := memory.ParseTime(e.Timestamp)
				if err != nil {
					at = now
				}
				tag, err := tx.Exec(ctx, `INSERT INTO edges (project, source, target, label, created) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
					s.project, src, e.Target, e.Label, at)
				if err != nil {
					return fmt.Errorf("import edge %s -[%s]-> %s: %w", src, e.Label, e.Target, explain(err))
				}
				rep.Edges += int(tag.RowsAffected())
			}
		}
		// A link to a memory the database already had becomes an edge in
		// both directions, mirrored in that memory's links, as a Write's
		// does: otherwise only the imported side would name it. Both rows
		// are locked above (named).
		for _, m := range mems {
			if !in[m.Slug] {
				continue
			}
			for _, l := range m.Links {
				if in[l] || l == m.Slug {
					continue
				}
				var exists bool
				if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE project = $1 AND slug = $2)`, s.project, l).Scan(&exists); err != nil {
					return err
				}
				if !exists {
					continue // a dangling link stays in the frontmatter, as in a file scope
				}
				switch err := s.link(ctx, tx, m.Slug, l, memory.DefaultLabel, now); {
				case err == nil:
					rep.Edges += 2
				case !errors.Is(err, memory.ErrDuplicateLink):
					return err
				}
			}
		}
		return s.notify(ctx, tx, "")
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// ExportReport says what an export wrote.
type ExportReport struct {
	Dir      string `json:"dir"`
	Memories int    `json:"memories"`
	Edges    int    `json:"edges"`
}

// Export writes the enterprise scope as a file scope into dir: one
// <slug>.md per memory, as stored (a scope key in its frontmatter names
// as, the scope the files are for), and graph.json in the seed's format
// (index.json is rebuilt from the files when the directory is opened as a
// scope). Files are written atomically; existing memory files of the same
// slug are replaced.
func (s *Store) Export(ctx context.Context, dir string, as memory.Scope) (*ExportReport, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	rep := &ExportReport{Dir: dir}
	var nodes []memory.Node
	var g *memory.Graph
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT slug FROM memories WHERE project = $1 ORDER BY slug`, s.project)
		if err != nil {
			return err
		}
		slugs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, sl := range slugs {
			rec, err := s.get(ctx, tx, sl, false)
			if err != nil {
				return err
			}
			rec.Scope = as
			data, err := memory.Marshal(rec.Memory)
			if err != nil {
				return err
			}
			if err := workspace.WriteFileAtomic(filepath.Join(dir, sl+".md"), data, 0o644); err != nil {
				return err
			}
			nodes = append(nodes, memory.Node{ID: sl, Title: rec.Title, Type: string(rec.Type)})
			rep.Memories++
		}
		g = memory.NewGraph()
		rows, err = tx.Query(ctx, `SELECT source, target, label, created FROM edges WHERE project = $1 ORDER BY source, created, target, label`, s.project)
		if err != nil {
			return err
		}
		var src, tgt, label string
		var at time.Time
		_, err = pgx.ForEachRow(rows, []any{&src, &tgt, &label, &at}, func() error {
			g.Adj[src] = append(g.Adj[src], memory.Edge{Target: tgt, Label: label, Timestamp: memory.FormatTime(at)})
			rep.Edges++
			return nil
		})
		return err
	})
	if err != nil {
		return nil, classify(err)
	}
	data, err := g.Marshal(nodes)
	if err != nil {
		return nil, err
	}
	if err := workspace.WriteFileAtomic(filepath.Join(dir, "graph.json"), append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return rep, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RefreshCache brings the local read cache in dir (package teamcache) in
// step with the database, from one snapshot; on failure the cache keeps
// its content and records the failure, so readers mark it stale.
func (s *Store) RefreshCache(ctx context.Context, dir string) (teamcache.State, error) {
	var recs []*Record
	var g *memory.Graph
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		if recs, err = s.all(ctx, tx); err != nil {
			return err
		}
		g, err = s.graph(ctx, tx)
		return err
	})
	if err != nil {
		err = classify(err)
		teamcache.MarkFailed(ctx, dir, err, s.now())
		return teamcache.State{}, err
	}
	mems := make([]*memory.Memory, len(recs))
	for i, r := range recs {
		mems[i] = r.Memory
	}
	return teamcache.Refresh(ctx, dir, mems, g, s.now())
}
