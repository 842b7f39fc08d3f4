package server

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// Freshness of the memories in the index, as the hooks keep it
// (sources/memory.go): a full stat of every memory file only when a memory
// directory changed or the last sync is older than memory.SyncAge; and the
// check itself at most every memoryCheckEvery, off the hover's path.
const (
	memoryCheckEvery = 2 * time.Second
	maxHoverMemories = 5
)

// memories gives hover the memories attached to a file. Syncing writes
// to the index (its write lock may be held by an index run for a long
// time), so it runs on its own goroutine; a hover reads what the index
// already holds.
type memories struct {
	f *folder

	mu      sync.Mutex
	ms      *memory.Store
	st      *store.Store // the index ms was opened on
	checked time.Time
	syncing bool
}

// store returns the memory store on the folder's current index, and starts
// a freshness check when one is due.
func (m *memories) store() *memory.Store {
	st := m.f.store()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ms == nil || m.st != st {
		ms, err := memory.Open(memory.Options{Root: m.f.root, Index: st})
		if err != nil {
			m.f.log.Debug("memory store", zap.Error(err))
			return nil
		}
		m.ms, m.st, m.checked = ms, st, time.Time{}
	}
	if !m.syncing && time.Since(m.checked) >= memoryCheckEvery && m.f.ctx.Err() == nil {
		m.syncing, m.checked = true, time.Now()
		ms := m.ms
		m.f.wg.Add(1)
		go func() {
			defer m.f.wg.Done()
			ctx, cancel := context.WithTimeout(m.f.ctx, 30*time.Second)
			defer cancel()
			if _, err := ms.SyncIfChanged(ctx, memory.SyncAge); err != nil && ctx.Err() == nil {
				m.f.log.Debug("memory sync", zap.Error(err))
			}
			m.mu.Lock()
			m.syncing = false
			m.mu.Unlock()
		}()
	}
	return m.ms
}

// hoverMemories lists the memories attached to the hovered entity's file:
// gotchas first (by severity), one line each.
func hoverMemories(ctx context.Context, f *folder, t *hoverTarget) string {
	ms := f.memories.store()
	if ms == nil {
		return ""
	}
	hits, err := ms.Attached(ctx, t.path)
	if err != nil || len(hits) == 0 {
		return ""
	}
	sort.SliceStable(hits, func(i, j int) bool {
		gi, gj := hits[i].Type == memory.Gotcha, hits[j].Type == memory.Gotcha
		if gi != gj {
			return gi
		}
		if gi && severityRank(hits[i].Severity) != severityRank(hits[j].Severity) {
			return severityRank(hits[i].Severity) > severityRank(hits[j].Severity)
		}
		return hits[i].Relevance > hits[j].Relevance
	})
	var b strings.Builder
	fmt.Fprintf(&b, "**Memories** (%d):", len(hits))
	for i, h := range hits {
		if i == maxHoverMemories {
			fmt.Fprintf(&b, "\n- … %d more: `ctxls memory list`", len(hits)-i)
			break
		}
		label := string(h.Type)
		if h.Type == memory.Gotcha {
			label = "⚠ gotcha"
			if h.Severity != "" {
				label += " (" + h.Severity + ")"
			}
		}
		fmt.Fprintf(&b, "\n- %s: %s `%s`", label, oneLine(h.Title, 120), h.Slug)
	}
	return b.String()
}

func severityRank(s string) int {
	switch s {
	case "critical":
		return 4
	case "high":
		return 3
	case "medium":
		return 2
	case "low":
		return 1
	}
	return 0
}

// oneLine collapses whitespace and cuts s to at most n bytes on a rune
// boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
