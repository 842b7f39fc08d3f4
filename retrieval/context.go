package retrieval

import (
	"context"
	"slices"
	"strings"
	"time"

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
		case r.Detail == DetailBrief:
			title = seeAlso
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
	// puts what was asked about before what surrounds it; the files named
	// in brief come last.
	rank := func(t string) int {
		switch {
		case strings.HasPrefix(t, "Symbol: "):
			return 0
		case t == "Related Code":
			return 1
		case t == seeAlso:
			return 3
		}
		return 2
	}
	for pass := 0; pass < 4; pass++ {
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
