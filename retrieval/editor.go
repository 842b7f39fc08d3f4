package retrieval

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// The editor's context policy (decision 0095): how editor activity becomes a
// request and how the auto-context's budget is shared. The language server's
// engine and the MCP server's computed ctxls://context/auto both use it, so
// that the same activity gives the same request on either surface.
const (
	// EditorWindow is how long activity and a message count: the seed's
	// continuity window.
	EditorWindow = 30 * time.Minute
	// EditorReasons is how many distinct reasons (an open, an edit, a
	// hover, ...) the editor's memory keeps.
	EditorReasons = 8
	// EditorSeeds bounds the files in play (graph seeds): the active file,
	// the edited files, then the working set.
	EditorSeeds = 6
	// EditorLimit is how many entities are ranked for the auto-context.
	EditorLimit = 12
	// EditingItems bounds the Editing section (symbols being edited, from
	// the open buffers).
	EditingItems = 4
	// EditingExcerptLines bounds each Editing item's excerpt.
	EditingExcerptLines = 12
	// EditorBudget is the auto-context's token budget when the
	// configuration gives none.
	EditorBudget = 4000
	// editingBudgetStep rounds the Editing section's cost up before it is
	// taken from retrieval's budget: while typing in one function the
	// excerpt grows by a few tokens a keystroke, and retrieval's answer
	// (cached on its request and budget) must not change with it.
	editingBudgetStep = 256
	// VisibleRangeWeight is the relevance of code scrolled into view: below
	// a selection or hover (0.85), which are deliberate, and an open (0.8).
	VisibleRangeWeight = 0.6
	// selectionSymbols bounds the symbols a selection contributes.
	selectionSymbols = 6
	// EditorRecall bounds the recorded events a memory is rebuilt from
	// (Recall): EditorReasons distinct reasons hide behind repeats.
	EditorRecall = 64
)

// Editor activity types, as the language server records them (origin
// "editor" in the store's activity).
const (
	ActFileOpen     = "file_open"
	ActFileEdit     = "file_edit"
	ActFileClose    = "file_close"
	ActSymbolHover  = "symbol_hover"
	ActSelection    = "selection"
	ActVisibleRange = "visible_range"
	ActPrompt       = "prompt"
	// ActTool is an assistant's tool call on a file (recorded by the
	// hooks, origin "assistant"): it counts as the file being opened.
	ActTool = "tool"
)

// EditorSwitches say which editor activity and message evidence become
// triggers (the editor's ctxls.triggers settings, decision 0044).
type EditorSwitches struct {
	FileOpen bool // file_open activity
	FileEdit bool // file_edit activity (and the Editing section)
	// Selection covers selection, symbol_hover and visible_range.
	Selection       bool
	SymbolMention   bool // a message's symbol mentions
	ImplicitQueries bool // a message's free text and questions
}

// AllSwitches turns every kind of evidence on: an editor that sent no
// settings, and the MCP server.
func AllSwitches() EditorSwitches { return EditorSwitches{true, true, true, true, true} }

// allows reports whether activity of type t becomes a trigger.
func (s EditorSwitches) allows(t string) bool {
	switch t {
	case ActFileOpen, ActTool:
		return s.FileOpen
	case ActFileEdit:
		return s.FileEdit
	case ActSymbolHover, ActSelection, ActVisibleRange:
		return s.Selection
	}
	return true
}

// Reason is one remembered piece of editor activity and the triggers it
// gives.
type Reason struct {
	Triggers []analyzer.Trigger
	// Why says it in words ("edited Login in auth/service.go").
	Why  string
	Path string
	// Edit marks an edit; Symbols are the declarations it touched and Line
	// its first changed line (to tell same-named symbols apart).
	Edit    bool
	Symbols []string
	Line    int
	At      time.Time
}

// EditorMemory is the editor's short memory: the last EditorReasons
// reasons (newest first), the active file and the last message. The engine
// keeps one as activity arrives; the MCP server folds the recorded activity
// into one. The zero value is empty.
type EditorMemory struct {
	Reasons   []Reason
	Active    string
	Message   string
	MessageAt time.Time
}

// Add folds one editor activity into m and reports whether the context may
// change: a hover on the symbol hovered last, or scrolling within the same
// view, changes nothing a rewrite would show. For a hover, a.Symbols[0] is
// the symbol under the cursor; for an edit, a.Symbols are the changed
// declarations.
func (m *EditorMemory) Add(a store.Activity, sw EditorSwitches) bool {
	switch a.Type {
	case ActPrompt:
		text := analyzer.CutMessage(strings.TrimSpace(a.Text))
		if text == "" {
			return false
		}
		m.Message, m.MessageAt = text, a.At
		return true
	case ActFileClose:
		if m.Active == a.Path {
			m.Active = ""
			return true
		}
		return false
	}
	if !sw.allows(a.Type) {
		return false
	}
	r, ok := reasonOf(a)
	if !ok {
		return false
	}
	glance := a.Type == ActSymbolHover || a.Type == ActSelection || a.Type == ActVisibleRange
	active := m.Active
	if !glance || m.Active == "" {
		m.Active = a.Path
	}
	if len(m.Reasons) > 0 && m.Reasons[0].Why == r.Why && m.Active == active && sameTriggers(m.Reasons[0], r) {
		// The newest reason again, unchanged: keep it fresh, nothing to
		// rewrite. An edit always rewrites: its buffer changed.
		m.Reasons[0].At = r.At
		return r.Edit
	}
	// The same reason again moves to the front instead of piling up.
	kept := make([]Reason, 0, len(m.Reasons)+1)
	kept = append(kept, r)
	for _, old := range m.Reasons {
		if old.Why != r.Why {
			kept = append(kept, old)
		}
	}
	m.Reasons = kept[:min(len(kept), EditorReasons)]
	return true
}

// reasonOf turns one editor activity into its triggers; ok is false when
// it gives none.
func reasonOf(a store.Activity) (Reason, bool) {
	r := Reason{Path: a.Path, At: a.At}
	w := analyzer.DefaultWeights
	symbol := ""
	if len(a.Symbols) > 0 {
		symbol = a.Symbols[0]
	}
	switch a.Type {
	case ActFileOpen:
		r.Triggers = []analyzer.Trigger{{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerFileOpen], Query: a.Path}}
		r.Why = "opened " + a.Path
	case ActTool:
		if a.Path != "" {
			r.Triggers = []analyzer.Trigger{{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerFileOpen], Query: a.Path}}
			r.Why = "the assistant used " + a.Path
		}
	case ActFileEdit:
		r.Edit, r.Line, r.Symbols = true, a.Line, dedupe(a.Symbols)
		r.Triggers = []analyzer.Trigger{{Type: analyzer.TriggerFileEdit, Relevance: w[analyzer.TriggerFileEdit], Query: a.Path}}
		// Changed symbols are matched by name only (hover-type triggers):
		// as lexical terms, the common parts of identifiers (serve, http)
		// cost a full-text search each and tripled a rewrite on GOROOT/src.
		for _, s := range r.Symbols {
			r.Triggers = append(r.Triggers, analyzer.Trigger{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerFileEdit], Query: s})
		}
		if len(r.Symbols) > 0 {
			r.Why = fmt.Sprintf("edited %s in %s", strings.Join(r.Symbols, ", "), a.Path)
		} else {
			r.Why = "edited " + a.Path
		}
	case ActSymbolHover:
		if symbol != "" {
			r.Triggers = append(r.Triggers, analyzer.Trigger{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerHover], Query: symbol, Line: a.Line})
			r.Why = fmt.Sprintf("hovered %s in %s", symbol, a.Path)
		} else if a.Line > 0 {
			r.Triggers = append(r.Triggers, analyzer.Trigger{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerHover], Query: a.Path, Line: a.Line})
			r.Why = fmt.Sprintf("hovered %s:%d", a.Path, a.Line)
		}
	case ActSelection:
		if a.Line > 0 {
			r.Triggers = append(r.Triggers, analyzer.Trigger{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerSelection], Query: a.Path, Line: a.Line})
		}
		for _, tr := range analyzer.Message(a.Text) {
			if tr.Type == analyzer.TriggerSymbol {
				r.Triggers = append(r.Triggers, analyzer.Trigger{Type: analyzer.TriggerSelection, Relevance: w[analyzer.TriggerSelection], Query: tr.Query})
			}
			if len(r.Triggers) >= selectionSymbols {
				break
			}
		}
		r.Why = "selected code in " + a.Path
	case ActVisibleRange:
		if a.Line > 0 {
			r.Triggers = append(r.Triggers, analyzer.Trigger{Type: analyzer.TriggerFileOpen, Relevance: VisibleRangeWeight, Query: a.Path, Line: a.Line})
		}
		r.Why = "viewing " + a.Path
	}
	return r, len(r.Triggers) > 0
}

// Recall rebuilds a memory from recorded activity, newest first as
// store.RecentActivity returns it: what a memory that had taken each event
// as it came would hold.
func Recall(acts []store.Activity, sw EditorSwitches) EditorMemory {
	var m EditorMemory
	for i := len(acts) - 1; i >= 0; i-- {
		m.Add(acts[i], sw)
	}
	return m
}

// sameTriggers reports whether two reasons carry the same triggers.
func sameTriggers(a, b Reason) bool {
	if len(a.Triggers) != len(b.Triggers) || a.Line != b.Line {
		return false
	}
	for i := range a.Triggers {
		if a.Triggers[i] != b.Triggers[i] {
			return false
		}
	}
	return true
}

// Current returns what of m counts at now under the switches: reasons and
// the message within EditorWindow, edits only while edits are switched on.
func (m EditorMemory) Current(now time.Time, sw EditorSwitches) EditorMemory {
	out := EditorMemory{Active: m.Active}
	for _, r := range m.Reasons {
		if now.Sub(r.At) <= EditorWindow && (sw.FileEdit || !r.Edit) {
			out.Reasons = append(out.Reasons, r)
		}
	}
	if m.Message != "" && now.Sub(m.MessageAt) <= EditorWindow {
		out.Message, out.MessageAt = m.Message, m.MessageAt
	}
	return out
}

// Empty reports whether there is nothing to retrieve for: no reason and no
// message.
func (m EditorMemory) Empty() bool { return len(m.Reasons) == 0 && m.Message == "" }

// Triggers returns the triggers of every reason, newest first.
func (m EditorMemory) Triggers() []analyzer.Trigger {
	var out []analyzer.Trigger
	for _, r := range m.Reasons {
		out = append(out, r.Triggers...)
	}
	return out
}

// Why lists the reasons in words, newest first, then the message.
func (m EditorMemory) Why() []string {
	var out []string
	for _, r := range m.Reasons {
		out = append(out, r.Why)
	}
	if m.Message != "" {
		out = append(out, "asked: "+oneLine(m.Message, 80))
	}
	return out
}

// Seeds returns the files in play, at most EditorSeeds: the active file,
// the edited files, then workingSet (the store's, which includes other
// processes' activity).
func (m EditorMemory) Seeds(workingSet []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] && len(out) < EditorSeeds {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(m.Active)
	for _, r := range m.Reasons {
		if r.Edit {
			add(r.Path)
		}
	}
	for _, p := range workingSet {
		add(p)
	}
	return out
}

// ForEditor is the request for the editor's auto-context: the current
// memory's triggers and message, seeds (from Seeds), entities only. With
// activity there is no relevance gate (the person is working on that code);
// a message alone is gated at minRelevance, as a prompt would be by
// decision 0003.
func ForEditor(m EditorMemory, seeds []string, sw EditorSwitches, minRelevance float64) Request {
	req := Request{Text: m.Message, Triggers: m.Triggers(), ActiveFiles: seeds, EntitiesOnly: true, Limit: EditorLimit, MinRelevance: -1}
	if !sw.SymbolMention {
		req.DropMessageTriggers = append(req.DropMessageTriggers, analyzer.TriggerSymbol)
	}
	if !sw.ImplicitQueries {
		req.DropMessageTriggers = append(req.DropMessageTriggers, analyzer.TriggerImplicit)
		req.NoMessageTerms = true
	}
	if len(req.Triggers) == 0 {
		req.MinRelevance = minRelevance
	}
	return req
}

// Buffers gives the editor's open documents (decision 0095).
type Buffers interface {
	// Buffer returns the text and extracted symbols of an open document
	// (path relative to the root); ok is false when it is not open, f is
	// nil when it was not parsed (an unsupported language, too large).
	Buffer(path string) (text []byte, f *symbols.File, ok bool)
}

// Editing is the Editing section of the editor's context: the symbols the
// memory's edits touched, from the open buffers (what the person sees, not
// what the index holds), at most EditingItems, each excerpt at most
// EditingExcerptLines long.
func Editing(m EditorMemory, bufs Buffers) Section {
	sec := Section{Title: "Editing"}
	if bufs == nil {
		return sec
	}
	seen := map[string]bool{}
	for _, r := range m.Reasons {
		if !r.Edit {
			continue
		}
		text, f, ok := bufs.Buffer(r.Path)
		if !ok || f == nil {
			continue
		}
		for _, name := range r.Symbols {
			if len(sec.Items) >= EditingItems {
				return sec
			}
			key := r.Path + "\x00" + name
			if seen[key] {
				continue
			}
			seen[key] = true
			i := findEntity(f, name, r.Line)
			if i < 0 {
				continue
			}
			ent := f.Entities[i]
			sec.Items = append(sec.Items, Item{
				Path: r.Path, Line: ent.StartLine, EndLine: ent.EndLine, Kind: string(ent.Kind), Name: ent.Name,
				QName: ent.QualName, Signature: ent.Signature, Doc: ent.Doc,
				Excerpt: Excerpt(text, ent.StartLine, min(ent.EndLine, ent.StartLine+EditingExcerptLines-1)),
				Score:   1, Relevance: 1,
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

// RetrievalBudget is the share of the auto-context's budget (tokens;
// EditorBudget when not positive) left to retrieval beside the Editing
// section: what editing leaves, rounded to editingBudgetStep, and at least
// half.
func RetrievalBudget(budget int, editing Section) int {
	if budget <= 0 {
		budget = EditorBudget
	}
	tokens := 0
	for i := range editing.Items {
		tokens += EstimateTokens(RenderItem(&editing.Items[i]))
	}
	return max(budget-(tokens+editingBudgetStep-1)/editingBudgetStep*editingBudgetStep, budget/2)
}

// WithEditing returns rc with the Editing section in front: what is being
// edited, from the open buffers. An entity the Editing section shows is
// not shown again below it. The context abstains only when rc does and
// nothing is being edited.
func WithEditing(editing Section, rc *Context) *Context {
	out := *rc
	out.Sections = nil
	if len(editing.Items) == 0 {
		if rc.Abstained {
			out.Sections = nil
		} else {
			out.Sections = rc.Sections
		}
		out.Markdown = render(&out)
		out.Tokens = EstimateTokens(out.Markdown)
		return &out
	}
	shown := map[string]bool{}
	ed := Section{Title: editing.Title, Items: make([]Item, len(editing.Items))}
	for i, it := range editing.Items {
		it.text = RenderItem(&it)
		it.tokens = EstimateTokens(it.text)
		ed.Items[i] = it
		shown[it.Path+"\x00"+it.QName] = true
		shown[it.Path+"\x00"+it.Name] = true
	}
	out.Sections = []Section{ed}
	if !rc.Abstained {
		for _, s := range rc.Sections {
			kept := Section{Title: s.Title}
			for _, it := range s.Items {
				if it.Kind != "file" && (shown[it.Path+"\x00"+it.QName] || shown[it.Path+"\x00"+it.Name]) {
					continue
				}
				kept.Items = append(kept.Items, it)
			}
			if len(kept.Items) > 0 {
				out.Sections = append(out.Sections, kept)
			}
		}
	}
	out.Abstained, out.Reason = false, ""
	out.Markdown = render(&out)
	out.Tokens = EstimateTokens(out.Markdown)
	return &out
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

// oneLine collapses whitespace and cuts s to n bytes on a rune boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
