// Package collect is the context collector of the seed's ContextCollector:
// sources register entries for a session, and one injection consumes them,
// merged in priority order, without repeating what the session already saw.
//
// Every hook call is a separate process, so the collector's state lives in
// the store (tables session_pending, session_injected, session_stats) and
// Consume runs in one write transaction: concurrent hook processes of one
// session never inject the same entry twice.
package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/store"
)

// Priority orders entries in the merged context.
type Priority int

// Priorities, most important first.
const (
	Critical Priority = iota
	High
	Normal
	Low
)

var priorityNames = [...]string{"critical", "high", "normal", "low"}

// String returns the priority's name.
func (p Priority) String() string {
	if p < Critical || p > Low {
		return "normal"
	}
	return priorityNames[p]
}

// Separator joins merged entries.
const Separator = "\n\n---\n\n"

// Entry is one piece of context from one source.
type Entry struct {
	Source   string         `json:"source"`
	ID       string         `json:"id"`
	Content  string         `json:"content"`
	Priority Priority       `json:"priority"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Fingerprint, when set, stands for Content in the per-session dedup:
	// what identifies the entry's substance, so that it is not injected
	// again when only a detail that does not matter changed (a code
	// entry's line number after an edit above it).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Covers are keys of the parts the entry carries (the members of a
	// list): once it is injected, Injected reports each of them, so that
	// the source can later send only the parts that are new.
	Covers []string `json:"covers,omitempty"`
}

// fingerprintKey and coversKey carry Entry.Fingerprint and Entry.Covers
// in the stored metadata.
const (
	fingerprintKey = "_fingerprint"
	coversKey      = "_covers"
)

// dedupHash is what the per-session dedup compares for e.
func (e Entry) dedupHash() string {
	if e.Fingerprint != "" {
		return Hash(e.Fingerprint)
	}
	return Hash(e.Content)
}

// Key is the dedup key source:id.
func (e Entry) Key() string { return e.Source + ":" + e.ID }

// Result is what Consume merged.
type Result struct {
	Merged    string
	Entries   []Entry
	DedupHits int // entries skipped because the session already saw them
	Dropped   int // entries that did not fit the budget
	// HistoryErr is ConsumePrompt's failure to record the prompt history;
	// the entries were injected all the same.
	HistoryErr error
}

// Collector is one session's collector.
type Collector struct {
	st      *store.Store
	session string
	now     func() time.Time
}

// New returns the collector of a session.
func New(st *store.Store, session string) *Collector {
	if session == "" {
		session = "default"
	}
	return &Collector{st: st, session: session, now: time.Now}
}

// Register adds entries; an entry with the key of a pending one replaces it.
func (c *Collector) Register(ctx context.Context, entries ...Entry) error {
	if len(entries) == 0 {
		return nil
	}
	// created orders the pending entries: the registration time in
	// milliseconds, times 1000, plus the entry's position in this call, so
	// that a source's entries keep the order it gave them (by relevance).
	now := c.now().UnixMilli() * 1000
	pending := make([]store.Pending, 0, len(entries))
	for i, e := range entries {
		if strings.TrimSpace(e.Content) == "" {
			continue
		}
		md := e.Metadata
		if e.Fingerprint != "" || len(e.Covers) > 0 {
			md = make(map[string]any, len(e.Metadata)+2)
			for k, v := range e.Metadata {
				md[k] = v
			}
			if e.Fingerprint != "" {
				md[fingerprintKey] = e.Fingerprint
			}
			if len(e.Covers) > 0 {
				md[coversKey] = e.Covers
			}
		}
		meta, err := json.Marshal(md)
		if err != nil {
			meta = []byte("{}")
		}
		pending = append(pending, store.Pending{Key: e.Key(), Source: e.Source, ID: e.ID, Content: e.Content,
			Priority: int(e.Priority), Metadata: string(meta), Created: now + int64(min(i, 999))})
	}
	return c.st.RegisterPending(ctx, c.session, pending)
}

// Consume takes the session's pending entries, drops those already injected
// with the same content, merges the rest in priority order (then
// registration order) within budget characters, and records them as
// injected. Pending entries are cleared either way.
func (c *Collector) Consume(ctx context.Context, budget int) (Result, error) {
	return c.consume(ctx, budget, nil)
}

// ConsumePrompt is Consume for a prompt: in the same transaction it also
// records the prompt and each entry injected for it in the session's prompt
// history (store.RecordPrompt), so that a person can see what their
// assistant was told and whether it then used it (ctxls sessions). An
// entry's file, section and relevance come from its Metadata keys "path",
// "section" and "relevance".
func (c *Collector) ConsumePrompt(ctx context.Context, budget int, prompt string) (Result, error) {
	return c.consume(ctx, budget, func(entries []Entry) store.Prompt {
		p := store.Prompt{Session: c.session, At: c.now(), Text: prompt, Injected: make([]store.Injection, 0, len(entries))}
		for _, e := range entries {
			in := store.Injection{Source: e.Source, ID: e.ID}
			in.Path, _ = e.Metadata["path"].(string)
			in.Section, _ = e.Metadata["section"].(string)
			in.Relevance, _ = e.Metadata["relevance"].(float64)
			p.Injected = append(p.Injected, in)
		}
		return p
	})
}

// consume is Consume; prompt, if set, gives the prompt history's record of
// what was injected, written before the transaction commits.
func (c *Collector) consume(ctx context.Context, budget int, prompt func([]Entry) store.Prompt) (Result, error) {
	var res Result
	tx, err := c.st.BeginConsume(ctx, c.session)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	rows, err := tx.Pending(ctx)
	if err != nil {
		return res, err
	}
	type pending struct {
		e    Entry
		seen string
	}
	all := make([]pending, 0, len(rows))
	for _, r := range rows {
		p := pending{e: Entry{Source: r.Source, ID: r.ID, Content: r.Content, Priority: Priority(r.Priority)}, seen: r.InjectedHash}
		json.Unmarshal([]byte(r.Metadata), &p.e.Metadata)
		if fp, ok := p.e.Metadata[fingerprintKey].(string); ok {
			p.e.Fingerprint = fp
			delete(p.e.Metadata, fingerprintKey)
		}
		if covers, ok := p.e.Metadata[coversKey].([]any); ok {
			for _, k := range covers {
				if k, ok := k.(string); ok {
					p.e.Covers = append(p.e.Covers, k)
				}
			}
			delete(p.e.Metadata, coversKey)
		}
		all = append(all, p)
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].e.Priority < all[b].e.Priority })
	var b strings.Builder
	now := c.now().UnixMilli()
	for _, p := range all {
		h := p.e.dedupHash()
		if p.seen == h {
			res.DedupHits++
			continue
		}
		add := len(p.e.Content)
		if b.Len() > 0 {
			add += len(Separator)
		}
		if b.Len()+add > budget {
			res.Dropped++
			continue
		}
		if b.Len() > 0 {
			b.WriteString(Separator)
		}
		b.WriteString(p.e.Content)
		res.Entries = append(res.Entries, p.e)
		if err := tx.Injected(ctx, p.e.Key(), h, now); err != nil {
			return res, err
		}
		for _, k := range p.e.Covers {
			if err := tx.Covered(ctx, k, Hash(k), now); err != nil {
				return res, err
			}
		}
	}
	if err := tx.Done(ctx, len(res.Entries), res.DedupHits, now); err != nil {
		return res, err
	}
	if prompt != nil {
		if res.HistoryErr, err = tx.RecordPrompt(ctx, prompt(res.Entries)); err != nil {
			return res, err
		}
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	res.Merged = b.String()
	return res, nil
}

// injectedHash returns the hash of what the session was given under key,
// and whether it was given anything.
func (c *Collector) injectedHash(ctx context.Context, key string) (string, bool) {
	h, ok, err := c.st.InjectedHash(ctx, c.session, key)
	return h, ok && err == nil
}

// WasInjected reports whether e, as it is now, was already injected in the
// session: Consume would drop it.
func (c *Collector) WasInjected(ctx context.Context, e Entry) bool {
	h, ok := c.injectedHash(ctx, e.Key())
	return ok && h == e.dedupHash()
}

// Injected reports whether the session was given anything under this key,
// whatever its content; sources whose rendering varies between calls (a
// relevance percentage) dedup by key with it.
func (c *Collector) Injected(ctx context.Context, key string) bool {
	_, ok := c.injectedHash(ctx, key)
	return ok
}

// Forget clears what the session was given, so that it is offered again
// (after compaction the model has lost it).
func (c *Collector) Forget(ctx context.Context) error {
	return c.st.ForgetInjected(ctx, c.session)
}

// Stats returns the session's injection and dedup counters.
func (c *Collector) Stats(ctx context.Context) (injections, dedupHits int, err error) {
	injections, dedupHits, err = c.st.InjectionStats(ctx, c.session)
	if err != nil {
		return 0, 0, nil // counters are informational
	}
	return injections, dedupHits, nil
}

// Hash identifies content for dedup.
func Hash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:12])
}
