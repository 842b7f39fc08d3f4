package sources

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
)

// continuityWindow is how far back earlier prompts and activity count.
const continuityWindow = ActiveWindow

// codeActiveFiles is how many working-set files a prompt's retrieval
// takes as in play.
const codeActiveFiles = 3

// Code contributes code from the index: retrieval for prompts, the file
// and its callers before an edit, graph neighbours after a tool call.
type Code struct{}

// Name implements Source.
func (Code) Name() string { return "code" }

// Collect implements Source.
func (s Code) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	switch ev.Name {
	case hookevent.UserPromptSubmit:
		return s.prompt(ctx, ev)
	case hookevent.PreToolUse:
		if IsEdit(ev.Tool) && len(ev.Files) > 0 {
			return s.beforeEdit(ctx, ev)
		}
	case hookevent.PostToolUse, hookevent.PostToolBatch:
		if len(ev.Files) > 0 {
			return s.afterTool(ctx, ev)
		}
	}
	return nil, nil
}

func (Code) prompt(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	// The working set is the rules injector's too: read once.
	active, err := ev.WorkingSet(ctx)
	if err != nil {
		active = nil
	}
	p := promptQuery{
		Store: ev.Store, Root: ev.Root, Config: ev.Config.Retrieval, Session: ev.Session, Prompt: ev.Prompt,
		Triggers: ev.Triggers(), Active: slices.Clone(active[:min(len(active), codeActiveFiles)]), Recorded: true, Fresh: ev.Fresh(), Log: ev.Log,
	}
	entries, reason, err := p.entries(ctx)
	if err == nil && len(entries) == 0 && ev.Log != nil {
		ev.Log.Sugar().Infof("prompt: no code injected: %s", reason)
	}
	return entries, err
}

// PromptEntries returns the code the prompt hook gives for a prompt in a
// session, one entry per entity in relevance order, before the session's
// dedup; or none and the reason. The request is retrieval.ForPrompt with
// the session's continuity: files in play, and the symbols of its previous
// prompts with reduced weight ("now add validation" after "AuthService"),
// which rank but never pass the prompt gate. recorded says whether the
// prompt is already the session's latest recorded activity (the hook
// records it before its sources run; `ctxls context --session` does not).
// fresh re-indexes the files of the results that changed on disk (nil:
// their entities are left out; decision 0092); log says what was left out.
func PromptEntries(ctx context.Context, st *store.Store, root string, cfg config.Retrieval, session, prompt string, recorded bool, fresh retrieval.Refresher, log *zap.Logger) ([]collect.Entry, string, error) {
	p := promptQuery{Store: st, Root: root, Config: cfg, Session: session, Prompt: analyzer.CutMessage(prompt), Recorded: recorded, Fresh: fresh, Log: log}
	if ws, err := st.WorkingSet(ctx, time.Now().Add(-continuityWindow), codeActiveFiles); err == nil {
		p.Active = ws
	}
	return p.entries(ctx)
}

// promptQuery is one prompt's code retrieval, for the hook or the CLI.
type promptQuery struct {
	Store   *store.Store
	Root    string
	Config  config.Retrieval
	Session string
	// Prompt is cut to analyzer.MaxMessageBytes; Triggers are its
	// analysis when the caller has it (nil: retrieval analyses it).
	Prompt   string
	Triggers []analyzer.Trigger
	// Active are the files in play, newest first.
	Active   []string
	Recorded bool
	Fresh    retrieval.Refresher
	Log      *zap.Logger
}

func (p *promptQuery) entries(ctx context.Context) ([]collect.Entry, string, error) {
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, "the prompt is empty", nil
	}
	st := p.Store
	req := retrieval.ForPrompt(p.Prompt, p.Config.MaxSections)
	req.MessageTriggers = p.Triggers
	req.ActiveFiles = p.Active
	since := time.Now().Add(-continuityWindow)
	if acts, err := st.RecentActivity(ctx, since, 20); err == nil {
		prompts := 0
		if !p.Recorded {
			prompts = 1
		}
		for _, a := range acts {
			if a.Type != "prompt" || a.Session != p.Session {
				continue
			}
			prompts++
			if prompts == 1 {
				continue // this prompt itself, recorded by the hook
			}
			if prompts > 3 {
				break
			}
			for _, sym := range a.Symbols {
				req.Triggers = append(req.Triggers, analyzer.Trigger{Type: analyzer.TriggerSymbol, Relevance: retrieval.CarriedRelevance, Query: sym})
			}
		}
	}
	resp, err := retrieval.Query(ctx, st, req)
	if err != nil {
		return nil, "", err
	}
	if resp.Abstain {
		return nil, resp.Reason, nil
	}
	c, err := retrieval.Assemble(ctx, st, req, resp, retrieval.ContextOptions{
		Root: p.Root, MaxTokens: p.Config.MaxTokens, MaxSections: p.Config.MaxSections, Refresh: p.Fresh, Log: p.Log,
	})
	if err != nil {
		return nil, "", err
	}
	return itemEntries(c, collect.Normal), c.Reason, nil
}

// itemEntries turns each context item into its own entry, so that per-session
// dedup works per entity.
func itemEntries(c *retrieval.Context, prio collect.Priority) []collect.Entry {
	var out []collect.Entry
	for _, s := range c.Sections {
		for _, it := range s.Items {
			out = append(out, collect.Entry{
				Source: "code", ID: fmt.Sprintf("%s#%s", it.Path, it.QName), Priority: prio,
				Content: strings.TrimSpace(retrieval.RenderItem(&it)),
				// path names the file in the prompt history, where a later
				// tool call on it counts the entry as used (ctxls sessions).
				Metadata: map[string]any{"path": it.Path, "section": s.Title, "relevance": it.Relevance},
				// The entity's text without its line: moved code is not new.
				Fingerprint: strings.Join([]string{it.Kind, it.Signature, it.Doc, it.Excerpt}, "\x00"),
			})
		}
	}
	return out
}

// beforeEdit gives the file about to change: its outline, and the callers of
// the entity the edit touches, before the edit is made.
func (Code) beforeEdit(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	var out []collect.Entry
	t := ev.ToolInput
	for _, rel := range currentFiles(ctx, ev, ev.Files) {
		ents, err := ev.Store.EntitiesInFile(ctx, rel)
		if err != nil || len(ents) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "File about to change: %s\n", rel)
		line := lineOf(ev.Root, rel, t.OldStr)
		var edited store.Entity
		if line > 0 {
			if e, ok, err := ev.Store.EntityAt(ctx, rel, line); err == nil && ok && e.Kind != "file" {
				edited = e
				editedEntity(ctx, ev.Store, &b, e)
			}
		}
		if line > 0 {
			fmt.Fprintf(&b, "Outline around line %d:\n", line)
		} else {
			b.WriteString("Outline:\n")
		}
		for _, e := range outlineAround(ents, line, maxOutline) {
			sig := e.Signature
			if sig == "" {
				sig = e.Kind + " " + e.QName
			}
			mark := ""
			if e.ID == edited.ID {
				mark = " ← the edit"
			}
			fmt.Fprintf(&b, "- %s (line %d)%s\n", sig, e.StartLine, mark)
		}
		out = append(out, collect.Entry{Source: "code", ID: "edit:" + rel, Content: strings.TrimRight(b.String(), "\n"), Priority: collect.Normal})
	}
	return out, nil
}

// maxOutline bounds the declarations listed before an edit.
const maxOutline = 25

// editedEntity writes the entity an edit touches first: its signature and
// lines, the code that calls it (to check after the edit) and what it
// calls.
func editedEntity(ctx context.Context, st *store.Store, b *strings.Builder, e store.Entity) {
	sig := e.Signature
	if sig == "" {
		sig = e.Kind + " " + e.QName
	}
	fmt.Fprintf(b, "Editing %s `%s` (lines %d–%d): %s\n", e.Kind, e.QName, e.StartLine, e.EndLine, sig)
	if callers, err := st.EdgesTo(ctx, []int64{e.ID}, 12); err == nil && len(callers) > 0 {
		ids := make([]int64, 0, len(callers))
		for _, c := range callers {
			ids = append(ids, c.Src)
		}
		byID, _ := st.EntitiesByID(ctx, ids)
		fmt.Fprintf(b, "Callers of %s (check them after the edit):\n", e.QName)
		for _, id := range ids {
			if c, ok := byID[id]; ok {
				fmt.Fprintf(b, "- %s — %s:%d\n", c.QName, c.Path, c.StartLine)
			}
		}
	}
	if refs, err := st.RefsFrom(ctx, e.ID); err == nil {
		var calls []string
		seen := map[string]bool{}
		for _, r := range refs {
			if r.Kind == store.RefCalls && !seen[r.Name] && len(calls) < 12 {
				seen[r.Name] = true
				calls = append(calls, r.Name)
			}
		}
		if len(calls) > 0 {
			fmt.Fprintf(b, "It calls: %s\n", strings.Join(calls, ", "))
		}
	}
}

// outlineAround returns at most n of a file's declarations, in line
// order: those nearest line when it is known (the edit's), else the first.
func outlineAround(ents []store.Entity, line, n int) []store.Entity {
	var decls []store.Entity
	for _, e := range ents {
		if e.Kind != "file" {
			decls = append(decls, e)
		}
	}
	if line > 0 && len(decls) > n {
		dist := func(e store.Entity) int {
			switch {
			case line < e.StartLine:
				return e.StartLine - line
			case line > e.EndLine:
				return line - e.EndLine
			}
			return 0
		}
		slices.SortStableFunc(decls, func(a, b store.Entity) int { return dist(a) - dist(b) })
		decls = decls[:n]
	}
	decls = decls[:min(len(decls), n)]
	slices.SortStableFunc(decls, func(a, b store.Entity) int { return a.StartLine - b.StartLine })
	return decls
}

// minRefreshTime is the time before the hook's deadline below which files
// changed on disk are left out rather than re-indexed.
const minRefreshTime = 250 * time.Millisecond

// currentFiles returns those of files (indexed with entities) whose disk
// state matches the index, re-indexing the changed ones first when the
// deadline leaves time: an outline read from the index of a file changed
// since (a checkout, another editor) names lines that hold other code now
// (decision 0092). A file deleted on disk is removed from the index.
func currentFiles(ctx context.Context, ev *Event, files []string) []string {
	var tracked []string
	for _, rel := range files {
		if ids, err := ev.Store.EntityIDsInFile(ctx, rel, 1); err == nil && len(ids) > 0 {
			tracked = append(tracked, rel)
		}
	}
	if len(tracked) == 0 {
		return nil
	}
	states, err := retrieval.Verify(ctx, ev.Store, ev.Root, tracked)
	if err != nil {
		ev.logger().Info("files about to change not verified", zap.Strings("files", tracked), zap.Error(err))
		return nil
	}
	var stale []string
	for _, rel := range tracked {
		if states[rel] != retrieval.Fresh {
			stale = append(stale, rel)
		}
	}
	if len(stale) > 0 {
		if d, ok := ctx.Deadline(); ok && time.Until(d) < minRefreshTime {
			err = context.DeadlineExceeded
		} else {
			err = ev.Fresh().Refresh(ctx, stale)
		}
		if err != nil {
			ev.logger().Info("changed files not re-indexed before an edit", zap.Strings("files", stale), zap.Error(err))
		} else if states, err = retrieval.Verify(ctx, ev.Store, ev.Root, tracked); err != nil {
			ev.logger().Info("files about to change not verified", zap.Strings("files", tracked), zap.Error(err))
			return nil
		}
	}
	var out []string
	for _, rel := range tracked {
		if s := states[rel]; s != retrieval.Fresh {
			ev.logger().Info("outline of a file that changed on disk left out", zap.String("file", rel), zap.Stringer("state", s))
			continue
		}
		out = append(out, rel)
	}
	return out
}

// afterTool lists what the touched file connects to elsewhere in the
// workspace: definitions it uses and code that uses it.
func (Code) afterTool(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	var out []collect.Entry
	for _, rel := range ev.Files {
		ids, err := ev.Store.EntityIDsInFile(ctx, rel, store.MaxEdgeIDs)
		if err != nil || len(ids) == 0 {
			continue
		}
		from, _ := ev.Store.EdgesFrom(ctx, ids, 200)
		to, _ := ev.Store.EdgesTo(ctx, ids, 200)
		uses, err := related(ctx, ev.Store, from, rel, func(e store.Edge) int64 { return e.Dst })
		if err != nil {
			return nil, err
		}
		usedBy, err := related(ctx, ev.Store, to, rel, func(e store.Edge) int64 { return e.Src })
		if err != nil {
			return nil, err
		}
		// A list is sent again only for its new members: what the session
		// was given stays with the model until compaction.
		var covers []string
		fresh := func(members []string) []string {
			var out []string
			for _, m := range members {
				key := "code:related-member:" + rel + "|" + m
				if !ev.Collector.Injected(ctx, key) {
					out = append(out, m)
					covers = append(covers, key)
				}
			}
			return out
		}
		uses, usedBy = fresh(uses), fresh(usedBy)
		if len(uses) == 0 && len(usedBy) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Related to %s:\n", rel)
		if len(uses) > 0 {
			fmt.Fprintf(&b, "uses: %s\n", strings.Join(uses, ", "))
		}
		if len(usedBy) > 0 {
			fmt.Fprintf(&b, "used by: %s\n", strings.Join(usedBy, ", "))
		}
		out = append(out, collect.Entry{Source: "code", ID: "related:" + rel, Content: strings.TrimRight(b.String(), "\n"), Priority: collect.Low, Covers: covers})
	}
	return out, nil
}

const (
	// maxRelated is how many neighbours afterTool lists each way.
	maxRelated = 10
	// relatedBatch is how many edges' far ends are looked up at a time. The
	// list shows the first maxRelated neighbours in other files, in edge
	// order, and the first batch usually holds them: looking up all (up to
	// 400) ends was most of a post-tool-use hook's time, each in a random
	// page of the index.
	relatedBatch = 32
)

// related returns, in edge order, the distinct neighbours (the entity pick
// chooses of each edge) outside the file self, at most maxRelated of them.
func related(ctx context.Context, st *store.Store, edges []store.Edge, self string, pick func(store.Edge) int64) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for start := 0; start < len(edges) && len(out) < maxRelated; start += relatedBatch {
		batch := edges[start:min(start+relatedBatch, len(edges))]
		ids := make([]int64, len(batch))
		for i, e := range batch {
			ids[i] = pick(e)
		}
		found, err := st.Locate(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, e := range batch {
			l, ok := found[pick(e)]
			if !ok || l.Path == self {
				continue // a stale edge, or the file itself
			}
			s := fmt.Sprintf("%s (%s:%d)", l.QName, l.Path, l.Line)
			if !seen[s] && len(out) < maxRelated {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// lineOf returns the 1-based line where needle starts in the workspace
// file rel, or 0; a file outside the workspace is not read.
func lineOf(root, rel, needle string) int {
	if strings.TrimSpace(needle) == "" {
		return 0
	}
	data, err := wspath.ReadFile(root, filepath.FromSlash(rel))
	if err != nil {
		return 0
	}
	i := strings.Index(string(data), needle)
	if i < 0 {
		return 0
	}
	return strings.Count(string(data[:i]), "\n") + 1
}
