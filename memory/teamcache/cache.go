// Package teamcache is the local read cache of an enterprise memory scope
// kept in PostgreSQL: the scope's memories as a file scope in
// .ctxls/enterprise-cache/, so that hooks, the language server and the MCP
// server read team memories the way they read every other scope, from
// files and the workspace's full-text index, and never wait on the
// network. It is written by whoever talks to the database (the memory
// commands after a write, the daemon on a change notification) and is
// bounded: the most recently updated memories are kept.
package teamcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/memory"
)

// Limit is the most memories the cache keeps (decision 0097): a team
// store larger than this keeps its most recently updated ones locally.
const Limit = 5000

// StaleAfter is how old the last successful refresh may be before what
// the cache answers is marked stale (decision 0097).
const StaleAfter = 15 * time.Minute

// statePath records the last refresh. It and the lock live beside the
// directory, not in it: a file renamed into the directory changes its
// time, which makes every reader's index sync walk the scope again.
func statePath(dir string) string { return filepath.Clean(dir) + ".state.json" }

func lockPath(dir string) string { return filepath.Clean(dir) + ".lock" }

// State is what the last refresh recorded.
type State struct {
	// Synced is the time of the last successful refresh.
	Synced time.Time `json:"synced"`
	// Memories is how many memories it wrote; Dropped how many it left
	// out for Limit.
	Memories int `json:"memories"`
	Dropped  int `json:"dropped,omitempty"`
	// Failed is the time and reason of the last failed refresh after
	// Synced, if any.
	Failed time.Time `json:"failed,omitzero"`
	Error  string    `json:"error,omitempty"`
}

// Stale reports whether the cache's answers are out of date at now: never
// refreshed, refreshed longer than StaleAfter ago, or the last refresh
// failed.
func (s State) Stale(now time.Time) bool {
	return s.Synced.IsZero() || now.Sub(s.Synced) > StaleAfter || s.Failed.After(s.Synced)
}

// ReadState reads the cache's state; a missing cache has the zero State.
func ReadState(dir string) (State, error) {
	var st State
	data, err := os.ReadFile(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("enterprise cache state %s: %w", dir, err)
	}
	return st, nil
}

// lock holds the cache's lock: refreshes from several processes must not
// interleave their files.
func lock(ctx context.Context, dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("enterprise cache: %w", err)
	}
	lk := flock.New(lockPath(dir))
	ok, err := lk.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil || !ok {
		return nil, fmt.Errorf("lock enterprise cache %s: %w", dir, errors.Join(err, ctx.Err()))
	}
	return func() { lk.Unlock() }, nil
}

// Refresh makes the cache hold mems (the whole scope, as read from the
// database in one snapshot) and their graph: the Limit most recently
// updated memories as <slug>.md files, rewritten only when their text
// changed (so the index's sync reads only what changed), files of
// memories no longer there removed, graph.json restricted to the kept
// memories, and the state recorded.
func Refresh(ctx context.Context, dir string, mems []*memory.Memory, g *memory.Graph, now time.Time) (State, error) {
	return refresh(ctx, dir, mems, g, now, Limit)
}

func refresh(ctx context.Context, dir string, mems []*memory.Memory, g *memory.Graph, now time.Time, limit int) (State, error) {
	unlock, err := lock(ctx, dir)
	if err != nil {
		return State{}, err
	}
	defer unlock()
	sorted := slices.Clone(mems)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Updated.After(sorted[b].Updated) })
	st := State{Synced: now}
	if len(sorted) > limit {
		st.Dropped = len(sorted) - limit
		sorted = sorted[:limit]
	}
	keep := map[string]bool{}
	changed := false
	var nodes []memory.Node
	ix := memory.NewIndex()
	for _, m := range sorted {
		data, err := memory.Marshal(m)
		if err != nil {
			return State{}, err
		}
		path := filepath.Join(dir, m.Slug+".md")
		if old, err := os.ReadFile(path); err != nil || string(old) != string(data) {
			if err := workspace.WriteFileAtomic(path, data, 0o600); err != nil {
				return State{}, err
			}
			changed = true
		}
		keep[m.Slug+".md"] = true
		nodes = append(nodes, memory.Node{ID: m.Slug, Title: m.Title, Type: string(m.Type)})
		ix.Memories[m.Slug] = memory.IndexEntry{Slug: m.Slug, Title: m.Title, Type: m.Type, Tags: nonNil(m.Tags), FilePath: path,
			Severity: m.Severity, Created: memory.FormatTime(m.Created), Updated: memory.FormatTime(m.Updated)}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return State{}, err
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".md") && !keep[n] {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return State{}, err
			}
			changed = true
		}
	}
	kept := memory.NewGraph()
	for src, edges := range g.Adj {
		for _, e := range edges {
			if keep[src+".md"] && keep[e.Target+".md"] {
				kept.Adj[src] = append(kept.Adj[src], e)
			}
		}
	}
	data, err := kept.Marshal(nodes)
	if err != nil {
		return State{}, err
	}
	data = append(data, '\n')
	if old, err := os.ReadFile(filepath.Join(dir, "graph.json")); err != nil || string(old) != string(data) {
		if err := workspace.WriteFileAtomic(filepath.Join(dir, "graph.json"), data, 0o600); err != nil {
			return State{}, err
		}
		changed = true
	}
	// An unchanged scope is not touched at all, so that its readers'
	// index sync finds nothing to do.
	if _, err := os.Stat(filepath.Join(dir, "index.json")); changed || err != nil {
		if data, err = ix.Marshal(dir, memory.Enterprise, now); err != nil {
			return State{}, err
		}
		if err := workspace.WriteFileAtomic(filepath.Join(dir, "index.json"), append(data, '\n'), 0o600); err != nil {
			return State{}, err
		}
	}
	st.Memories = len(sorted)
	return st, writeState(dir, st)
}

// MarkFailed records a failed refresh: the cache keeps answering, marked
// stale, until a refresh succeeds.
func MarkFailed(ctx context.Context, dir string, cause error, now time.Time) error {
	unlock, err := lock(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := ReadState(dir)
	if err != nil {
		st = State{}
	}
	st.Failed, st.Error = now, cause.Error()
	return writeState(dir, st)
}

func writeState(dir string, st State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(statePath(dir), append(data, '\n'), 0o600)
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}
