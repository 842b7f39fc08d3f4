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
	"fmt"
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

// Activity types of the ctxls/activity notification.
const (
	FileOpen    ActivityType = "file_open"
	FileEdit    ActivityType = "file_edit"
	FileClose   ActivityType = "file_close"
	SymbolHover ActivityType = "symbol_hover"
	Selection   ActivityType = "selection"
	// VisibleRange is code scrolled into view: weaker than a selection.
	VisibleRange ActivityType = "visible_range"
)

// visibleRangeWeight is the relevance of code in view: below a selection or
// hover (0.85), which are deliberate, and an open (0.8).
const visibleRangeWeight = 0.6

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

// Buffers gives the engine the editor's unsaved documents, so that the
// context shows what is being edited as it is now, not as it was indexed.
type Buffers interface {
	// Buffer returns the text and extracted symbols of an open document
	// (path relative to the root); ok is false when it is not open or has no
	// symbols.
	Buffer(path string) (text []byte, f *symbols.File, ok bool)
}

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

// Triggers say which activity and message evidence become triggers.
type Triggers struct {
	FileOpen bool // file_open activity
	FileEdit bool // file_edit activity (and the Editing section)
	// Selection covers selection, symbol_hover and visible_range.
	Selection       bool
	SymbolMention   bool // a message's symbol mentions
	ImplicitQueries bool // a message's free text and questions
}

// DefaultSettings are the settings of an editor that sent none: everything
// on, the configuration's budget and gate.
func DefaultSettings() Settings {
	return Settings{Enabled: true, MinRelevance: -1, Triggers: Triggers{true, true, true, true, true}}
}

// allows reports whether activity of type t becomes a trigger.
func (t Triggers) allows(a ActivityType) bool {
	switch a {
	case FileOpen:
		return t.FileOpen
	case FileEdit:
		return t.FileEdit
	case SymbolHover, Selection, VisibleRange:
		return t.Selection
	}
	return true
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

// Memory bounds: the seed keeps the last few triggers for continuity.
const (
	memorySize   = 8
	memoryTTL    = 30 * time.Minute
	maxSeeds     = 6
	maxEditItems = 4
	editExcerpt  = 12
)

// memo is a remembered trigger with the reason it exists.
type memo struct {
	triggers []analyzer.Trigger
	why      string
	path     string
	edit     bool
	symbols  []string
	line     int // the first changed line of an edit, to tell same-named symbols apart
	at       time.Time
}

// Engine is the context injection engine of one workspace root.
type Engine struct {
	opts Options
	log  *zap.Logger

	mu      sync.Mutex
	st      *store.Store
	memory  []memo // newest first
	active  string
	message string
	msgAt   time.Time
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
	e.mu.Unlock()
	if changed {
		e.schedule()
	}
}

// IndexChanged tells the engine the index was updated, so that the next
// rewrite retrieves again instead of reusing the previous results.
func (e *Engine) IndexChanged() { e.generation.Add(1) }

// SetEntities records the size of the index, reported in snapshots.
func (e *Engine) SetEntities(n int) { e.entities.Store(int64(n)) }

// Entities is the size of the index last recorded with SetEntities.
func (e *Engine) Entities() int { return int(e.entities.Load()) }

// Restore rebuilds the memory from the editor activity the store recorded
// in the last memoryTTL, so that a new server continues where the previous
// one stopped.
func (e *Engine) Restore(ctx context.Context) error {
	e.mu.Lock()
	st := e.st
	e.mu.Unlock()
	acts, err := st.RecentActivity(ctx, time.Now().Add(-memoryTTL), 64)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// Oldest first, so that the newest ends up in front.
	for i := len(acts) - 1; i >= 0; i-- {
		a := acts[i]
		if a.Origin != "editor" {
			continue
		}
		if a.Type == "prompt" {
			e.message, e.msgAt = a.Text, a.At
			continue
		}
		t := ActivityType(a.Type)
		if !t.Valid() {
			continue
		}
		e.remember(Activity{Type: t, Path: a.Path, ChangedSymbols: a.Symbols, Line: a.Line, Text: a.Text, At: a.At}, false)
	}
	return nil
}

// Record takes one activity: it updates the memory and schedules a rewrite.
func (e *Engine) Record(a Activity) {
	if a.At.IsZero() {
		a.At = time.Now()
	}
	e.mu.Lock()
	changed := e.remember(a, true)
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

// glanceDelay is the least quiet time after a hover or a scroll before a
// rewrite, whatever the debounce: a burst of them costs one rewrite.
const glanceDelay = 100 * time.Millisecond

// remember updates the memory and reports whether the context may change
// (a hover on the symbol hovered last, or scrolling within the same view,
// changes nothing a rewrite would show); e.mu is held.
func (e *Engine) remember(a Activity, record bool) bool {
	if record {
		syms := a.ChangedSymbols
		if a.Symbol != "" {
			syms = append([]string{a.Symbol}, syms...)
		}
		e.pending = append(e.pending, store.Activity{At: a.At, Session: e.opts.Session, Origin: "editor", Type: string(a.Type), Path: a.Path, Symbols: syms, Line: a.Line, Text: a.Text})
	}
	if a.Type == FileClose {
		if e.active == a.Path {
			e.active = ""
			return true
		}
		return false
	}
	if !e.set.Triggers.allows(a.Type) {
		return false
	}
	m := memo{path: a.Path, at: a.At}
	w := analyzer.DefaultWeights
	switch a.Type {
	case FileOpen:
		m.triggers = []analyzer.Trigger{{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerFileOpen], Query: a.Path}}
		m.why = "opened " + a.Path
	case FileEdit:
		m.edit = true
		m.line = a.Line
		m.symbols = dedupe(a.ChangedSymbols)
		m.triggers = []analyzer.Trigger{{Type: analyzer.TriggerFileEdit, Relevance: w[analyzer.TriggerFileEdit], Query: a.Path}}
		// Changed symbols are matched by name only (hover-type triggers):
		// as lexical terms, the common parts of identifiers (serve, http)
		// cost a full-text search each and tripled a rewrite on GOROOT/src.
		for _, s := range m.symbols {
			m.triggers = append(m.triggers, analyzer.Trigger{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerFileEdit], Query: s})
		}
		if len(m.symbols) > 0 {
			m.why = fmt.Sprintf("edited %s in %s", strings.Join(m.symbols, ", "), a.Path)
		} else {
			m.why = "edited " + a.Path
		}
	case SymbolHover:
		if a.Symbol != "" {
			m.triggers = append(m.triggers, analyzer.Trigger{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerHover], Query: a.Symbol, Line: a.Line})
			m.why = fmt.Sprintf("hovered %s in %s", a.Symbol, a.Path)
		} else if a.Line > 0 {
			m.triggers = append(m.triggers, analyzer.Trigger{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerHover], Query: a.Path, Line: a.Line})
			m.why = fmt.Sprintf("hovered %s:%d", a.Path, a.Line)
		}
	case Selection:
		if a.Line > 0 {
			m.triggers = append(m.triggers, analyzer.Trigger{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerSelection], Query: a.Path, Line: a.Line})
		}
		for _, tr := range analyzer.Message(a.Text) {
			if tr.Type == analyzer.TriggerSymbol {
				m.triggers = append(m.triggers, analyzer.Trigger{Type: analyzer.TriggerSelection, Relevance: w[analyzer.TriggerSelection], Query: tr.Query})
			}
			if len(m.triggers) >= 6 {
				break
			}
		}
		m.why = "selected code in " + a.Path
	case VisibleRange:
		if a.Line > 0 {
			m.triggers = append(m.triggers, analyzer.Trigger{Type: analyzer.TriggerFileOpen, Relevance: visibleRangeWeight, Query: a.Path, Line: a.Line})
		}
		m.why = "viewing " + a.Path
	}
	if len(m.triggers) == 0 {
		return false
	}
	active := e.active
	if a.Type != SymbolHover && a.Type != Selection && a.Type != VisibleRange || e.active == "" {
		e.active = a.Path
	}
	if len(e.memory) > 0 && e.memory[0].why == m.why && e.active == active && sameMemo(e.memory[0], m) {
		// The newest reason again, unchanged: keep it fresh, nothing to
		// rewrite. An edit always rewrites: its buffer changed.
		e.memory[0].at = m.at
		return m.edit
	}
	// The same reason again moves to the front instead of piling up.
	kept := e.memory[:0]
	for _, old := range e.memory {
		if old.why != m.why {
			kept = append(kept, old)
		}
	}
	e.memory = append([]memo{m}, kept...)
	if len(e.memory) > memorySize {
		e.memory = e.memory[:memorySize]
	}
	return true
}

// sameMemo reports whether two memos carry the same triggers.
func sameMemo(a, b memo) bool {
	if len(a.triggers) != len(b.triggers) || a.line != b.line {
		return false
	}
	for i := range a.triggers {
		if a.triggers[i] != b.triggers[i] {
			return false
		}
	}
	return true
}

// Message takes a message the person sent to the assistant.
func (e *Engine) Message(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if len(text) > 32<<10 {
		text = text[:32<<10]
	}
	now := time.Now()
	e.mu.Lock()
	e.message, e.msgAt = text, now
	e.pending = append(e.pending, store.Activity{At: now, Session: e.opts.Session, Origin: "editor", Type: "prompt", Text: text})
	e.mu.Unlock()
	e.schedule()
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
			if _, err := e.Refresh(ctx); err != nil {
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
	return e.active
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
	st       *store.Store
	memory   []memo
	active   string
	message  string
	triggers []analyzer.Trigger
	set      Settings
}

func (e *Engine) state(now time.Time) state {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := state{st: e.st, active: e.active, set: e.set}
	for _, m := range e.memory {
		if now.Sub(m.at) <= memoryTTL {
			s.memory = append(s.memory, m)
			s.triggers = append(s.triggers, m.triggers...)
		}
	}
	if e.message != "" && now.Sub(e.msgAt) <= memoryTTL {
		s.message = e.message
	}
	if !s.set.Triggers.FileEdit {
		// Edits remembered before the switch was turned off.
		kept := s.memory[:0:0]
		s.triggers = nil
		for _, m := range s.memory {
			if !m.edit {
				kept = append(kept, m)
				s.triggers = append(s.triggers, m.triggers...)
			}
		}
		s.memory = kept
	}
	return s
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

// compute runs retrieval for the current state.
func (e *Engine) compute(ctx context.Context, s state, now time.Time) (*Snapshot, error) {
	snap := &Snapshot{Root: e.opts.Root, Generated: now.UTC(), ActiveFile: s.active, Triggers: s.triggers, Entities: int(e.entities.Load())}
	for _, m := range s.memory {
		snap.Why = append(snap.Why, m.why)
	}
	if s.message != "" {
		snap.Why = append(snap.Why, "asked: "+oneLine(s.message, 80))
	}
	budget := e.opts.Config.Retrieval.MaxTokens
	if s.set.MaxTokens > 0 {
		budget = s.set.MaxTokens
	}
	if budget <= 0 {
		budget = 4000
	}
	editing := e.editing(s)
	var editTokens int
	var editText strings.Builder
	for i := range editing.Items {
		t := retrieval.RenderItem(&editing.Items[i])
		editTokens += retrieval.EstimateTokens(t)
		editText.WriteString(t)
	}
	var body string
	switch {
	case len(s.triggers) == 0 && s.message == "":
		snap.Abstained, snap.Reason = true, "no editor activity yet"
	default:
		req := retrieval.Request{Text: s.message, Triggers: s.triggers, ActiveFiles: e.seeds(ctx, s), EntitiesOnly: true, Limit: 12, MinRelevance: -1}
		if !s.set.Triggers.SymbolMention {
			req.DropMessageTriggers = append(req.DropMessageTriggers, analyzer.TriggerSymbol)
		}
		if !s.set.Triggers.ImplicitQueries {
			req.DropMessageTriggers = append(req.DropMessageTriggers, analyzer.TriggerImplicit)
			req.NoMessageTerms = true
		}
		if len(s.triggers) == 0 {
			// Only a message: the relevance gate decides, as for a prompt.
			req.MinRelevance = e.opts.Config.Retrieval.MinRelevance
			if s.set.MinRelevance >= 0 {
				req.MinRelevance = s.set.MinRelevance
			}
		}
		// While typing in one function, the reasons, seeds and index stay
		// the same from keystroke to keystroke: only the Editing section
		// changes, and retrieval's answer can be reused. The budget is
		// rounded so that a growing excerpt does not change the key.
		maxTokens := max(budget-(editTokens+255)/256*256, budget/2)
		key := fmt.Sprintf("%d\x00%q\x00%v\x00%q\x00%d\x00%g\x00%v%v", e.generation.Load(), req.Text, req.Triggers, req.ActiveFiles, maxTokens, req.MinRelevance, req.DropMessageTriggers, req.NoMessageTerms)
		rc := e.cache.rc
		if key != e.cache.key || rc == nil {
			resp, err := retrieval.Query(ctx, s.st, req)
			if err != nil {
				return nil, fmt.Errorf("auto-context for %s: %w", e.opts.Root, err)
			}
			rc, err = retrieval.Assemble(ctx, s.st, req, resp, retrieval.ContextOptions{
				Root: e.opts.Root, MaxTokens: maxTokens, MaxSections: e.opts.Config.Retrieval.MaxSections, Now: now,
			})
			if err != nil {
				return nil, fmt.Errorf("auto-context for %s: %w", e.opts.Root, err)
			}
			e.cache.key, e.cache.rc = key, rc
		}
		snap.Abstained, snap.Reason = rc.Abstained && len(editing.Items) == 0, rc.Reason
		if !rc.Abstained {
			snap.Sections = rc.Sections
			body = retrieval.UnwrapContext(rc.Markdown)
		}
	}
	if len(editing.Items) > 0 {
		snap.Sections = append([]retrieval.Section{editing}, snap.Sections...)
		body = "## Editing\n\n" + editText.String() + body
		snap.Reason = ""
	}
	var md strings.Builder
	fmt.Fprintf(&md, "<!-- ctxls auto-context: generated %s; active file %s -->\n", snap.Generated.Format(time.RFC3339), orNone(s.active))
	if len(snap.Why) > 0 {
		fmt.Fprintf(&md, "<!-- why: %s -->\n", strings.ReplaceAll(strings.Join(snap.Why, "; "), "--", "- -"))
	}
	md.WriteString(retrieval.WrapContext(body))
	snap.Markdown = md.String()
	snap.Bytes = len(snap.Markdown)
	snap.Tokens = retrieval.EstimateTokens(snap.Markdown)
	return snap, nil
}

// seeds returns the files in play: the active file, recently edited files,
// and the store's working set (activity of other processes too).
func (e *Engine) seeds(ctx context.Context, s state) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] && len(out) < maxSeeds {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(s.active)
	for _, m := range s.memory {
		if m.edit {
			add(m.path)
		}
	}
	if len(out) < maxSeeds {
		ws, err := s.st.WorkingSet(ctx, time.Now().Add(-memoryTTL), maxSeeds)
		if err != nil {
			e.log.Debug("working set", zap.Error(err))
		}
		for _, p := range ws {
			add(p)
		}
	}
	return out
}

// editing renders the symbols being edited from the unsaved buffers.
func (e *Engine) editing(s state) retrieval.Section {
	sec := retrieval.Section{Title: "Editing"}
	if e.opts.Buffers == nil {
		return sec
	}
	seen := map[string]bool{}
	for _, m := range s.memory {
		if !m.edit {
			continue
		}
		text, f, ok := e.opts.Buffers.Buffer(m.path)
		if !ok {
			continue
		}
		var lines []string
		for _, name := range m.symbols {
			if len(sec.Items) >= maxEditItems {
				return sec
			}
			key := m.path + "\x00" + name
			if seen[key] {
				continue
			}
			seen[key] = true
			i := findEntity(f, name, m.line)
			if i < 0 {
				continue
			}
			if lines == nil {
				lines = strings.Split(string(text), "\n")
			}
			ent := f.Entities[i]
			sec.Items = append(sec.Items, retrieval.Item{
				Path: m.path, Line: ent.StartLine, EndLine: ent.EndLine, Kind: string(ent.Kind), Name: ent.Name,
				QName: ent.QualName, Signature: ent.Signature, Doc: ent.Doc, Excerpt: excerpt(lines, ent.StartLine, ent.EndLine),
				Score: 1, Relevance: 1,
			})
		}
	}
	return sec
}

// findEntity returns the index of the entity named name, preferring the one
// whose lines hold line (methods of different types share names), else the
// first; -1 when there is none.
func findEntity(f *symbols.File, name string, line int) int {
	best := -1
	for i, ent := range f.Entities {
		if ent.Kind == symbols.KindFile || (ent.Name != name && ent.QualName != name) {
			continue
		}
		if ent.StartLine <= line && line <= ent.EndLine {
			return i
		}
		if best < 0 {
			best = i
		}
	}
	return best
}

func excerpt(lines []string, from, to int) string {
	if from < 1 || from > len(lines) {
		return ""
	}
	to = min(to, len(lines), from+editExcerpt-1)
	out := make([]string, 0, to-from+1)
	for _, l := range lines[from-1 : to] {
		l = strings.TrimRight(l, " \t\r")
		if len(l) > 240 {
			l = l[:240] + "…"
		}
		out = append(out, l)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
