package retrieval

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/store"
)

// ContextOptions bound an assembled context (the seed's configuration keys).
type ContextOptions struct {
	// Root is the workspace root, to read excerpts from.
	Root        string
	MaxTokens   int
	MaxSections int
	// ExcerptLines bounds each entity's body excerpt; 0 means 12.
	ExcerptLines int
	// Now stamps the context; zero means time.Now.
	Now time.Time
	// Refresh re-indexes files found changed on disk before they are
	// rendered; nil leaves their entities out (decision 0092).
	Refresh Refresher
	// Log records what was left out and why; nil means no log.
	Log *zap.Logger
	// Overlay holds the editor's open documents: for a file open in the
	// editor the buffer, not the disk, is what is current, and its entities
	// are rendered only while the index holds that buffer (decision 0095).
	// nil: the disk is current for every file.
	Overlay Overlay
}

// Overlay gives the text of the documents open in an editor.
type Overlay interface {
	// Open returns the text of the open buffer of rel (root-relative,
	// slash-separated); ok is false when rel is not open.
	Open(rel string) (text []byte, ok bool)
}

// Item is one entity in the context.
type Item struct {
	Path      string   `json:"path"`
	Line      int      `json:"line"`
	EndLine   int      `json:"endLine"`
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	QName     string   `json:"qualifiedName"`
	Signature string   `json:"signature,omitempty"`
	Doc       string   `json:"doc,omitempty"`
	Excerpt   string   `json:"excerpt,omitempty"`
	Calls     []string `json:"calls,omitempty"`
	// CalledBy lists entities with a resolved reference to this one:
	// callers, and users of a type.
	CalledBy  []string `json:"usedBy,omitempty"`
	Score     float64  `json:"score"`
	Relevance float64  `json:"relevance"`
	tokens    int
	text      string
}

// Section groups items under a heading, as in the seed.
type Section struct {
	Title string `json:"title"`
	Items []Item `json:"items"`
}

// Context is an assembled auto-context.
type Context struct {
	Generated time.Time `json:"generated"`
	Query     string    `json:"query,omitempty"`
	Active    []string  `json:"activeFiles,omitempty"`
	Sections  []Section `json:"sections"`
	Tokens    int       `json:"tokens"`
	Abstained bool      `json:"abstained"`
	Reason    string    `json:"reason,omitempty"`
	// Stale lists the files whose entities were left out because they no
	// longer match the index (changed, deleted or unreadable on disk).
	Stale    []string `json:"stale,omitempty"`
	Markdown string   `json:"-"`
}

// EstimateTokens estimates the tokens of text at about four characters per
// token, the usual ratio for English and code with BPE vocabularies.
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

// Assemble packs the best results of resp into sections within the token
// budget. Items are whole (never cut mid-line), each entity appears once.
//
// Nothing is rendered from a file whose size, mtime or content no longer
// match the index (decision 0092): with opts.Root set, the files of the
// results are checked first; changed ones are re-indexed through
// opts.Refresh when the deadline allows, and then resp is replaced by the
// query's new answer; the results of files still not current are removed
// from resp and listed in the context's Stale.
func Assemble(ctx context.Context, st *store.Store, req Request, resp *Response, opts ContextOptions) (*Context, error) {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = 4000
	}
	if opts.MaxSections <= 0 {
		opts.MaxSections = 10
	}
	if opts.ExcerptLines <= 0 {
		opts.ExcerptLines = 12
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	out := &Context{Generated: opts.Now.UTC(), Query: req.Text, Active: req.ActiveFiles}
	abstain := func() (*Context, error) {
		out.Abstained, out.Reason = true, resp.Reason
		if out.Reason == "" {
			out.Reason = "no results"
		}
		out.Markdown = render(out)
		return out, nil
	}
	if resp.Abstain || len(resp.Results) == 0 {
		return abstain()
	}
	src, stale, err := freshen(ctx, st, req, resp, opts, opts.MaxSections)
	if err != nil {
		return nil, err
	}
	out.Stale = stale
	if resp.Abstain || len(resp.Results) == 0 {
		if !resp.Abstain && len(stale) > 0 {
			resp.Reason = "the files of the results changed on disk"
		}
		return abstain()
	}
	out.Reason = resp.Reason
	budget := opts.MaxTokens - EstimateTokens(WrapContext("")) - 40
	sections := map[string]*Section{}
	var order []string
	seen := map[int64]bool{}
	items := 0
	for _, r := range resp.Results {
		if items >= opts.MaxSections {
			break
		}
		e := r.Entity
		if seen[e.ID] {
			continue
		}
		if f := src.file(e.Path); f.state != Fresh {
			// A file past those freshen checked, found changed only now:
			// too late to re-index, so left out.
			if !slices.Contains(out.Stale, e.Path) {
				out.Stale = append(out.Stale, e.Path)
			}
			continue
		}
		title := "Related Code"
		switch {
		case e.Kind == "file":
			title = "File Context"
		case r.Signals.Exact >= 0.85:
			title = "Symbol: " + e.Name
		case r.Signals.Active > 0 && r.Signals.Lexical < 0.2:
			title = "File Context"
		}
		it, err := buildItem(ctx, st, src, e, r, opts.ExcerptLines)
		if err != nil {
			return nil, err
		}
		if e.Kind != "file" && it.Excerpt != "" && !strings.Contains(firstLines(it.Excerpt, 3), e.Name) {
			// The file checked out fresh, yet its first lines there no
			// longer declare the entity: the index changed between the query
			// and the check (a background run committing). Shown, it would
			// be wrong code. (Every entity of 9,500 sampled over the four dev
			// repositories names itself within its first three lines.)
			if !slices.Contains(out.Stale, e.Path) {
				out.Stale = append(out.Stale, e.Path)
			}
			continue
		}
		cost := it.tokens
		s := sections[title]
		if s == nil {
			if len(order) >= opts.MaxSections {
				continue
			}
			cost += EstimateTokens("## " + title + "\n\n")
		}
		if cost > budget {
			// Try a compact form before giving up on the item.
			it.Excerpt = ""
			it.text = RenderItem(&it)
			it.tokens = EstimateTokens(it.text)
			cost = it.tokens
			if s == nil {
				cost += EstimateTokens("## " + title + "\n\n")
			}
			if cost > budget {
				continue
			}
		}
		if s == nil {
			s = &Section{Title: title}
			sections[title] = s
			order = append(order, title)
		}
		s.Items = append(s.Items, it)
		seen[e.ID] = true
		budget -= cost
		items++
	}
	// Symbols first, then related code, then file context: the seed's order
	// puts what was asked about before what surrounds it.
	rank := func(t string) int {
		switch {
		case strings.HasPrefix(t, "Symbol: "):
			return 0
		case t == "Related Code":
			return 1
		}
		return 2
	}
	for pass := 0; pass < 3; pass++ {
		for _, t := range order {
			if rank(t) == pass {
				out.Sections = append(out.Sections, *sections[t])
			}
		}
	}
	out.Markdown = render(out)
	out.Tokens = EstimateTokens(out.Markdown)
	return out, nil
}

func buildItem(ctx context.Context, st *store.Store, src *sourceCache, e store.Entity, r Result, excerptLines int) (Item, error) {
	it := Item{Path: e.Path, Line: e.StartLine, EndLine: e.EndLine, Kind: e.Kind, Name: e.Name, QName: e.QName,
		Signature: e.Signature, Doc: firstLines(e.Doc, 4), Score: r.Score, Relevance: r.Relevance}
	if e.Kind != "file" {
		it.Excerpt = src.excerpt(e.Path, e.StartLine, min(e.EndLine, e.StartLine+excerptLines-1))
		refs, err := st.RefsFrom(ctx, e.ID)
		if err != nil {
			return it, err
		}
		seen := map[string]bool{}
		for _, rf := range refs {
			if rf.Kind == store.RefCalls && !seen[rf.Name] && len(it.Calls) < 8 {
				seen[rf.Name] = true
				it.Calls = append(it.Calls, rf.Name)
			}
		}
		callers, err := st.EdgesTo(ctx, []int64{e.ID}, 8)
		if err != nil {
			return it, err
		}
		var ids []int64
		for _, c := range callers {
			ids = append(ids, c.Src)
		}
		byID, err := st.EntitiesByID(ctx, ids)
		if err != nil {
			return it, err
		}
		for _, id := range ids {
			if c, ok := byID[id]; ok {
				it.CalledBy = append(it.CalledBy, c.QName)
			}
		}
	} else {
		ents, err := st.EntitiesInFile(ctx, e.Path)
		if err != nil {
			return it, err
		}
		var names []string
		for _, c := range ents {
			if c.ParentID == e.ID && c.Kind != "file" && len(names) < 12 {
				names = append(names, c.Kind+" "+c.Name)
			}
		}
		it.Doc = strings.Join(names, ", ")
	}
	it.text = RenderItem(&it)
	it.tokens = EstimateTokens(it.text)
	return it, nil
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
		fence := "```"
		for strings.Contains(it.Excerpt, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%s%s\n%s\n%s\n", fence, fenceLang(it.Path), it.Excerpt, fence)
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
	case "h", "hpp", "cc", "cxx":
		return "cpp"
	}
	return ext
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
