package session

import (
	"context"
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
)

// memories gives hover the memories attached to a file. Syncing writes
// to the index (its write lock may be held by an index run for a long
// time), so it runs on its own goroutine; a hover reads what the index
// already holds.
type memories struct {
	f *Folder

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

// attached returns the memories attached to the file at rel, as the index
// holds them; nil when there are none or the memory store cannot be read.
func (m *memories) attached(ctx context.Context, rel string) []memory.Hit {
	ms := m.store()
	if ms == nil {
		return nil
	}
	hits, err := ms.Attached(ctx, rel)
	if err != nil {
		return nil
	}
	return hits
}
