package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// registerMemoryTools adds the tools over the memory store (package
// memory): one mcp.AddTool each.
func (s *Server) registerMemoryTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "memory_search", Title: "Search the memories", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
		Description: "Decisions, gotchas, learnings and other memories (markdown in .claude/memory/ and ~/.claude/memory/) ranked for a text, with an excerpt of each.",
	}, s.memorySearch)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "memory_write", Title: "Record a memory", Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(false)},
		Description: "Record a decision, learning, gotcha, artifact, breadcrumb or hub as a markdown memory. It is validated first; on any error nothing is written. Returns its slug.",
	}, s.memoryWrite)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "memory_link", Title: "Link two memories", Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(false)},
		Description: "Link two memories of one scope (relates-to unless a label is given, e.g. implements, part-of, builds-on, similar-to); the reverse edge gets the inverse label.",
	}, s.memoryLink)
}

// memories opens the memory store over a writable index (memories are
// mirrored into its full-text index) for one call, as `ctxls memory` does.
func (s *Server) memories(ctx context.Context) (*memory.Store, func(), error) {
	if _, err := s.store(ctx); err != nil {
		return nil, nil, err // no index yet: say how to make one
	}
	st, err := store.Open(ctx, s.opts.Root, store.Options{})
	if err != nil {
		return nil, nil, err
	}
	ms, err := memory.Open(memory.Options{Root: s.opts.Root, Home: s.opts.Home, Index: st})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return ms, func() { st.Close() }, nil
}

// MemorySearchInput is memory_search's input.
type MemorySearchInput struct {
	Text   string   `json:"text" jsonschema:"what to look for"`
	Types  []string `json:"types,omitempty" jsonschema:"only these types: decision, learning, artifact, gotcha, breadcrumb, hub"`
	Scopes []string `json:"scopes,omitempty" jsonschema:"only these scopes: global, project, local, enterprise"`
	Tags   []string `json:"tags,omitempty" jsonschema:"only memories with all of these tags"`
	Limit  int      `json:"limit,omitempty" jsonschema:"most memories to return (default 20, at most 100)"`
}

// MemorySearchOutput is memory_search's output.
type MemorySearchOutput struct {
	Memories  []MemoryHit `json:"memories"`
	Truncated bool        `json:"truncated,omitempty"`
}

// MemoryHit is one memory found.
type MemoryHit struct {
	Scope     string   `json:"scope"`
	Slug      string   `json:"slug"`
	Type      string   `json:"type"`
	Title     string   `json:"title"`
	Tags      []string `json:"tags"`
	Severity  string   `json:"severity,omitempty"`
	Files     []string `json:"files,omitempty"`
	Relevance float64  `json:"relevance"`
	Excerpt   string   `json:"excerpt,omitempty" jsonschema:"the start of the memory's content"`
}

func (s *Server) memorySearch(ctx context.Context, _ *mcp.CallToolRequest, in MemorySearchInput) (*mcp.CallToolResult, MemorySearchOutput, error) {
	out := MemorySearchOutput{Memories: []MemoryHit{}}
	if strings.TrimSpace(in.Text) == "" {
		return nil, out, errors.New("text is empty: pass what to look for")
	}
	limit, err := limitOf(in.Limit)
	if err != nil {
		return nil, out, err
	}
	q := memory.Query{Text: analyzer.CutMessage(in.Text), Tags: in.Tags, Limit: limit}
	for _, t := range in.Types {
		ty, err := memory.ParseType(t)
		if err != nil {
			return nil, out, err
		}
		q.Types = append(q.Types, ty)
	}
	for _, sc := range in.Scopes {
		scope, err := memory.ParseScope(sc)
		if err != nil {
			return nil, out, err
		}
		q.Scopes = append(q.Scopes, scope)
	}
	ms, done, err := s.memories(ctx)
	if err != nil {
		return nil, out, err
	}
	defer done()
	// Edits made outside ctxls are picked up at most this late.
	if _, err := ms.SyncIfChanged(ctx, memory.SyncAge); err != nil {
		return nil, out, err
	}
	hits, err := ms.Search(ctx, q)
	if err != nil {
		return nil, out, err
	}
	for _, h := range hits {
		mh := MemoryHit{Scope: string(h.Scope), Slug: h.Slug, Type: string(h.Type), Title: h.Title, Tags: h.Tags,
			Severity: h.Severity, Files: h.Files, Relevance: round3(h.Relevance)}
		if m, err := ms.Get(ctx, h.Scope, h.Slug); err == nil {
			mh.Excerpt = oneLine(m.Content, 400)
		}
		out.Memories = append(out.Memories, mh)
	}
	return finish(s.opts.MaxOutputBytes, "", &out, renderMemories, func(o *MemorySearchOutput) bool {
		o.Truncated = true
		return dropLast(&o.Memories)
	})
}

func renderMemories(o *MemorySearchOutput) string {
	if len(o.Memories) == 0 {
		return "No memory matches.\n"
	}
	var b strings.Builder
	for _, m := range o.Memories {
		fmt.Fprintf(&b, "- %s `%s` (%s, %s): %s", m.Type, m.Slug, m.Scope, strings.Join(m.Tags, ", "), m.Title)
		if m.Excerpt != "" {
			fmt.Fprintf(&b, "\n  %s", m.Excerpt)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// MemoryWriteInput is memory_write's input.
type MemoryWriteInput struct {
	Type     string   `json:"type" jsonschema:"decision, learning, artifact, gotcha, breadcrumb or hub"`
	Title    string   `json:"title" jsonschema:"a short title; the slug is made from type and title"`
	Content  string   `json:"content" jsonschema:"the memory, markdown"`
	Tags     []string `json:"tags" jsonschema:"at least one tag"`
	Files    []string `json:"files,omitempty" jsonschema:"workspace paths or globs the memory concerns"`
	Links    []string `json:"links,omitempty" jsonschema:"slugs of related memories of the same scope"`
	Severity string   `json:"severity,omitempty" jsonschema:"for a gotcha: low, medium, high or critical"`
	Scope    string   `json:"scope,omitempty" jsonschema:"project (default), local or global"`
}

// MemoryRef names a stored memory.
type MemoryRef struct {
	Scope string `json:"scope"`
	Slug  string `json:"slug"`
	Path  string `json:"path"`
}

func (s *Server) memoryWrite(ctx context.Context, _ *mcp.CallToolRequest, in MemoryWriteInput) (*mcp.CallToolResult, MemoryRef, error) {
	var out MemoryRef
	ty, err := memory.ParseType(in.Type)
	if err != nil {
		return nil, out, err
	}
	m := &memory.Memory{Slug: memory.SlugFor(ty, in.Title), Type: ty, Title: strings.TrimSpace(in.Title), Tags: in.Tags,
		Files: in.Files, Links: in.Links, Severity: in.Severity, Content: in.Content}
	if in.Scope != "" {
		if m.Scope, err = memory.ParseScope(in.Scope); err != nil {
			return nil, out, err
		}
	}
	ms, done, err := s.memories(ctx)
	if err != nil {
		return nil, out, err
	}
	defer done()
	if err := s.writeMemory(ctx, ms, m); err != nil {
		return nil, out, err
	}
	out = MemoryRef{Scope: string(m.Scope), Slug: m.Slug, Path: m.Path}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Recorded %s `%s` in the %s scope (%s).\n", m.Type, m.Slug, m.Scope, m.Path)}}}, out, nil
}

// MemoryLinkInput is memory_link's input.
type MemoryLinkInput struct {
	From  string `json:"from" jsonschema:"slug of the memory the edge starts at"`
	To    string `json:"to" jsonschema:"slug of the memory the edge ends at"`
	Label string `json:"label,omitempty" jsonschema:"relates-to (default), implements, part-of, builds-on, similar-to, ..."`
	Scope string `json:"scope,omitempty" jsonschema:"the scope both memories are in (default: the configured default, project)"`
}

// MemoryLinkOutput is memory_link's output.
type MemoryLinkOutput struct {
	Scope string `json:"scope"`
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
}

func (s *Server) memoryLink(ctx context.Context, _ *mcp.CallToolRequest, in MemoryLinkInput) (*mcp.CallToolResult, MemoryLinkOutput, error) {
	out := MemoryLinkOutput{From: in.From, To: in.To, Label: in.Label}
	if out.Label == "" {
		out.Label = memory.DefaultLabel
	}
	ms, done, err := s.memories(ctx)
	if err != nil {
		return nil, out, err
	}
	defer done()
	scope := ms.DefaultScope()
	if in.Scope != "" {
		if scope, err = memory.ParseScope(in.Scope); err != nil {
			return nil, out, err
		}
	}
	out.Scope = string(scope)
	if err := s.linkMemory(ctx, ms, scope, in.From, in.To, out.Label); err != nil {
		return nil, out, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Linked `%s` %s `%s` (%s scope).\n", in.From, out.Label, in.To, scope)}}}, out, nil
}
