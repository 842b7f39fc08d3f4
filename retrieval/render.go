package retrieval

// The one renderer of code for an assistant and an editor: the context's
// items (RenderItem, render, the <auto-context> wrapping) and a hover
// (hover.go) show code through the same excerpt, the same fenced block and
// its language, and the same neighbourhood listing, so that an entity reads
// alike in the auto-context, a hook's context and a hover.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/store"
)

// Limits of the neighbourhood listings: how much of an entity's
// surroundings in the reference graph each surface names.
const (
	// itemCalls bounds the names a context item lists under "calls".
	itemCalls = 8
	// itemUsers bounds the users a context item names under "used by",
	// each once, in the index's order; itemUserEdges the references to
	// the entity it reads to find them (a user may call it many times).
	itemUsers     = 8
	itemUserEdges = 4 * itemUsers
	// fileMembers bounds the declarations a file's context item names.
	fileMembers = 12
	// hoverEdges bounds the references a hover reads each way.
	hoverEdges = 200
	// hoverUsers bounds the users a hover names before "and N more".
	hoverUsers = 10
	// hoverUses bounds what a hover names of what the entity uses.
	hoverUses = 8
	// hoverMemories bounds the memories a hover lists.
	hoverMemories = 5
)

// buildItem reads what a context item shows of e at r.Detail: its excerpt
// and its neighbourhood (calls and users; for a file, its top-level
// declarations); short, half the excerpt and no neighbourhood; brief, the
// header alone.
func buildItem(ctx context.Context, st *store.Store, src *sourceCache, e store.Entity, r Result, excerptLines int) (Item, error) {
	it := Item{Path: e.Path, Line: e.StartLine, EndLine: e.EndLine, Kind: e.Kind, Name: e.Name, QName: e.QName,
		Score: r.Score, Relevance: r.Relevance}
	if r.Detail == DetailBrief {
		return rendered(it), nil
	}
	it.Signature, it.Doc = e.Signature, firstLines(e.Doc, 4)
	if r.Detail == DetailShort {
		excerptLines = max(excerptLines/2, 1)
	}
	if e.Kind == "file" {
		ents, err := st.EntitiesInFile(ctx, e.Path)
		if err != nil {
			return it, err
		}
		var names []string
		for _, c := range ents {
			if c.ParentID == e.ID && c.Kind != "file" && len(names) < fileMembers {
				names = append(names, c.Kind+" "+c.Name)
			}
		}
		it.Doc = strings.Join(names, ", ")
		return rendered(it), nil
	}
	it.Excerpt = src.excerpt(e.Path, e.StartLine, min(e.EndLine, e.StartLine+excerptLines-1))
	if excerptShows(it.Excerpt, it.Doc) {
		it.Doc = "" // a Python docstring, a doc comment the declaration spans
	}
	if r.Detail == DetailShort {
		return rendered(it), nil
	}
	refs, err := st.RefsFrom(ctx, e.ID)
	if err != nil {
		return it, err
	}
	// What it calls in the workspace first, in the order of the code, then
	// what resolves elsewhere (the standard library, builtins): eight
	// names of isinstance, get and pop left a workspace call out.
	seen := map[string]bool{}
	for _, resolved := range []bool{true, false} {
		for _, rf := range refs {
			if rf.Kind == store.RefCalls && (rf.DstID != 0) == resolved && !seen[rf.Name] && len(it.Calls) < itemCalls {
				seen[rf.Name] = true
				it.Calls = append(it.Calls, rf.Name)
			}
		}
	}
	callers, err := st.EdgesTo(ctx, []int64{e.ID}, itemUserEdges)
	if err != nil {
		return it, err
	}
	users, _, err := neighbours(ctx, st, callers, edgeSrc, itemUsers)
	if err != nil {
		return it, err
	}
	// Each user once, by name: two calls from one function, or from two
	// variants of it (Rust's #[cfg] twins), said nothing the first did not.
	named := map[string]bool{}
	for _, c := range users {
		if !named[c.QName] {
			named[c.QName] = true
			it.CalledBy = append(it.CalledBy, c.QName)
		}
	}
	return rendered(it), nil
}

// excerptShows reports whether an excerpt already holds a doc's first
// line, where the entity's span includes its documentation: quoting the
// doc above the code would send the same words twice.
func excerptShows(excerpt, doc string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(doc), "\n")
	first = strings.TrimSpace(first)
	return first != "" && strings.Contains(excerpt, first)
}

// rendered is it with its markdown and token estimate.
func rendered(it Item) Item {
	it.text = RenderItem(&it)
	it.tokens = EstimateTokens(it.text)
	return it
}

// seeAlso is the section of the entities a context names in brief.
const seeAlso = "See Also"

// edgeSrc and edgeDst pick an end of a reference for neighbours.
func edgeSrc(e store.Edge) int64 { return e.Src }
func edgeDst(e store.Edge) int64 { return e.Dst }

// neighbours is the one neighbourhood listing: the entities at the far end
// (far) of edges, each once, in the index's order, the first limit of them
// that the index still holds, and how many there are in all.
func neighbours(ctx context.Context, st *store.Store, edges []store.Edge, far func(store.Edge) int64, limit int) ([]store.Entity, int, error) {
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range edges {
		id := far(e)
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	shown := ids[:min(len(ids), limit)]
	byID, err := st.EntitiesByID(ctx, shown)
	if err != nil {
		return nil, len(ids), err
	}
	out := make([]store.Entity, 0, len(shown))
	for _, id := range shown {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		}
	}
	return out, len(ids), nil
}

// RenderItem renders one context item as markdown.
func RenderItem(it *Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s `%s` — %s:%d\n", it.Kind, it.QName, it.Path, it.Line)
	if it.Doc != "" {
		for _, l := range strings.Split(it.Doc, "\n") {
			b.WriteString("> " + l + "\n")
		}
	}
	switch {
	case it.Excerpt != "":
		b.WriteString(fenced(it.Path, it.Excerpt))
	case it.Signature != "":
		fmt.Fprintf(&b, "`%s`\n", it.Signature)
	}
	if len(it.Calls) > 0 {
		fmt.Fprintf(&b, "calls: %s\n", strings.Join(it.Calls, ", "))
	}
	if len(it.CalledBy) > 0 {
		fmt.Fprintf(&b, "used by: %s\n", strings.Join(it.CalledBy, ", "))
	}
	b.WriteByte('\n')
	return b.String()
}

// fenced renders code of the file at path as a fenced block in the file's
// language, the fence longer than any run of backticks in code.
func fenced(path, code string) string {
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + fenceLang(path) + "\n" + code + "\n" + fence + "\n"
}

// fenceLang names a code block's language from a path's extension: the
// Markdown names of the languages whose extension is not their name, else
// the extension itself.
func fenceLang(p string) string {
	ext := strings.TrimPrefix(filepath.Ext(p), ".")
	switch ext {
	case "py":
		return "python"
	case "rs":
		return "rust"
	case "ts", "tsx":
		return "typescript"
	case "js", "jsx", "mjs", "cjs":
		return "javascript"
	case "rb":
		return "ruby"
	case "cs":
		return "csharp"
	case "kt", "kts":
		return "kotlin"
	case "h", "hpp", "cc", "cxx":
		return "cpp"
	}
	return ext
}

func render(c *Context) string {
	if c.Abstained {
		return WrapContext("")
	}
	var b strings.Builder
	for _, s := range c.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Title)
		for i := range s.Items {
			b.WriteString(s.Items[i].text)
		}
	}
	return WrapContext(b.String())
}

// Tags around an auto-context.
const (
	contextOpen  = "<auto-context>\n"
	contextClose = "</auto-context>\n"
)

// WrapContext encloses a markdown body in <auto-context> tags, with a blank
// line after the opening tag and before the closing one: without them a
// CommonMark renderer takes the tag and the next heading for one HTML block
// and shows "## Editing" as raw text.
func WrapContext(body string) string {
	body = strings.Trim(body, "\n")
	if body == "" {
		return contextOpen + contextClose
	}
	return contextOpen + "\n" + body + "\n\n" + contextClose
}

// UnwrapContext returns the body WrapContext enclosed (without the blank
// lines around it), or md unchanged when it is not wrapped.
func UnwrapContext(md string) string {
	if !strings.HasPrefix(md, contextOpen) || !strings.HasSuffix(md, contextClose) {
		return md
	}
	return strings.Trim(md[len(contextOpen):len(md)-len(contextClose)], "\n")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// excerpt returns lines [from, to] (1-based, inclusive) of a file as read
// for rendering; "" when the file cannot be read.
func (s *sourceCache) excerpt(rel string, from, to int) string {
	return excerptOf(s.file(rel).lines, from, to)
}

// Excerpt returns lines [from, to] (1-based, inclusive) of text, as the
// context shows them: trailing blanks trimmed, long lines cut on a rune
// boundary. The Editing section renders open buffers with it, so that a
// buffer and the same text on disk render alike.
func Excerpt(text []byte, from, to int) string {
	return excerptOf(bytes.Split(text, []byte("\n")), from, to)
}

// maxLineBytes cuts a long line (minified code, data) in an excerpt.
const maxLineBytes = 240

func excerptOf(lines [][]byte, from, to int) string {
	if from < 1 || from > len(lines) {
		return ""
	}
	to = min(to, len(lines))
	var b strings.Builder
	for i := from - 1; i < to; i++ {
		l := strings.TrimRight(string(lines[i]), " \t\r")
		if len(l) > maxLineBytes {
			cut := maxLineBytes
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "…"
		}
		b.WriteString(l)
		if i < to-1 {
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
