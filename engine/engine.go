// Package engine is the seed's ContextInjectionEngine: it turns editor
// activity (a file opened, symbols edited, a hover, a selection) and messages
// into weighted triggers, keeps a short memory of recent triggers so that the
// context stays continuous, retrieves with the active and recently edited
// files as graph seeds, and writes the live auto-context to
// <root>/.ctxls/auto-context.md and .json, debounced and atomically.
//
// One Engine serves one workspace root. The language server feeds it; the
// MCP server can read the same files or run its own Engine over the store.
package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// ActivityType is what the person did in the editor.
type ActivityType string

// Activity types of the ctxls/activity notification: the types retrieval's
// editor policy turns into triggers.
const (
	FileOpen    ActivityType = retrieval.ActFileOpen
	FileEdit    ActivityType = retrieval.ActFileEdit
	FileClose   ActivityType = retrieval.ActFileClose
	SymbolHover ActivityType = retrieval.ActSymbolHover
	Selection   ActivityType = retrieval.ActSelection
	// VisibleRange is code scrolled into view: weaker than a selection.
	VisibleRange ActivityType = retrieval.ActVisibleRange
)

// Valid reports whether t is one of the known activity types.
func (t ActivityType) Valid() bool {
	switch t {
	case FileOpen, FileEdit, FileClose, SymbolHover, Selection, VisibleRange:
		return true
	}
	return false
}

// Activity is one editor event.
type Activity struct {
	Type ActivityType
	// Path is relative to the root, slash-separated.
	Path string
	// ChangedSymbols names the declarations an edit touched.
	ChangedSymbols []string
	// Line is 1-based; 0 when unknown. For an edit, the first changed line.
	Line int
	// Symbol is the identifier under the cursor (hover).
	Symbol string
	// Text is the selected text.
	Text string
	At   time.Time
}

// Buffers gives the engine the editor's open documents, so that the
// context shows open files as they are in the editor, not as they were
// indexed (decision 0095): retrieval's, which renders the Editing section
// from them.
type Buffers = retrieval.Buffers

// Options configure an Engine.
type Options struct {
	Root  string
	Store *store.Store
	// Config supplies the retrieval budget.
	Config config.Config
	// Debounce is the quiet time after activity before the context is
	// rewritten; 0 rewrites after every activity (coalescing what arrives
	// while a rewrite runs).
	Debounce time.Duration
	Buffers  Buffers
	Log      *zap.Logger
	// OnWrite, if set, is called after each auto-context write.
	OnWrite func(*Snapshot)
	// OnError, if set, is called after a rewrite failed (the error is
	// logged): the server sets a damaged index aside with it.
	OnError func(error)
	// Session tags recorded activity; empty for the editor.
	Session string
	// Settings are the editor's initial settings; nil is DefaultSettings.
	Settings *Settings
}

// Settings are the editor's overrides of the workspace configuration
// (the extension's settings, docs/decisions/0044): applied over
// .ctxls/config.yaml for as long as the editor is connected.
type Settings struct {
	// Enabled false stops rewriting the auto-context files.
	Enabled bool
	// MaxTokens is the context budget; 0 keeps retrieval.maxTokens.
	MaxTokens int
	// MinRelevance is the relevance gate in [0, 1]; negative keeps
	// retrieval.minRelevance.
	MinRelevance float64
	Triggers     Triggers
}

// Triggers say which activity and message evidence become triggers: the
// switches of retrieval's editor policy.
type Triggers = retrieval.EditorSwitches

// DefaultSettings are the settings of an editor that sent none: everything
// on, the configuration's budget and gate.
func DefaultSettings() Settings {
	return Settings{Enabled: true, MinRelevance: -1, Triggers: retrieval.AllSwitches()}
}

// Snapshot is one computed auto-context: the content of auto-context.json.
type Snapshot struct {
	Root       string              `json:"root"`
	Generated  time.Time           `json:"generated"`
	ActiveFile string              `json:"activeFile"`
	Why        []string            `json:"why"`
	Triggers   []analyzer.Trigger  `json:"triggers"`
	Markdown   string              `json:"markdown"`
	Sections   []retrieval.Section `json:"sections"`
	Tokens     int                 `json:"tokens"`
	Bytes      int                 `json:"bytes"`
	Entities   int                 `json:"entities"`
	Abstained  bool                `json:"abstained"`
	Reason     string              `json:"reason,omitempty"`
}

// Engine is the context injection engine of one workspace root.
type Engine struct {
	opts Options
	log  *zap.Logger

	mu sync.Mutex
	st *store.Store
	// activity is set by activity that changes the context and cleared
	// when a rewrite starts: a rewrite that starts without it was asked
	// for by an index change alone, and cancelIndexOnly cancels it
	// (supersede).
	activity        bool
	cancelIndexOnly context.CancelFunc
	// memory is the editor's short memory under retrieval's editor policy.
	memory  retrieval.EditorMemory
	pending []store.Activity
	last    *Snapshot
	timer   *time.Timer
	set     Settings

	entities atomic.Int64
	// generation counts index changes; retrieval results are reused while
	// neither it nor the request changed (cache, guarded by runMu).
	generation atomic.Int64
	cache      struct {
		key string
		rc  *retrieval.Context
		// open holds a digest of each open buffer rc rendered from (or
		// left out as not yet indexed): reused after that buffer changed,
		// rc would show code the buffer no longer has.
		open map[string][32]byte
	}
	kick chan struct{}
	// record wakes the recorder, which writes activity to the store off
	// the rewrite's path: an index run holding the write lock must not
	// delay the auto-context.
	record  chan struct{}
	done    chan struct{}
	stopped chan struct{}
	runMu   sync.Mutex
}

// New returns a running Engine; Close stops it.
func New(opts Options) *Engine {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	set := DefaultSettings()
	if opts.Settings != nil {
		set = *opts.Settings
	}
	e := &Engine{opts: opts, log: opts.Log, st: opts.Store, set: set, kick: make(chan struct{}, 1), record: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	go e.loop()
	return e
}

// SetStore replaces the store (after the index was deleted and recreated).
func (e *Engine) SetStore(st *store.Store) {
	e.mu.Lock()
	e.st = st
	e.mu.Unlock()
	e.IndexChanged()
}

// SetSettings applies the editor's settings and rewrites the auto-context
// under them.
func (e *Engine) SetSettings(set Settings) {
	e.mu.Lock()
	changed := e.set != set
	e.set = set
	if changed {
		e.supersede()
	}
	e.mu.Unlock()
	if changed {
		e.schedule()
	}
}

// IndexChanged tells the engine the index was updated: the next rewrite
// retrieves again instead of reusing the previous results, and one is
// scheduled, so that a context that left out a buffer the index did not
// hold yet, or showed what the index has since replaced, is rewritten once
// the index caught up (decision 0095).
func (e *Engine) IndexChanged() {
	e.generation.Add(1)
	e.mu.Lock()
	active := !e.memory.Empty()
	e.mu.Unlock()
	if active {
		e.schedule()
	}
}

// SetEntities records the size of the index, reported in snapshots.
func (e *Engine) SetEntities(n int) { e.entities.Store(int64(n)) }

// Entities is the size of the index last recorded with SetEntities.
func (e *Engine) Entities() int { return int(e.entities.Load()) }

// Restore rebuilds the memory from the editor activity the store recorded
// in the last retrieval.EditorWindow, so that a new server continues where
// the previous one stopped.
func (e *Engine) Restore(ctx context.Context) error {
	e.mu.Lock()
	st := e.st
	e.mu.Unlock()
	acts, err := st.RecentActivity(ctx, time.Now().Add(-retrieval.EditorWindow), retrieval.EditorRecall)
	if err != nil {
		return err
	}
	editor := acts[:0:0]
	for _, a := range acts {
		if a.Origin == "editor" {
			editor = append(editor, a)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.memory = retrieval.Recall(editor, e.set.Triggers)
	return nil
}

// Record takes one activity: it updates the memory and schedules a rewrite.
func (e *Engine) Record(a Activity) {
	if a.At.IsZero() {
		a.At = time.Now()
	}
	e.mu.Lock()
	changed := e.remember(a, true)
	if changed {
		e.supersede()
	}
	e.mu.Unlock()
	switch {
	case !changed:
	case (a.Type == SymbolHover || a.Type == VisibleRange) && e.opts.Debounce < glanceDelay:
		// Hovers and scrolling come in bursts as the person looks around;
		// each would start a full retrieval competing with the next hover.
		e.scheduleIn(glanceDelay)
	default:
		e.schedule()
	}
}

// supersede notes activity that changes the context, and cancels a
// rewrite that only an index change asked for: the rewrite this activity
// schedules retrieves from the changed index anyway, and must not wait for
// one whose answer it replaces. e.mu is held.
func (e *Engine) supersede() {
	e.activity = true
	if e.cancelIndexOnly != nil {
		e.cancelIndexOnly()
		e.cancelIndexOnly = nil
	}
}

// glanceDelay is the least quiet time after a hover or a scroll before a
// rewrite, whatever the debounce: a burst of them costs one rewrite.
const glanceDelay = 100 * time.Millisecond

// remember updates the memory and reports whether the context may change
// (retrieval.EditorMemory.Add); e.mu is held.
func (e *Engine) remember(a Activity, record bool) bool {
	syms := a.ChangedSymbols
	if a.Symbol != "" {
		syms = append([]string{a.Symbol}, syms...)
	}
	rec := store.Activity{At: a.At, Session: e.opts.Session, Origin: "editor", Type: string(a.Type), Path: a.Path, Symbols: syms, Line: a.Line, Text: a.Text}
	if record {
		e.pending = append(e.pending, rec)
	}
	return e.memory.Add(rec, e.set.Triggers)
}

// Message takes a message the person sent to the assistant.
func (e *Engine) Message(text string) {
	now := time.Now()
	e.mu.Lock()
	changed := e.memory.Add(store.Activity{At: now, Type: retrieval.ActPrompt, Text: text}, e.set.Triggers)
	if changed {
		e.pending = append(e.pending, store.Activity{At: now, Session: e.opts.Session, Origin: "editor", Type: retrieval.ActPrompt, Text: e.memory.Message})
		e.supersede()
	}
	e.mu.Unlock()
	if changed {
		e.schedule()
	}
}

// schedule arranges a rewrite after the debounce interval.
func (e *Engine) schedule() {
	if e.opts.Debounce <= 0 {
		e.poke()
		return
	}
	e.scheduleIn(e.opts.Debounce)
}

// scheduleIn arranges a rewrite after d of quiet.
func (e *Engine) scheduleIn(d time.Duration) {
	e.mu.Lock()
	if e.timer == nil {
		e.timer = time.AfterFunc(d, e.poke)
	} else {
		e.timer.Reset(d)
	}
	e.mu.Unlock()
}

func (e *Engine) poke() {
	select {
	case e.kick <- struct{}{}:
	default: // a rewrite is already due; it will see this activity too
	}
}

func (e *Engine) loop() {
	recorderDone := make(chan struct{})
	go func() {
		defer close(recorderDone)
		for {
			select {
			case <-e.done:
				return
			case <-e.record:
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				e.flushActivity(ctx)
				cancel()
			}
		}
	}()
	defer func() { <-recorderDone; close(e.stopped) }()
	for {
		select {
		case <-e.done:
			return
		case <-e.kick:
			if !e.enabled() {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			e.mu.Lock()
			indexOnly := !e.activity
			e.activity = false
			if indexOnly {
				e.cancelIndexOnly = cancel
			}
			e.mu.Unlock()
			_, err := e.Refresh(ctx)
			e.mu.Lock()
			e.cancelIndexOnly = nil
			e.mu.Unlock()
			switch {
			case err == nil:
			case indexOnly && errors.Is(ctx.Err(), context.Canceled):
				e.log.Debug("auto-context rewrite after an index change superseded by activity")
			default:
				e.log.Warn("auto-context", zap.String("root", e.opts.Root), zap.Error(err))
				if e.opts.OnError != nil {
					e.opts.OnError(err)
				}
			}
			cancel()
		}
	}
}

// Close stops the engine and records activity not yet written.
func (e *Engine) Close() {
	e.mu.Lock()
	if e.timer != nil {
		e.timer.Stop()
	}
	e.mu.Unlock()
	select {
	case <-e.done:
		return
	default:
		close(e.done)
	}
	<-e.stopped
	e.runMu.Lock()
	defer e.runMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.flushActivity(ctx)
}

func (e *Engine) enabled() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set.Enabled
}

// Last returns the most recently written snapshot, or nil.
func (e *Engine) Last() *Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// ActiveFile returns the file the person is working in ("" when none).
func (e *Engine) ActiveFile() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.memory.Active
}

func (e *Engine) flushActivity(ctx context.Context) {
	e.mu.Lock()
	pending, st := e.pending, e.st
	e.pending = nil
	e.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	if err := st.RecordActivity(ctx, pending...); err != nil {
		e.log.Warn("record activity", zap.Int("events", len(pending)), zap.Error(err))
	}
}

// state is what one rewrite works from, copied under the lock.
type state struct {
	st  *store.Store
	mem retrieval.EditorMemory // what counts now
	set Settings
}

func (e *Engine) state(now time.Time) state {
	e.mu.Lock()
	defer e.mu.Unlock()
	return state{st: e.st, mem: e.memory.Current(now, e.set.Triggers), set: e.set}
}

// Refresh computes the auto-context now, writes it and returns it.
func (e *Engine) Refresh(ctx context.Context) (*Snapshot, error) {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	select {
	case e.record <- struct{}{}:
	default:
	}
	now := time.Now()
	s := e.state(now)
	snap, err := e.compute(ctx, s, now)
	if err != nil {
		return nil, err
	}
	// Last is the newest snapshot as soon as it exists: a reader who saw
	// the file change must not get an older one from Last.
	e.mu.Lock()
	e.last = snap
	e.mu.Unlock()
	if !s.set.Enabled {
		// Disabled: answer ctxls/context, leave the files alone.
		return snap, nil
	}
	if err := write(e.opts.Root, snap); err != nil {
		return nil, err
	}
	if e.opts.OnWrite != nil {
		e.opts.OnWrite(snap)
	}
	return snap, nil
}

// compute runs retrieval for the current state under retrieval's editor
// policy and puts the Editing section, from the open buffers, in front.
func (e *Engine) compute(ctx context.Context, s state, now time.Time) (*Snapshot, error) {
	snap := &Snapshot{Root: e.opts.Root, Generated: now.UTC(), ActiveFile: s.mem.Active, Why: s.mem.Why(), Triggers: s.mem.Triggers(), Entities: int(e.entities.Load())}
	budget := e.opts.Config.Retrieval.MaxTokens
	if s.set.MaxTokens > 0 {
		budget = s.set.MaxTokens
	}
	// One view of the open buffers for the whole rewrite: the Editing
	// section and the rendering of open files must see the same text.
	bufs := freeze(e.opts.Buffers)
	editing := retrieval.Editing(s.mem, bufs)
	rc := &retrieval.Context{Abstained: true, Reason: "no editor activity yet"}
	if !s.mem.Empty() {
		req := e.request(ctx, s, now)
		maxTokens := retrieval.RetrievalBudget(budget, editing)
		var err error
		if rc, err = e.retrieve(ctx, s.st, req, maxTokens, now, bufs); err != nil {
			return nil, fmt.Errorf("auto-context for %s: %w", e.opts.Root, err)
		}
	}
	out := retrieval.WithEditing(editing, rc)
	snap.Abstained, snap.Reason, snap.Sections = out.Abstained, out.Reason, out.Sections
	var md strings.Builder
	fmt.Fprintf(&md, "<!-- ctxls auto-context: generated %s; active file %s -->\n", snap.Generated.Format(time.RFC3339), orNone(s.mem.Active))
	if len(snap.Why) > 0 {
		fmt.Fprintf(&md, "<!-- why: %s -->\n", strings.ReplaceAll(strings.Join(snap.Why, "; "), "--", "- -"))
	}
	md.WriteString(out.Markdown)
	snap.Markdown = md.String()
	snap.Bytes = len(snap.Markdown)
	snap.Tokens = retrieval.EstimateTokens(snap.Markdown)
	return snap, nil
}

// Request returns the retrieval request the next rewrite would make
// (retrieval.ForEditor over the engine's memory), for tests and tools that
// show what the editor's context is computed from.
func (e *Engine) Request(ctx context.Context) retrieval.Request {
	now := time.Now()
	return e.request(ctx, e.state(now), now)
}

// request is retrieval.ForEditor for s.
func (e *Engine) request(ctx context.Context, s state, now time.Time) retrieval.Request {
	minRelevance := e.opts.Config.Retrieval.MinRelevance
	if s.set.MinRelevance >= 0 {
		minRelevance = s.set.MinRelevance
	}
	ws, err := s.st.WorkingSet(ctx, now.Add(-retrieval.EditorWindow), retrieval.EditorSeeds)
	if err != nil {
		e.log.Debug("working set", zap.Error(err))
	}
	return retrieval.ForEditor(s.mem, s.mem.Seeds(ws), s.set.Triggers, minRelevance)
}

// retrieve returns the assembled context for req. While typing in one
// function the reasons, seeds and index stay the same from keystroke to
// keystroke: only the Editing section changes, and the previous answer is
// reused, less the open files whose buffers changed since (their code is
// shown again once the index holds the new buffer: IndexChanged).
func (e *Engine) retrieve(ctx context.Context, st *store.Store, req retrieval.Request, maxTokens int, now time.Time, bufs *frozen) (*retrieval.Context, error) {
	key := fmt.Sprintf("%d\x00%q\x00%v\x00%q\x00%d\x00%g\x00%v%v", e.generation.Load(), req.Text, req.Triggers, req.ActiveFiles, maxTokens, req.MinRelevance, req.DropMessageTriggers, req.NoMessageTerms)
	if key == e.cache.key && e.cache.rc != nil {
		var changed []string
		for p, sum := range e.cache.open {
			if text, ok := bufs.Open(p); !ok || sha256.Sum256(text) != sum {
				changed = append(changed, p)
			}
		}
		return withoutFiles(e.cache.rc, changed), nil
	}
	var overlay retrieval.Overlay
	if bufs != nil {
		overlay = bufs
	}
	rc, _, err := retrieval.QueryContext(ctx, st, req, retrieval.ContextOptions{
		Root: e.opts.Root, MaxTokens: maxTokens, MaxSections: e.opts.Config.Retrieval.MaxSections, Now: now,
		Overlay: overlay, Log: e.log,
	})
	if err != nil {
		return nil, err
	}
	open := map[string][32]byte{}
	for _, p := range append(contextFiles(rc), rc.Stale...) {
		if text, ok := bufs.Open(p); ok {
			open[p] = sha256.Sum256(text)
		}
	}
	e.cache.key, e.cache.rc, e.cache.open = key, rc, open
	return rc, nil
}

// frozen is one rewrite's view of the open buffers: each is looked up
// once, so that a change arriving during the rewrite cannot make two parts
// of the context show two versions of a file. It is the Overlay retrieval
// renders open files from. A nil *frozen has no buffers.
type frozen struct {
	src  Buffers
	seen map[string]frozenBuffer
}

type frozenBuffer struct {
	text []byte
	f    *symbols.File
	ok   bool
}

func freeze(src Buffers) *frozen {
	if src == nil {
		return nil
	}
	return &frozen{src: src, seen: map[string]frozenBuffer{}}
}

// Buffer returns the open buffer of rel and its symbols, as first seen.
func (b *frozen) Buffer(rel string) ([]byte, *symbols.File, bool) {
	if b == nil {
		return nil, nil, false
	}
	fb, ok := b.seen[rel]
	if !ok {
		fb.text, fb.f, fb.ok = b.src.Buffer(rel)
		b.seen[rel] = fb
	}
	return fb.text, fb.f, fb.ok
}

// Open is retrieval.Overlay's method.
func (b *frozen) Open(rel string) ([]byte, bool) {
	text, _, ok := b.Buffer(rel)
	return text, ok
}

// contextFiles lists the files rc renders items of.
func contextFiles(rc *retrieval.Context) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range rc.Sections {
		for _, it := range s.Items {
			if !seen[it.Path] {
				seen[it.Path] = true
				out = append(out, it.Path)
			}
		}
	}
	return out
}

// withoutFiles returns rc without the items of files; rc itself is not
// changed.
func withoutFiles(rc *retrieval.Context, files []string) *retrieval.Context {
	if len(files) == 0 || rc.Abstained {
		return rc
	}
	out := *rc
	out.Sections = nil
	for _, s := range rc.Sections {
		kept := retrieval.Section{Title: s.Title}
		for _, it := range s.Items {
			if !slices.Contains(files, it.Path) {
				kept.Items = append(kept.Items, it)
			}
		}
		if len(kept.Items) > 0 {
			out.Sections = append(out.Sections, kept)
		}
	}
	out.Stale = slices.Clone(rc.Stale)
	for _, p := range files {
		if !slices.Contains(out.Stale, p) {
			out.Stale = append(out.Stale, p)
		}
	}
	if len(out.Sections) == 0 {
		out.Abstained, out.Reason = true, "the open files of the results changed since the index took them in"
	}
	return &out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
