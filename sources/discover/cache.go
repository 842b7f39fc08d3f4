package discover

import (
	"container/list"
	"sync"
	"time"
)

// DefaultCacheSize is the seed's MAX_CACHE_SIZE.
const DefaultCacheSize = 50

// Cache is an LRU cache of parsed items keyed by absolute path; an entry is
// valid only while the file's modification time and size are unchanged. It
// is safe for concurrent use (directories are scanned in parallel).
type Cache struct {
	mu    sync.Mutex
	max   int
	ll    *list.List // front = most recently used
	items map[string]*list.Element
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
	}
}

// Clear drops every entry.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.items)
}

// Len returns the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
