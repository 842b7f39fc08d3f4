package discover

import (
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/workspace"
)

// DefaultCacheSize is the seed's MAX_CACHE_SIZE.
const DefaultCacheSize = 50

// Cache is an LRU cache of parsed items keyed by absolute path; an entry is
// valid only while the file's modification time and size are unchanged. It
// is safe for concurrent use (directories are scanned in parallel). A hook
// is a short-lived process, so the cache can be saved to a file and loaded
// by the next one.
type Cache struct {
	mu    sync.Mutex
	max   int
	ll    *list.List // front = most recently used
	items map[string]*list.Element
	// dirty says the entries changed since Load or Save.
	dirty bool
}

type cacheEntry struct {
	path  string
	item  Item
	mtime time.Time
	size  int64
}

// NewCache returns a cache holding at most max items (DefaultCacheSize when
// max <= 0).
func NewCache(max int) *Cache {
	if max <= 0 {
		max = DefaultCacheSize
	}
	return &Cache{max: max, ll: list.New(), items: map[string]*list.Element{}}
}

// Get returns the item cached for path if the file still has mtime and
// size; a stale entry is dropped.
func (c *Cache) Get(path string, mtime time.Time, size int64) (Item, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[path]
	if !ok {
		return Item{}, false
	}
	e := el.Value.(*cacheEntry)
	if !e.mtime.Equal(mtime) || e.size != size {
		c.ll.Remove(el)
		delete(c.items, path)
		c.dirty = true
		return Item{}, false
	}
	c.ll.MoveToFront(el)
	return e.item, true
}

// Set stores the item parsed from path at mtime and size, evicting the
// least recently used entry beyond the cache's size.
func (c *Cache) Set(path string, it Item, mtime time.Time, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirty = true
	if el, ok := c.items[path]; ok {
		el.Value = &cacheEntry{path, it, mtime, size}
		c.ll.MoveToFront(el)
		return
	}
	c.items[path] = c.ll.PushFront(&cacheEntry{path, it, mtime, size})
	for c.ll.Len() > c.max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.items, old.Value.(*cacheEntry).path)
	}
}

// Invalidate drops path's entry.
func (c *Cache) Invalidate(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[path]; ok {
		c.ll.Remove(el)
		delete(c.items, path)
		c.dirty = true
	}
}

// Clear drops every entry.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.items)
	c.dirty = true
}

// Len returns the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// cacheFormat identifies the saved cache's layout and the analysis of its
// terms; a file of another format is ignored.
const cacheFormat = "discover-cache/1/analyzer-" + analyzer.Version

// diskEntry is a cache entry as saved.
type diskEntry struct {
	Item      Item     `json:"item"`
	Terms     []string `json:"terms"`
	NameTerms []string `json:"nameTerms"`
	MtimeNs   int64    `json:"mtimeNs"`
	Size      int64    `json:"size"`
}

type diskCache struct {
	Format  string      `json:"format"`
	Entries []diskEntry `json:"entries"` // most recently used first
}

// Load replaces the cache's entries with those saved in path. A missing
// file loads nothing; an unreadable or foreign one is an error, and the
// cache is left empty (it is rebuilt from the files).
func (c *Cache) Load(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read discovery cache %s: %w", path, err)
	}
	var dc diskCache
	if err := json.Unmarshal(data, &dc); err != nil {
		return fmt.Errorf("discovery cache %s is corrupt: %w", path, err)
	}
	if dc.Format != cacheFormat {
		return nil
	}
	c.Clear()
	for i := len(dc.Entries) - 1; i >= 0; i-- {
		e := dc.Entries[i]
		e.Item.terms, e.Item.nameTerms = e.Terms, e.NameTerms
		c.Set(e.Item.Path, e.Item, time.Unix(0, e.MtimeNs), e.Size)
	}
	c.mu.Lock()
	c.dirty = false
	c.mu.Unlock()
	return nil
}

// Save writes the cache to path atomically, if it changed since it was
// loaded or saved.
func (c *Cache) Save(path string) error {
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	dc := diskCache{Format: cacheFormat}
	for el := c.ll.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		dc.Entries = append(dc.Entries, diskEntry{Item: e.item, Terms: e.item.terms, NameTerms: e.item.nameTerms, MtimeNs: e.mtime.UnixNano(), Size: e.size})
	}
	c.dirty = false
	c.mu.Unlock()
	data, err := json.Marshal(dc)
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(path, data, workspace.FilePerm)
}
