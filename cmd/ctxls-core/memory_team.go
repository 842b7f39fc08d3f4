package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/team"
	"github.com/ctxls/ctxls/memory/teamcache"
)

// teamConnectTimeout bounds how long a memory command waits to reach the
// enterprise database before it reports the outage.
const teamConnectTimeout = 10 * time.Second

// teamConfig is the workspace's memory.enterprise configuration; ok is
// false when the enterprise scope is not on PostgreSQL.
func (f *memoryCmd) teamConfig() (config.Enterprise, bool, error) {
	root, err := resolveRoot(f.root)
	if err != nil {
		return config.Enterprise{}, false, err
	}
	cfg, err := config.Load(root)
	if err != nil {
		return config.Enterprise{}, false, err
	}
	e := cfg.Memory.Enterprise
	return e, e.Postgres(), nil
}

// teamOn reports whether the enterprise scope is on PostgreSQL.
func (f *memoryCmd) teamOn() bool {
	_, ok, err := f.teamConfig()
	return ok && err == nil
}

// openTeam connects to the enterprise database. The DSN is never printed:
// errors say what failed, not where.
func (f *memoryCmd) openTeam(ctx context.Context) (*team.Store, error) {
	e, ok, err := f.teamConfig()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("the enterprise scope is not on PostgreSQL: set memory.enterprise.backend: postgres in .ctxls/config.yaml or ~/.config/ctxls/config.yaml")
	}
	if f.ts != nil {
		return f.ts, nil
	}
	cctx, cancel := context.WithTimeout(ctx, teamConnectTimeout)
	defer cancel()
	ts, err := team.Open(cctx, team.Options{DSN: e.ResolvedDSN(), Schema: e.SchemaName(), Project: e.Project})
	if err != nil {
		if errors.Is(err, team.ErrUnreachable) {
			// Readers of the local cache now mark it stale.
			if root, rerr := resolveRoot(f.root); rerr == nil {
				teamcache.MarkFailed(ctx, config.EnterpriseCacheDir(root), err, time.Now())
			}
			return nil, fmt.Errorf("%w\nnothing was read or written; the file scopes still work (--scope project)", err)
		}
		return nil, err
	}
	f.ts = ts
	return ts, nil
}

// closeTeam refreshes the workspace's local read cache of the enterprise
// scope when this command wrote to it or the cache is stale, and closes
// the connection openTeam made, if any. A failed refresh is recorded in
// the cache, whose readers then mark what it answers stale.
func (f *memoryCmd) closeTeam() {
	if f.ts == nil {
		return
	}
	defer func() { f.ts.Close(); f.ts = nil }()
	root, err := resolveRoot(f.root)
	if err != nil {
		return
	}
	dir := config.EnterpriseCacheDir(root)
	if st, _ := teamcache.ReadState(dir); f.teamWrote || st.Stale(time.Now()) {
		ctx, cancel := context.WithTimeout(context.Background(), teamConnectTimeout)
		defer cancel()
		f.ts.RefreshCache(ctx, dir)
	}
}

// onTeam reports whether a command for scope sc goes to the database.
func (f *memoryCmd) onTeam(sc memory.Scope) bool { return sc == memory.Enterprise && f.teamOn() }

func (f *memoryCmd) write(ctx context.Context, ms *memory.Store, m *memory.Memory) error {
	if !f.onTeam(m.Scope) {
		return ms.Write(ctx, m)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return err
	}
	_, err = ts.Write(ctx, m)
	f.teamWrote = err == nil
	return err
}

func (f *memoryCmd) get(ctx context.Context, ms *memory.Store, sc memory.Scope, slug string) (*memory.Memory, error) {
	if !f.onTeam(sc) {
		m, err := ms.Get(ctx, sc, slug)
		if sc != "" || !errors.Is(err, memory.ErrNotFound) || !f.teamOn() {
			return m, err
		}
		// Not in a file scope: the enterprise scope is searched last.
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return nil, err
	}
	rec, err := ts.Get(ctx, slug)
	if err != nil {
		return nil, err
	}
	return rec.Memory, nil
}

// fileText is a memory's file: read from disk, or rendered from the
// database for the enterprise scope.
func (f *memoryCmd) fileText(m *memory.Memory) ([]byte, error) {
	if m.Scope == memory.Enterprise && f.teamOn() {
		return memory.Marshal(m)
	}
	return os.ReadFile(m.Path)
}

// update changes a memory. In the database, the change is made to the
// version read here (the editor, if any, runs before any lock is taken)
// or to --version; a memory changed meanwhile is a conflict, not a lost
// update.
func (f *memoryCmd) update(ctx context.Context, ms *memory.Store, sc memory.Scope, slug string, fn func(*memory.Memory) error) (*memory.Memory, error) {
	if !f.onTeam(sc) {
		return ms.Update(ctx, sc, slug, fn)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return nil, err
	}
	rec, err := ts.Get(ctx, slug)
	if err != nil {
		return nil, err
	}
	version := f.version
	if version == 0 {
		version = rec.Version
	}
	edited := *rec.Memory
	if err := fn(&edited); err != nil {
		return nil, err
	}
	f.teamWrote = true
	out, err := ts.Update(ctx, slug, version, func(m *memory.Memory) error {
		m.Type, m.Title, m.Tags, m.Severity = edited.Type, edited.Title, edited.Tags, edited.Severity
		m.Files, m.Links, m.Content = edited.Files, edited.Links, edited.Content
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Memory, nil
}

func (f *memoryCmd) delete(ctx context.Context, ms *memory.Store, sc memory.Scope, slug string) error {
	if !f.onTeam(sc) {
		return ms.Delete(ctx, sc, slug)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return err
	}
	f.teamWrote = true
	return ts.Delete(ctx, slug, f.version)
}

// rename changes a memory's slug; in the database, in one transaction
// that a concurrent rename of the same memory cannot interleave with.
func (f *memoryCmd) rename(ctx context.Context, ms *memory.Store, sc memory.Scope, from, to string) error {
	if !f.onTeam(sc) {
		return ms.Rename(ctx, sc, from, to)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return err
	}
	f.teamWrote = true
	return ts.Rename(ctx, from, to, f.version)
}

func (f *memoryCmd) link(ctx context.Context, ms *memory.Store, sc memory.Scope, from, to, label string, add bool) error {
	if !f.onTeam(sc) {
		if add {
			return ms.Link(ctx, sc, from, to, label)
		}
		return ms.Unlink(ctx, sc, from, to, label)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return err
	}
	f.teamWrote = true
	if add {
		return ts.Link(ctx, from, to, label)
	}
	return ts.Unlink(ctx, from, to, label)
}

func (f *memoryCmd) graph(ctx context.Context, ms *memory.Store, sc memory.Scope) (*memory.Graph, error) {
	if !f.onTeam(sc) {
		return ms.Graph(sc)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return nil, err
	}
	return ts.Graph(ctx)
}

func (f *memoryCmd) health(ctx context.Context, ms *memory.Store, sc memory.Scope) (*memory.HealthReport, error) {
	if !f.onTeam(sc) {
		return ms.Health(ctx, sc)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return nil, err
	}
	return ts.Health(ctx, ms.Config().Quality)
}

// list is ms.List, or the database's memories as index entries.
func (f *memoryCmd) list(ctx context.Context, ms *memory.Store, sc memory.Scope) ([]memory.IndexEntry, error) {
	if !f.onTeam(sc) {
		return ms.List(ctx, sc)
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return nil, err
	}
	sums, err := ts.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]memory.IndexEntry, len(sums))
	for i, s := range sums {
		out[i] = memory.IndexEntry{Slug: s.Slug, Title: s.Title, Type: s.Type, Tags: s.Tags, FilePath: s.Path, Severity: s.Severity,
			Created: memory.FormatTime(s.Created), Updated: memory.FormatTime(s.Updated)}
	}
	return out, nil
}

// withTeam adds the enterprise scope to scopes when it is on PostgreSQL
// and no --scope narrowed them.
func (f *memoryCmd) withTeam(scopes []memory.Scope) []memory.Scope {
	if f.scope == "" && f.teamOn() && !containsScope(scopes, memory.Enterprise) {
		scopes = append(scopes, memory.Enterprise)
	}
	return scopes
}

func containsScope(scopes []memory.Scope, sc memory.Scope) bool {
	for _, s := range scopes {
		if s == sc {
			return true
		}
	}
	return false
}

// search is ms.Search, merged with the database's hits when the query
// reaches the enterprise scope; both score with BM25F over the same
// analyzer terms, so their scores are merged as they are.
func (f *memoryCmd) search(ctx context.Context, ms *memory.Store, q memory.Query) ([]memory.Hit, error) {
	var hits []memory.Hit
	if !(len(q.Scopes) == 1 && f.onTeam(q.Scopes[0])) {
		if _, err := ms.Sync(ctx); err != nil {
			return nil, err
		}
		h, err := ms.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		hits = h
	}
	if !f.teamOn() || len(q.Scopes) > 0 && !containsScope(q.Scopes, memory.Enterprise) {
		return hits, nil
	}
	ts, err := f.openTeam(ctx)
	if err != nil {
		return nil, err
	}
	th, err := ts.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	hits = append(hits, th...)
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
	if limit := max(q.Limit, 1); len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// importTeam moves memories into the enterprise database: from a file
// scope named by src, or from a memory store directory, normalised first
// in a temporary workspace exactly as an import into a file scope is.
func (f *memoryCmd) importTeam(cmd *cobra.Command, ms *memory.Store, src string) error {
	ctx := cmd.Context()
	ts, err := f.openTeam(ctx)
	if err != nil {
		return err
	}
	from, serr := memory.ParseScope(src)
	if serr != nil || from == memory.Enterprise {
		abs, err := filepath.Abs(src)
		if err != nil {
			return err
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return usagef("import into the enterprise scope: %s is neither a file scope (local, project, global) nor a directory", src)
		}
		tmp, err := os.MkdirTemp("", "ctxls-import-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if ms, err = memory.Open(memory.Options{Root: tmp, Home: tmp}); err != nil {
			return err
		}
		r, err := ms.Import(ctx, abs, memory.Project)
		if err != nil {
			return err
		}
		for _, s := range r.Skipped {
			fmt.Fprintf(cmd.OutOrStdout(), "  not imported: %s (%s)\n", s.Path, s.Reason)
		}
		from = memory.Project
	}
	f.teamWrote = true
	r, err := ts.Import(ctx, ms, from)
	if err != nil {
		return err
	}
	if f.asJSON {
		if r.Skipped == nil {
			r.Skipped = []memory.Skipped{} // empty top-level lists are [] (docs/json.md)
		}
		return writeJSON(cmd.OutOrStdout(), r)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "imported %d memories and %d edges into the enterprise scope (schema %s)\n", r.Memories, r.Edges, ts.Schema())
	for _, s := range r.Skipped {
		fmt.Fprintf(cmd.OutOrStdout(), "  not imported: %s (%s)\n", s.Path, s.Reason)
	}
	return nil
}

func newMemoryExportCmd() *cobra.Command {
	var f memoryCmd
	var as string
	cmd := &cobra.Command{
		Use:   "export --scope enterprise DIR",
		Short: "Write the enterprise scope's memories and graph as files (a file scope) into DIR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.scope != string(memory.Enterprise) {
				return usagef("export writes the enterprise scope: pass --scope enterprise (file scopes are files already)")
			}
			asScope, err := memory.ParseScope(as)
			if err != nil {
				return usagef("--as: %v", err)
			}
			ts, err := f.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer f.closeTeam()
			dir, err := filepath.Abs(args[0])
			if err != nil {
				return err
			}
			r, err := ts.Export(cmd.Context(), dir, asScope)
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %d memories and %d edges to %s\n", r.Memories, r.Edges, r.Dir)
			return nil
		},
	}
	f.flags(cmd, "the scope to export: enterprise")
	cmd.Flags().StringVar(&as, "as", string(memory.Project), "the scope the files are for (their frontmatter's scope key)")
	return cmd
}

// teamBody gives the body of a hit of the enterprise scope on PostgreSQL,
// which has no file to read it from, for re-ranking with embeddings; nil
// when the scope is not on PostgreSQL.
func (f *memoryCmd) teamBody(ctx context.Context) func(memory.Hit) (string, bool) {
	if !f.teamOn() {
		return nil
	}
	return func(h memory.Hit) (string, bool) {
		if h.Scope != memory.Enterprise {
			return "", false
		}
		ts, err := f.openTeam(ctx)
		if err != nil {
			return "", false
		}
		rec, err := ts.Get(ctx, h.Slug)
		if err != nil {
			return "", false
		}
		return rec.Memory.Content, true
	}
}

// rebuildTeam is rebuild for the enterprise scope on PostgreSQL: the
// database is the truth, so the local read cache is written again from it
// (re-indexed for search by the next read), and the report counts what the
// database holds and what its graph check finds.
func (f *memoryCmd) rebuildTeam(ctx context.Context, sc memory.Scope) (memory.RebuildReport, error) {
	ts, err := f.openTeam(ctx)
	if err != nil {
		return memory.RebuildReport{}, err
	}
	root, err := resolveRoot(f.root)
	if err != nil {
		return memory.RebuildReport{}, err
	}
	if _, err := ts.RefreshCache(ctx, config.EnterpriseCacheDir(root)); err != nil {
		return memory.RebuildReport{}, fmt.Errorf("rebuild the enterprise scope's local cache: %w", err)
	}
	sums, err := ts.List(ctx)
	if err != nil {
		return memory.RebuildReport{}, err
	}
	rep := memory.RebuildReport{Scope: sc, Memories: len(sums), Skipped: []memory.Skipped{}}
	g, err := ts.Graph(ctx)
	if err != nil {
		return rep, err
	}
	known := make(map[string]bool, len(sums))
	for _, m := range sums {
		known[m.Slug] = true
	}
	rep.Graph = g.Check(func(slug string) bool { return known[slug] })
	return rep, nil
}
