package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
)

const (
	// maxContextTokens bounds context_query's budget so that its context
	// fits the output cap with room for the result list.
	maxContextTokens = 6000
	defaultLimit     = 20
	maxLimit         = 100
)

func (s *Server) registerTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "context_query", Title: "Code context for a question", Annotations: readOnly,
		Description: "Ranked code context from this workspace for a question, task or pasted error: the symbols it names, related code, callers, with signatures, docs and excerpts, within max_tokens. Returns nothing (abstained) when no code is relevant.",
	}, s.contextQuery)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "symbol_lookup", Title: "Definitions, references and callers of a symbol", Annotations: readOnly,
		Description: "Where a name is defined (kind, signature, doc, file and line), where it is referenced, and which functions call it. Accepts Name, pkg.Name or Type.Method.",
	}, s.symbolLookup)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "related", Title: "Graph neighbours of a file or symbol", Annotations: readOnly,
		Description: "What a file or symbol uses (calls, references, imports, extends, implements) and what uses it, from the index's entity graph, with the files most connected to it. Give exactly one of file or symbol.",
	}, s.related)
	// Further tools register with one mcp.AddTool call each, as the memory
	// tools do (memory_tools.go).
}

// ContextQueryInput is context_query's input.
type ContextQueryInput struct {
	Text        string   `json:"text" jsonschema:"the question, task description or error output to find code for"`
	MaxTokens   int      `json:"max_tokens,omitempty" jsonschema:"token budget of the context (default: retrieval.maxTokens of the workspace config, 4000; at most 6000)"`
	ActiveFiles []string `json:"active_files,omitempty" jsonschema:"files in play, workspace-relative, the one being worked on first: they and their neighbours rank higher"`
}

// ContextQueryOutput is context_query's output.
type ContextQueryOutput struct {
	Context   string         `json:"context" jsonschema:"the context as markdown, wrapped in <auto-context>"`
	Tokens    int            `json:"tokens" jsonschema:"estimated tokens of the context"`
	Abstained bool           `json:"abstained" jsonschema:"true when nothing was relevant enough to return"`
	Reason    string         `json:"reason,omitempty" jsonschema:"why nothing was returned"`
	Results   []RankedEntity `json:"results" jsonschema:"the ranked entities behind the context, best first"`
	Truncated bool           `json:"truncated,omitempty" jsonschema:"true when results were cut to fit the output cap"`
}

// RankedEntity is one ranked entity of context_query.
type RankedEntity struct {
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	QName     string  `json:"qualified_name"`
	Path      string  `json:"path"`
	Line      int     `json:"line"`
	EndLine   int     `json:"end_line"`
	Score     float64 `json:"score"`
	Relevance float64 `json:"relevance"`
}

func (s *Server) contextQuery(ctx context.Context, _ *mcp.CallToolRequest, in ContextQueryInput) (*mcp.CallToolResult, ContextQueryOutput, error) {
	var zero ContextQueryOutput
	q := strings.TrimSpace(in.Text)
	if q == "" {
		return nil, zero, errors.New("text is empty: pass the question, task or error to find code for")
	}
	if in.MaxTokens < 0 {
		return nil, zero, fmt.Errorf("max_tokens must be positive, got %d", in.MaxTokens)
	}
	st, err := s.store(ctx)
	if err != nil {
		return nil, zero, err
	}
	cfg := s.config()
	budget := cfg.Retrieval.MaxTokens
	if in.MaxTokens > 0 {
		budget = in.MaxTokens
	}
	budget = min(budget, maxContextTokens)
	// Shaped as the prompt hook's context (decision 0091), gated as a
	// deliberate lookup.
	req := retrieval.ForLookup(analyzer.CutMessage(q), cfg.Retrieval.MaxSections, cfg.Retrieval.MinRelevance)
	for _, f := range in.ActiveFiles {
		if rel, ok := s.relPath(f); ok {
			req.ActiveFiles = append(req.ActiveFiles, rel)
		}
	}
	c, resp, err := retrieval.QueryContext(ctx, st, req, retrieval.ContextOptions{
		Root: s.opts.Root, MaxTokens: budget, MaxSections: cfg.Retrieval.MaxSections,
	})
	if err != nil {
		return nil, zero, err
	}
	out := ContextQueryOutput{Context: c.Markdown, Tokens: c.Tokens, Abstained: c.Abstained, Reason: c.Reason, Results: []RankedEntity{}}
	if !c.Abstained {
		for _, r := range resp.Results[:min(len(resp.Results), cfg.Retrieval.MaxSections)] {
			e := r.Entity
			out.Results = append(out.Results, RankedEntity{Kind: e.Kind, Name: e.Name, QName: e.QName, Path: e.Path,
				Line: e.StartLine, EndLine: e.EndLine, Score: round3(r.Score), Relevance: round3(r.Relevance)})
		}
	}
	return finish(s.opts.MaxOutputBytes, s.buildingNote(ctx, st), &out, renderContext, func(o *ContextQueryOutput) bool {
		o.Truncated = true
		return dropLast(&o.Results)
	})
}

func renderContext(o *ContextQueryOutput) string {
	if o.Abstained {
		return fmt.Sprintf("No code in this workspace is relevant enough to this text (%s). Name a symbol, file or error, or use symbol_lookup.\n", o.Reason)
	}
	return o.Context
}

// relPath makes a client's path workspace-relative: absolute paths must lie
// under the root; relative ones are taken as relative to it.
func (s *Server) relPath(p string) (string, bool) {
	if p = strings.TrimSpace(p); p == "" {
		return "", false
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(s.opts.Root, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		p = r
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// SymbolLookupInput is symbol_lookup's input.
type SymbolLookupInput struct {
	Name  string `json:"name" jsonschema:"the symbol: Name, pkg.Name or Type.Method (case-sensitive when an exact match exists)"`
	Limit int    `json:"limit,omitempty" jsonschema:"most definitions, references and callers to list, each (default 20, at most 100)"`
}

// SymbolLookupOutput is symbol_lookup's output.
type SymbolLookupOutput struct {
	Definitions     []Definition `json:"definitions"`
	References      []Reference  `json:"references" jsonschema:"references resolved to the definitions, then unresolved ones with the same name"`
	ReferencesTotal int          `json:"references_total" jsonschema:"all references found, before the limit"`
	Callers         []EntityRef  `json:"callers" jsonschema:"distinct functions and methods that call a definition"`
	CallersTotal    int          `json:"callers_total"`
	Truncated       bool         `json:"truncated,omitempty"`
}

// Definition is where a symbol is defined.
type Definition struct {
	Kind      string `json:"kind"`
	QName     string `json:"qualified_name"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	EndLine   int    `json:"end_line"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty"`
}

// Reference is one use of a symbol.
type Reference struct {
	Kind     string `json:"kind" jsonschema:"calls, references, extends, implements or imports"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	From     string `json:"from,omitempty" jsonschema:"the entity the reference is in"`
	Resolved bool   `json:"resolved" jsonschema:"false when the indexer could not tell which definition it means"`
}

// EntityRef names an entity and where it is.
type EntityRef struct {
	Kind  string `json:"kind"`
	QName string `json:"qualified_name"`
	Path  string `json:"path"`
	Line  int    `json:"line"`
}

func entityRef(e store.Entity) EntityRef {
	return EntityRef{Kind: e.Kind, QName: e.QName, Path: e.Path, Line: e.StartLine}
}

// limitOf validates and defaults a limit argument.
func limitOf(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("limit must be positive, got %d", n)
	case n == 0:
		return defaultLimit, nil
	}
	return min(n, maxLimit), nil
}

// splitSymbol splits Name, pkg.Name, Type.Method, Type::method or
// Type#method (an optional trailing "()" dropped) into its qualifier and the
// entity's own name.
func splitSymbol(name string) (qual, last string) {
	name = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "()"))
	if i := strings.LastIndexAny(name, ".:#"); i >= 0 && i < len(name)-1 {
		return strings.Trim(name[:i], ".:#"), name[i+1:]
	}
	return "", name
}

// resolveSymbol finds the definitions a name denotes: Name, or a qualified
// pkg.Name / Type.Method whose last part is the entity's name.
func resolveSymbol(ctx context.Context, st *store.Store, name string, limit int) ([]store.Entity, error) {
	qual, last := splitSymbol(name)
	if last == "" {
		return nil, errors.New("name is empty: pass a symbol such as Open, store.Open or Store.Close")
	}
	cands, err := st.EntitiesByName(ctx, last, 200)
	if err != nil {
		return nil, err
	}
	// The best tier of matches wins: exact case before any case, and for a
	// dotted name the qualified name before the package directory.
	best, bestTier := []store.Entity(nil), 0
	for _, e := range cands {
		tier := 1
		if qual != "" {
			tier = qualifies(e, qual, last)
		}
		if tier == 0 {
			continue
		}
		tier *= 2
		if e.Name == last {
			tier++
		}
		switch {
		case tier > bestTier:
			best, bestTier = []store.Entity{e}, tier
		case tier == bestTier:
			best = append(best, e)
		}
	}
	return best[:min(len(best), limit)], nil
}

// qualifies rates how well e matches the qualifier of a dotted name: 2 when
// its qualified name is or ends with qual.last, 1 when its directory (the
// package) is named qual, 0 when it does not match.
func qualifies(e store.Entity, qual, last string) int {
	full := strings.ToLower(qual + "." + last)
	q := strings.ToLower(e.QName)
	if q == full || strings.HasSuffix(q, "."+full) || strings.HasSuffix(q, "::"+strings.ReplaceAll(full, ".", "::")) {
		return 2
	}
	dir := path.Dir(e.Path)
	if strings.EqualFold(path.Base(dir), qual) || strings.EqualFold(dir, qual) {
		return 1
	}
	return 0
}

func (s *Server) symbolLookup(ctx context.Context, _ *mcp.CallToolRequest, in SymbolLookupInput) (*mcp.CallToolResult, SymbolLookupOutput, error) {
	out := SymbolLookupOutput{Definitions: []Definition{}, References: []Reference{}, Callers: []EntityRef{}}
	limit, err := limitOf(in.Limit)
	if err != nil {
		return nil, out, err
	}
	st, err := s.store(ctx)
	if err != nil {
		return nil, out, err
	}
	defs, err := resolveSymbol(ctx, st, in.Name, limit)
	if err != nil {
		return nil, out, err
	}
	isDef := map[int64]bool{}
	for _, d := range defs {
		isDef[d.ID] = true
		out.Definitions = append(out.Definitions, Definition{Kind: d.Kind, QName: d.QName, Path: d.Path, Line: d.StartLine,
			EndLine: d.EndLine, Signature: oneLine(d.Signature, 300), Doc: truncate(strings.TrimSpace(d.Doc), 600)})
	}
	_, name := splitSymbol(in.Name)
	refs, err := st.Refs(ctx, nil, []string{name})
	if err != nil {
		return nil, out, err
	}
	// Resolved references to these definitions first, then unresolved ones
	// that may mean them; references resolved to other entities of the same
	// name are someone else's.
	var resolved, unresolved []store.Ref
	callerIDs := map[int64]bool{}
	var callerOrder []int64
	for _, r := range refs {
		switch {
		case isDef[r.DstID]:
			resolved = append(resolved, r)
			if r.Kind == store.RefCalls && !callerIDs[r.SrcID] {
				callerIDs[r.SrcID] = true
				callerOrder = append(callerOrder, r.SrcID)
			}
		case r.DstID == 0 && len(defs) > 0:
			unresolved = append(unresolved, r)
		}
	}
	out.ReferencesTotal = len(resolved) + len(unresolved)
	out.CallersTotal = len(callerOrder)
	shown := slices.Concat(resolved[:min(len(resolved), limit)], unresolved[:min(len(unresolved), max(limit-len(resolved), 0))])
	ids := callerOrder[:min(len(callerOrder), limit)]
	for _, r := range shown {
		ids = append(ids, r.SrcID)
	}
	byID, err := st.EntitiesByID(ctx, ids)
	if err != nil {
		return nil, out, err
	}
	for _, r := range shown {
		src := byID[r.SrcID]
		from := src.QName
		if src.Kind == "file" {
			from = ""
		}
		out.References = append(out.References, Reference{Kind: r.Kind.String(), Path: src.Path, Line: r.Line, From: from, Resolved: r.DstID != 0})
	}
	for _, id := range callerOrder[:min(len(callerOrder), limit)] {
		if e, ok := byID[id]; ok {
			out.Callers = append(out.Callers, entityRef(e))
		}
	}
	out.Truncated = len(out.References) < out.ReferencesTotal || len(out.Callers) < out.CallersTotal
	return finish(s.opts.MaxOutputBytes, s.buildingNote(ctx, st), &out, func(o *SymbolLookupOutput) string { return renderLookup(in.Name, o) }, func(o *SymbolLookupOutput) bool {
		o.Truncated = true
		if dropLast(&o.References) {
			return true
		}
		return dropLast(&o.Callers) || dropLast(&o.Definitions)
	})
}

func renderLookup(name string, o *SymbolLookupOutput) string {
	var b strings.Builder
	if len(o.Definitions) == 0 {
		fmt.Fprintf(&b, "No definition of `%s` in the index.\n", name)
		return b.String()
	}
	fmt.Fprintf(&b, "## Definitions of `%s`\n\n", name)
	for _, d := range o.Definitions {
		fmt.Fprintf(&b, "- %s `%s` — %s:%d", d.Kind, d.QName, d.Path, d.Line)
		if d.Signature != "" {
			fmt.Fprintf(&b, "\n  `%s`", d.Signature)
		}
		if d.Doc != "" {
			fmt.Fprintf(&b, "\n  %s", strings.ReplaceAll(firstLine(d.Doc), "\n", " "))
		}
		b.WriteByte('\n')
	}
	if len(o.Callers) > 0 {
		fmt.Fprintf(&b, "\n## Callers (%d of %d)\n\n", len(o.Callers), o.CallersTotal)
		for _, c := range o.Callers {
			fmt.Fprintf(&b, "- %s `%s` — %s:%d\n", c.Kind, c.QName, c.Path, c.Line)
		}
	}
	fmt.Fprintf(&b, "\n## References (%d of %d)\n\n", len(o.References), o.ReferencesTotal)
	for _, r := range o.References {
		fmt.Fprintf(&b, "- %s:%d %s", r.Path, r.Line, r.Kind)
		if r.From != "" {
			fmt.Fprintf(&b, " in `%s`", r.From)
		}
		if !r.Resolved {
			b.WriteString(" (unresolved: may mean another definition of this name)")
		}
		b.WriteByte('\n')
	}
	if o.Truncated {
		b.WriteString("\n(Lists cut to the limit or the output cap; pass a larger limit or a qualified name.)\n")
	}
	return b.String()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// RelatedInput is related's input.
type RelatedInput struct {
	File   string `json:"file,omitempty" jsonschema:"a workspace-relative file path (or a unique suffix of one)"`
	Symbol string `json:"symbol,omitempty" jsonschema:"a symbol: Name, pkg.Name or Type.Method"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most neighbours to list in each direction (default 20, at most 100)"`
}

// RelatedOutput is related's output.
type RelatedOutput struct {
	Target    string          `json:"target" jsonschema:"the file or symbol asked about"`
	Entities  []EntityRef     `json:"entities" jsonschema:"the definitions a symbol denotes, or the file itself"`
	Uses      []Neighbour     `json:"uses" jsonschema:"what the target calls, references, imports, extends or implements, most connected first"`
	UsedBy    []Neighbour     `json:"used_by" jsonschema:"what calls, references, imports, extends or implements the target"`
	Files     []FileNeighbour `json:"files" jsonschema:"other files connected to the target, most edges first"`
	Truncated bool            `json:"truncated,omitempty"`
}

// Neighbour is an entity one edge away.
type Neighbour struct {
	Relation string `json:"relation" jsonschema:"the edge as seen from the target: calls, references, imports, extends, implements, contains, or called by, referenced by, imported by, extended by, implemented by, contained in"`
	EntityRef
	Via   string `json:"via,omitempty" jsonschema:"the target's entity the edge starts or ends at"`
	Edges int    `json:"edges" jsonschema:"how many references make up the edge"`
}

// FileNeighbour is a file connected to the target.
type FileNeighbour struct {
	Path   string `json:"path"`
	Uses   int    `json:"uses" jsonschema:"references from the target into this file"`
	UsedBy int    `json:"used_by" jsonschema:"references from this file into the target"`
}

var inverse = map[store.RefKind]string{
	store.RefCalls: "called by", store.RefReferences: "referenced by", store.RefImports: "imported by",
	store.RefExtends: "extended by", store.RefImplements: "implemented by",
}

func (s *Server) related(ctx context.Context, _ *mcp.CallToolRequest, in RelatedInput) (*mcp.CallToolResult, RelatedOutput, error) {
	out := RelatedOutput{Entities: []EntityRef{}, Uses: []Neighbour{}, UsedBy: []Neighbour{}, Files: []FileNeighbour{}}
	limit, err := limitOf(in.Limit)
	if err != nil {
		return nil, out, err
	}
	file, sym := strings.TrimSpace(in.File), strings.TrimSpace(in.Symbol)
	if (file == "") == (sym == "") {
		return nil, out, errors.New("give exactly one of file or symbol")
	}
	st, err := s.store(ctx)
	if err != nil {
		return nil, out, err
	}
	var ids []int64
	self := ""
	if file != "" {
		rel, ok := s.relPath(file)
		if !ok {
			return nil, out, fmt.Errorf("file %q is outside the workspace %s", file, s.opts.Root)
		}
		f, err := findFile(ctx, st, rel)
		if err != nil {
			return nil, out, err
		}
		out.Target, self = f.Path, f.Path
		ents, err := st.EntitiesInFile(ctx, f.Path)
		if err != nil {
			return nil, out, err
		}
		for _, e := range ents {
			ids = append(ids, e.ID)
			if e.Kind == "file" {
				out.Entities = append(out.Entities, entityRef(e))
			}
		}
	} else {
		defs, err := resolveSymbol(ctx, st, sym, 5)
		if err != nil {
			return nil, out, err
		}
		if len(defs) == 0 {
			return nil, out, fmt.Errorf("no definition of %q in the index (symbol_lookup lists references by name)", sym)
		}
		out.Target = sym
		for _, d := range defs {
			ids = append(ids, d.ID)
			out.Entities = append(out.Entities, entityRef(d))
		}
	}
	n, err := neighbours(ctx, st, ids, self, limit)
	if err != nil {
		return nil, out, err
	}
	out.Uses, out.UsedBy, out.Files, out.Truncated = n.uses, n.usedBy, n.files, n.truncated
	if sym != "" {
		// A symbol's container and members are neighbours too.
		contains, err := containment(ctx, st, ids, limit)
		if err != nil {
			return nil, out, err
		}
		out.Uses = append(contains.uses, out.Uses...)
		out.UsedBy = append(contains.usedBy, out.UsedBy...)
	}
	return finish(s.opts.MaxOutputBytes, s.buildingNote(ctx, st), &out, renderRelated, func(o *RelatedOutput) bool {
		o.Truncated = true
		return dropLast(&o.Uses, &o.UsedBy) || dropLast(&o.Files)
	})
}

// findFile finds an indexed file by path, or by a path suffix that only one
// file has.
func findFile(ctx context.Context, st *store.Store, rel string) (store.File, error) {
	f, ok, err := st.FileByPath(ctx, rel)
	if err != nil || ok {
		return f, err
	}
	fs, err := st.FilesByPathSuffix(ctx, rel, 3)
	if err != nil {
		return f, err
	}
	var exact []store.File
	for _, c := range fs {
		if c.Path == rel || strings.HasSuffix(c.Path, "/"+rel) {
			exact = append(exact, c)
		}
	}
	switch len(exact) {
	case 0:
		return f, fmt.Errorf("no file %q in the index", rel)
	case 1:
		return exact[0], nil
	}
	return f, fmt.Errorf("%q is ambiguous (%s, %s, ...): give more of the path", rel, exact[0].Path, exact[1].Path)
}

func renderRelated(o *RelatedOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Related to `%s`\n", o.Target)
	for _, e := range o.Entities {
		if e.Kind != "file" {
			fmt.Fprintf(&b, "\n%s `%s` — %s:%d", e.Kind, e.QName, e.Path, e.Line)
		}
	}
	b.WriteByte('\n')
	if len(o.Uses) == 0 && len(o.UsedBy) == 0 {
		b.WriteString("\nNo resolved edges in the index.\n")
	}
	writeNeighbours(&b, "Uses", o.Uses)
	writeNeighbours(&b, "Used by", o.UsedBy)
	if len(o.Files) > 0 {
		b.WriteString("\n## Connected files\n\n")
		for _, f := range o.Files {
			fmt.Fprintf(&b, "- %s (uses %d, used by %d)\n", f.Path, f.Uses, f.UsedBy)
		}
	}
	if o.Truncated {
		b.WriteString("\n(Lists cut to the limit or the output cap; pass a larger limit.)\n")
	}
	return b.String()
}

// neighbourhood is what neighbours found.
type neighbourhood struct {
	uses, usedBy []Neighbour
	files        []FileNeighbour
	truncated    bool
}

// maxEdges bounds the edges read per direction.
const maxEdges = 5000

// neighbours follows resolved references out of and into ids, grouping them
// by the entity at the other end (most edges first) and by file. Entities
// in self (a file path) or among ids are not neighbours.
func neighbours(ctx context.Context, st *store.Store, ids []int64, self string, limit int) (neighbourhood, error) {
	n := neighbourhood{files: []FileNeighbour{}}
	in := map[int64]bool{}
	for _, id := range ids {
		in[id] = true
	}
	from, err := st.EdgesFrom(ctx, ids, maxEdges)
	if err != nil {
		return n, err
	}
	to, err := st.EdgesTo(ctx, ids, maxEdges)
	if err != nil {
		return n, err
	}
	n.truncated = len(from) == maxEdges || len(to) == maxEdges || len(ids) > 900
	type key struct {
		other int64
		kind  store.RefKind
	}
	type group struct {
		key
		via   int64
		edges int
	}
	collect := func(edges []store.Edge, outgoing bool) []*group {
		byKey := map[key]*group{}
		var order []*group
		for _, e := range edges {
			other, mine := e.Dst, e.Src
			if !outgoing {
				other, mine = e.Src, e.Dst
			}
			if in[other] {
				continue
			}
			k := key{other, e.Kind}
			g := byKey[k]
			if g == nil {
				g = &group{key: k, via: mine}
				byKey[k] = g
				order = append(order, g)
			}
			g.edges++
		}
		return order
	}
	outs, ins := collect(from, true), collect(to, false)
	var want []int64
	for _, g := range append(append([]*group{}, outs...), ins...) {
		want = append(want, g.other, g.via)
	}
	byID, err := st.EntitiesByID(ctx, want)
	if err != nil {
		return n, err
	}
	files := map[string]*FileNeighbour{}
	build := func(groups []*group, outgoing bool) []Neighbour {
		list := []Neighbour{}
		for _, g := range groups {
			e, ok := byID[g.other]
			if !ok || (self != "" && e.Path == self) {
				continue
			}
			fn := files[e.Path]
			if fn == nil {
				fn = &FileNeighbour{Path: e.Path}
				files[e.Path] = fn
			}
			rel := g.kind.String()
			if outgoing {
				fn.Uses += g.edges
			} else {
				fn.UsedBy += g.edges
				rel = inverse[g.kind]
			}
			via := ""
			if v, ok := byID[g.via]; ok && v.Kind != "file" {
				via = v.QName
			}
			list = append(list, Neighbour{Relation: rel, EntityRef: entityRef(e), Via: via, Edges: g.edges})
		}
		sort.SliceStable(list, func(a, b int) bool {
			if list[a].Edges != list[b].Edges {
				return list[a].Edges > list[b].Edges
			}
			if list[a].Path != list[b].Path {
				return list[a].Path < list[b].Path
			}
			return list[a].Line < list[b].Line
		})
		if len(list) > limit {
			list, n.truncated = list[:limit], true
		}
		return list
	}
	n.uses, n.usedBy = build(outs, true), build(ins, false)
	for _, f := range files {
		n.files = append(n.files, *f)
	}
	sort.Slice(n.files, func(a, b int) bool {
		wa, wb := n.files[a].Uses+n.files[a].UsedBy, n.files[b].Uses+n.files[b].UsedBy
		if wa != wb {
			return wa > wb
		}
		return n.files[a].Path < n.files[b].Path
	})
	if len(n.files) > limit {
		n.files, n.truncated = n.files[:limit], true
	}
	return n, nil
}

// containment lists the containers and members of entities: a method's
// type, a type's methods and fields.
func containment(ctx context.Context, st *store.Store, ids []int64, limit int) (neighbourhood, error) {
	var n neighbourhood
	ents, err := st.EntitiesByID(ctx, ids)
	if err != nil {
		return n, err
	}
	var parents []int64
	for _, id := range ids {
		if e, ok := ents[id]; ok && e.ParentID != 0 && e.ParentID != e.FileID {
			parents = append(parents, e.ParentID)
		}
	}
	ps, err := st.EntitiesByID(ctx, parents)
	if err != nil {
		return n, err
	}
	for _, id := range ids {
		e := ents[id]
		if p, ok := ps[e.ParentID]; ok {
			n.usedBy = append(n.usedBy, Neighbour{Relation: "contained in", EntityRef: entityRef(p), Via: e.QName, Edges: 1})
		}
		inFile, err := st.EntitiesInFile(ctx, e.Path)
		if err != nil {
			return n, err
		}
		for _, c := range inFile {
			if c.ParentID == id && len(n.uses) < limit {
				n.uses = append(n.uses, Neighbour{Relation: "contains", EntityRef: entityRef(c), Via: e.QName, Edges: 1})
			}
		}
	}
	return n, nil
}
