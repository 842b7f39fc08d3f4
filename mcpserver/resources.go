package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
)

const (
	markdown = "text/markdown"
	// sessionWindow is how far back the session resource looks: this and
	// the previous sessions of the day.
	sessionWindow = 24 * time.Hour
	// listedFiles bounds the working-set files listed as resources.
	listedFiles = 10
)

func (s *Server) registerResources() {
	s.mcp.AddResource(&mcp.Resource{
		URI: AutoURI, Name: "auto-context", Title: "ctxls auto-context", MIMEType: markdown,
		Description: "The code that matters for what the person is doing now: written by the ctxls language server as they work, or computed from recent activity. Subscribe to follow it.",
	}, s.readAuto)
	s.mcp.AddResource(&mcp.Resource{
		URI: SessionURI, Name: "session", Title: "ctxls session context", MIMEType: markdown,
		Description: "The working set (files recently opened or edited) and recent activity and prompts of this and earlier sessions.",
	}, s.readSession)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: FileTemplate, Name: "file", Title: "ctxls file context", MIMEType: markdown,
		Description: "One file's entities (outline with signatures), imports, what it uses and is used by, the rules and AGENTS.md that apply to it and the memories (gotchas first) attached to it; path relative to the workspace root.",
	}, s.readFile)
}

// text wraps markdown as a resource result, cut at a line boundary to the
// output cap like tool results (a client may put a resource in the prompt
// whole).
func (s *Server) text(uri, md string) *mcp.ReadResourceResult {
	md = cutLines(md, s.opts.MaxOutputBytes)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: markdown, Text: md}}}
}

// cutLines cuts md at a line boundary to at most limit bytes, with a note
// saying so.
func cutLines(md string, limit int) string {
	if len(md) <= limit {
		return md
	}
	note := fmt.Sprintf("\n… (cut at %d of %d bytes)\n", limit, len(md))
	cut := strings.LastIndexByte(md[:max(limit-len(note), 0)], '\n')
	return md[:max(cut, 0)] + note
}

// autoPath is the language server's auto-context file.
func (s *Server) autoPath() string { return filepath.Join(workspace.Dir(s.opts.Root), AutoContextFile) }

func (s *Server) readAuto(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	data, err := wspath.ReadFile(s.opts.Root, s.autoPath())
	if err == nil {
		return s.text(AutoURI, string(data)), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", s.autoPath(), err)
	}
	md, err := s.computeAuto(ctx)
	if err != nil {
		return nil, err
	}
	return s.text(AutoURI, md), nil
}

// computeAuto assembles an auto-context from the activity the store
// recorded (the editor's and the assistant's, the working set and the last
// prompt) when no language server writes one, under the editor's policy
// (retrieval.ForEditor, decision 0095): the request is the one the language
// server's engine would make from the same activity.
func (s *Server) computeAuto(ctx context.Context) (string, error) {
	const none = "No auto-context yet: .ctxls/" + AutoContextFile + " does not exist (it is written by `ctxls serve`, the language server, as the person works in the editor)"
	st, err := s.store(ctx)
	if err != nil {
		return none + ", and " + err.Error() + ".\n", nil
	}
	req, files, mem, err := s.autoRequest(ctx, st, time.Now())
	if err != nil {
		return "", err
	}
	if len(files) == 0 && mem.Empty() {
		return s.buildingNote(ctx, st) + none + ", and no editor or assistant activity was recorded in the last 30 minutes. Use the context_query tool to ask for code.\n", nil
	}
	cfg := s.config()
	c, _, err := retrieval.QueryContext(ctx, st, req, retrieval.ContextOptions{
		Root: s.opts.Root, MaxTokens: retrieval.RetrievalBudget(cfg.Retrieval.MaxTokens, retrieval.Section{}), MaxSections: cfg.Retrieval.MaxSections,
	})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(s.buildingNote(ctx, st))
	b.WriteString("<!-- computed by ctxls mcp from recent activity (no .ctxls/" + AutoContextFile + " yet)")
	if len(files) > 0 {
		fmt.Fprintf(&b, "; working set: %s", strings.Join(files, ", "))
	}
	if mem.Message != "" {
		fmt.Fprintf(&b, "; last prompt: %q", strings.ReplaceAll(truncate(mem.Message, 120), "--", "- -"))
	}
	b.WriteString(" -->\n")
	b.WriteString(c.Markdown)
	return b.String(), nil
}

// autoRequest is the editor policy's request for the activity recorded in
// the last retrieval.EditorWindow before now, with the working set and the
// memory it was built from.
func (s *Server) autoRequest(ctx context.Context, st *store.Store, now time.Time) (retrieval.Request, []string, retrieval.EditorMemory, error) {
	since := now.Add(-retrieval.EditorWindow)
	files, err := st.WorkingSet(ctx, since, retrieval.EditorSeeds)
	if err != nil {
		return retrieval.Request{}, nil, retrieval.EditorMemory{}, err
	}
	acts, err := st.RecentActivity(ctx, since, retrieval.EditorRecall)
	if err != nil {
		return retrieval.Request{}, nil, retrieval.EditorMemory{}, err
	}
	all := retrieval.AllSwitches()
	mem := retrieval.Recall(acts, all).Current(now, all)
	return retrieval.ForEditor(mem, mem.Seeds(files), all, s.config().Retrieval.MinRelevance), files, mem, nil
}

func (s *Server) readSession(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	st, err := s.store(ctx)
	if err != nil {
		return s.text(SessionURI, "No session context: "+err.Error()+".\n"), nil
	}
	md, err := sessionMarkdown(ctx, st, time.Now())
	if err != nil {
		return nil, err
	}
	return s.text(SessionURI, md), nil
}

// sessionMarkdown renders the working set, recent activity and the prompts
// of recent sessions.
func sessionMarkdown(ctx context.Context, st *store.Store, now time.Time) (string, error) {
	since := now.Add(-sessionWindow)
	files, err := st.WorkingSet(ctx, since, listedFiles)
	if err != nil {
		return "", err
	}
	acts, err := st.RecentActivity(ctx, since, 200)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Session context\n\n")
	if len(files) == 0 && len(acts) == 0 {
		b.WriteString("No editor or assistant activity was recorded in the last 24 hours.\n")
		return b.String(), nil
	}
	b.WriteString("## Working set (files recently open or edited, newest first)\n\n")
	if len(files) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range files {
		line, err := st.FileSummary(ctx, f, 8)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "- %s\n", line)
	}
	b.WriteString("\n## Recent activity (newest first)\n\n")
	shown := 0
	for _, a := range acts {
		if a.Type == "prompt" || shown >= 25 {
			continue
		}
		shown++
		fmt.Fprintf(&b, "- %s %s %s", a.At.Local().Format("15:04:05"), a.Origin, a.Type)
		if a.Path != "" {
			fmt.Fprintf(&b, " %s", a.Path)
			if a.Line > 0 {
				fmt.Fprintf(&b, ":%d", a.Line)
			}
		}
		if len(a.Symbols) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(a.Symbols[:min(len(a.Symbols), 6)], ", "))
		}
		b.WriteByte('\n')
	}
	if shown == 0 {
		b.WriteString("None besides prompts.\n")
	}
	// Prompts grouped by session, most recent session first.
	var order []string
	prompts := map[string][]string{}
	for _, a := range acts {
		if a.Type != "prompt" {
			continue
		}
		if _, ok := prompts[a.Session]; !ok {
			order = append(order, a.Session)
		}
		if len(prompts[a.Session]) < 5 {
			prompts[a.Session] = append(prompts[a.Session], strings.ReplaceAll(truncate(a.Text, 200), "\n", " "))
		}
	}
	if len(order) > 0 {
		b.WriteString("\n## Prompts by session (newest first)\n")
		for _, sess := range order[:min(len(order), 5)] {
			name := sess
			if name == "" {
				name = "(no session id)"
			}
			fmt.Fprintf(&b, "\n### session %s\n\n", name)
			for _, p := range prompts[sess] {
				fmt.Fprintf(&b, "- %s\n", p)
			}
		}
	}
	return b.String(), nil
}

// fileURI returns the resource URI of a workspace-relative path.
func fileURI(rel string) string { return filePrefix + rel }

// filePath extracts the workspace-relative path from a file resource URI,
// accepting the slashes raw or percent-encoded. ok is false for a path the
// server does not look up: one that leaves the workspace (absolute, or
// climbing out with ..), or that holds a NUL or another control character,
// invalid UTF-8 or a backslash (a separator on Windows), raw or encoded. A
// model that a prompt injected can ask for any URI.
func filePath(root, uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, filePrefix)
	if !ok || rest == "" {
		return "", false
	}
	p, err := url.PathUnescape(rest)
	if err != nil || !utf8.ValidString(p) || strings.ContainsFunc(p, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }) {
		return "", false
	}
	if path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", false
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	// Resolved against the root, the path must stay under it; this is the
	// check that counts, the ones above say why early.
	abs := filepath.Join(root, filepath.FromSlash(p))
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	// A symbolic link on the way must not lead out of the workspace
	// (decision 0090).
	if !wspath.Inside(root, abs) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func (s *Server) readFile(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rel, ok := filePath(s.opts.Root, uri)
	if !ok {
		return nil, resourceNotFound(uri)
	}
	st, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	note := s.buildingNote(ctx, st)
	f, ok, err := st.FileByPath(ctx, rel)
	if err != nil {
		return nil, err
	}
	if !ok && note != "" {
		// Not found may only mean not reached yet.
		return s.text(uri, note+"`"+rel+"` is not in the index yet.\n"), nil
	}
	if !ok {
		return nil, resourceNotFound(uri)
	}
	md, err := fileMarkdown(ctx, st, f)
	if err != nil {
		return nil, err
	}
	var extra strings.Builder
	for _, section := range append(s.builtinSections(), s.opts.FileSections...) {
		text, err := section(ctx, s.opts.Root, rel)
		if err != nil {
			s.log.Sugar().Warnw("mcp: file section failed", "path", rel, "error", err)
			continue
		}
		if text != "" {
			extra.WriteString("\n" + strings.TrimRight(text, "\n") + "\n")
		}
	}
	// The sections are bounded and short; under the cap, a long outline
	// gives way to them rather than the rules and gotchas to the outline.
	md = cutLines(md, max(s.opts.MaxOutputBytes-extra.Len()-len(note), s.opts.MaxOutputBytes/4)) + extra.String()
	return s.text(uri, note+md), nil
}

// fileMarkdown renders what the index knows of one file: its outline, its
// imports, and the entities elsewhere that it uses and that use it.
func fileMarkdown(ctx context.Context, st *store.Store, f store.File) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", f.Path)
	fmt.Fprintf(&b, "language %s, %d bytes", orDash(f.Lang), f.Size)
	if f.Pkg != "" {
		fmt.Fprintf(&b, ", package %s", f.Pkg)
	}
	b.WriteString("\n")
	if f.Skip != "" {
		fmt.Fprintf(&b, "\nNot parsed: %s.\n", f.Skip)
		return b.String(), nil
	}
	if f.Note != "" {
		fmt.Fprintf(&b, "\nNote: %s.\n", f.Note)
	}
	ents, err := st.EntitiesInFile(ctx, f.Path)
	if err != nil {
		return "", err
	}
	var ids []int64
	var fileEnt int64
	depth := map[int64]int{}
	b.WriteString("\n## Entities\n\n")
	shown := 0
	for _, e := range ents {
		ids = append(ids, e.ID)
		if e.Kind == "file" {
			fileEnt = e.ID
			continue
		}
		depth[e.ID] = depth[e.ParentID] + 1
		if shown >= maxOutline {
			continue
		}
		shown++
		indent := strings.Repeat("  ", max(depth[e.ID]-1, 0))
		fmt.Fprintf(&b, "%s- %s `%s` (lines %d–%d)", indent, e.Kind, e.QName, e.StartLine, e.EndLine)
		if e.Signature != "" {
			fmt.Fprintf(&b, ": `%s`", oneLine(e.Signature, 160))
		}
		b.WriteByte('\n')
	}
	if shown == 0 {
		b.WriteString("None.\n")
	} else if n := len(ents) - 1 - shown; n > 0 {
		fmt.Fprintf(&b, "- … and %d more\n", n)
	}
	if fileEnt != 0 {
		refs, err := st.RefsFrom(ctx, fileEnt)
		if err != nil {
			return "", err
		}
		var imports []string
		for _, r := range refs {
			if r.Kind == store.RefImports && !slices.Contains(imports, r.Name) {
				imports = append(imports, r.Name)
			}
		}
		if len(imports) > 0 {
			fmt.Fprintf(&b, "\n## Imports\n\n%s\n", strings.Join(imports, ", "))
		}
	}
	out, err := neighbours(ctx, st, ids, f.Path, 40)
	if err != nil {
		return "", err
	}
	writeNeighbours(&b, "Uses (elsewhere in the workspace)", out.uses)
	writeNeighbours(&b, "Used by", out.usedBy)
	return b.String(), nil
}

// maxOutline bounds the entities listed in a file resource.
const maxOutline = 150

func writeNeighbours(b *strings.Builder, title string, ns []Neighbour) {
	if len(ns) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	for _, n := range ns {
		fmt.Fprintf(b, "- %s %s `%s` — %s:%d", n.Relation, n.Kind, n.QName, n.Path, n.Line)
		if n.Via != "" {
			fmt.Fprintf(b, " (from `%s`)", n.Via)
		}
		b.WriteByte('\n')
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine collapses whitespace and cuts s to at most n bytes on a rune
// boundary.
func oneLine(s string, n int) string {
	return truncate(strings.Join(strings.Fields(s), " "), n)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
