package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/team"
	"github.com/ctxls/ctxls/store"
)

// memoryCmd holds the flags every memory subcommand shares.
type memoryCmd struct {
	root   string
	scope  string
	typ    string
	tags   string
	asJSON bool
	// version is the version an update or delete of the enterprise
	// scope on PostgreSQL expects (0: the one just read).
	version int64
	// ts is the enterprise database, once opened (memory_team.go), and
	// teamWrote says the command changed it.
	ts        *team.Store
	teamWrote bool
}

func (f *memoryCmd) flags(cmd *cobra.Command, scopeHelp string) {
	rootFlag(cmd, &f.root)
	cmd.Flags().StringVar(&f.scope, "scope", "", scopeHelp)
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print as JSON")
}

// open opens the workspace's memory store with its full-text index.
func (f *memoryCmd) open(ctx context.Context) (*memory.Store, func(), error) {
	abs, err := resolveRoot(f.root)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(ctx, abs, store.Options{})
	if err != nil {
		return nil, nil, err
	}
	ms, err := memory.Open(memory.Options{Root: abs, Index: st})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return ms, func() { f.closeTeam(); st.Close() }, nil
}

// scopeFrom says where a memory subcommand's scope comes from.
type scopeFrom int

const (
	noScope      scopeFrom = iota // the subcommand reads --scope itself
	anyScope                      // --scope, or "" (the first scope that has the memory)
	defaultScope                  // --scope, or the configured default scope
	slugScope                     // --scope, or the scope that holds the memory args[0] names
	allScopes                     // --scope, or every enabled scope
)

// memoryRun is one run of a memory subcommand.
type memoryRun struct {
	cmd  *cobra.Command
	ctx  context.Context
	args []string
	// ms is the workspace's memory store, open for the run.
	ms *memory.Store
	// scope (anyScope, defaultScope, slugScope) or scopes (allScopes) is
	// what the run works on.
	scope  memory.Scope
	scopes []memory.Scope
}

// runE is the RunE of every memory subcommand that reads the store: it
// opens the workspace's memory store, finds the scope as from says, runs
// fn, and closes the store (and the enterprise database, if fn opened it)
// whatever fn returns. A bad --scope is a usage error.
func (f *memoryCmd) runE(from scopeFrom, fn func(run *memoryRun) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		ms, done, err := f.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		r := &memoryRun{cmd: cmd, ctx: ctx, args: args, ms: ms}
		switch from {
		case anyScope:
			r.scope, err = f.scopeOr("")
		case defaultScope:
			r.scope, err = f.scopeOr(ms.DefaultScope())
		case slugScope:
			r.scope, err = f.locate(ctx, ms, args[0])
		case allScopes:
			r.scopes, err = f.scopesOrAll(ms)
		}
		if err != nil {
			return err
		}
		return fn(r)
	}
}

// scopeOr returns --scope, or def when it is empty.
func (f *memoryCmd) scopeOr(def memory.Scope) (memory.Scope, error) {
	if f.scope == "" {
		return def, nil
	}
	sc, err := memory.ParseScope(f.scope)
	if err != nil {
		return "", usagef("%v", err)
	}
	return sc, nil
}

func (f *memoryCmd) scopes() ([]memory.Scope, error) {
	if f.scope == "" {
		return nil, nil
	}
	sc, err := f.scopeOr("")
	return []memory.Scope{sc}, err
}

// scopesOrAll returns --scope, or every enabled scope.
func (f *memoryCmd) scopesOrAll(ms *memory.Store) ([]memory.Scope, error) {
	scopes, err := f.scopes()
	if err != nil || scopes != nil {
		return scopes, err
	}
	return slices.Sorted(maps.Keys(ms.Dirs())), nil
}

func (f *memoryCmd) types() ([]memory.Type, error) {
	var out []memory.Type
	for _, t := range splitList(f.typ) {
		tt, err := memory.ParseType(t)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, tt)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func newMemoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Manage the memory plugin's markdown knowledge store (decisions, gotchas, learnings)",
		Long: `Memories are markdown files with YAML frontmatter in .claude/memory/ (project),
.claude/memory/local/ (local), ~/.claude/memory/ (global) and an optional enterprise
directory. Stores written by the TypeScript memory plugin are read as they are.`,
	}
	cmd.AddCommand(newMemoryWriteCmd(), newMemoryShowCmd(), newMemoryListCmd(), newMemorySearchCmd(),
		newMemoryUpdateCmd(), newMemoryDeleteCmd(), newMemoryLinkCmd(true), newMemoryLinkCmd(false),
		newMemoryGraphCmd(), newMemoryHealthCmd(), newMemoryRebuildCmd(), newMemoryImportCmd(), newMemoryExportCmd(),
		newMemoryThinkCmd())
	cmd.AddCommand(newMemoryOpsCmds()...)
	return cmd
}

// bodyFlags say where a memory's content comes from.
type bodyFlags struct {
	content  string
	stdin    bool
	edit     bool
	severity string
	files    string
	links    string
	title    string
}

func (b *bodyFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&b.title, "title", "", "title (1-200 characters)")
	cmd.Flags().StringVar(&b.content, "content", "", "markdown content")
	cmd.Flags().BoolVar(&b.stdin, "stdin", false, "read the content from stdin (a full memory file with frontmatter is accepted)")
	cmd.Flags().BoolVar(&b.edit, "edit", false, "write the content in $EDITOR")
	cmd.Flags().StringVar(&b.severity, "severity", "", "gotcha severity: low, medium, high, critical")
	cmd.Flags().StringVar(&b.files, "files", "", "comma-separated workspace paths or globs the memory concerns")
	cmd.Flags().StringVar(&b.links, "links", "", "comma-separated slugs of related memories")
}

// body returns the content from --content, --stdin or $EDITOR (initial is
// the editor's starting text); ok is false when none was asked for.
func (b *bodyFlags) body(cmd *cobra.Command, initial string) (string, bool, error) {
	switch {
	case cmd.Flags().Changed("content"):
		return b.content, true, nil
	case b.stdin:
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 4<<20))
		return string(data), true, err
	case b.edit:
		s, err := editText(cmd.Context(), initial)
		return s, true, err
	}
	return "", false, nil
}

// editText opens $EDITOR (then $VISUAL, then vi) on a temporary file.
func editText(ctx context.Context, initial string) (string, error) {
	editor := os.Getenv("EDITOR")
	if editor == "" {
		editor = os.Getenv("VISUAL")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "ctxls-memory-*.md")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(initial); err != nil {
		f.Close()
		return "", err
	}
	f.Close()
	parts := strings.Fields(editor)
	c := exec.CommandContext(ctx, parts[0], append(parts[1:], f.Name())...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("editor %s: %w", editor, err)
	}
	data, err := os.ReadFile(f.Name())
	return string(data), err
}

func newMemoryWriteCmd() *cobra.Command {
	var f memoryCmd
	var b bodyFlags
	var slug string
	cmd := &cobra.Command{
		Use:   "write --type TYPE --title TITLE --tags a,b [--content TEXT | --stdin | --edit]",
		Short: "Create a memory (content from a flag, stdin or $EDITOR)",
		Args:  cobra.NoArgs,
		RunE: f.runE(noScope, func(run *memoryRun) error {
			cmd, ctx, ms := run.cmd, run.ctx, run.ms
			m := &memory.Memory{}
			content, ok, err := b.body(cmd, "")
			if err != nil {
				return err
			}
			if !ok && !term.IsTerminal(int(os.Stdin.Fd())) {
				// Piped input without a flag is the content (possibly
				// empty: a script never gets an editor).
				data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 4<<20))
				if err != nil {
					return err
				}
				content, ok = string(data), true
			}
			if !ok {
				if content, err = editText(ctx, ""); err != nil {
					return err
				}
			}
			if strings.HasPrefix(content, "---\n") {
				// A whole memory file: its frontmatter, flags override.
				parsed, err := memory.Parse([]byte(content), "stdin.md", "", time.Now())
				if err != nil {
					return err
				}
				m = parsed
				if m.Slug == "stdin" {
					m.Slug = ""
				}
				m.Problems = nil
			} else {
				m.Content = content
			}
			sc, err := f.scopeOr(ms.DefaultScope())
			if err != nil {
				return err
			}
			m.Scope = sc
			if f.typ != "" {
				t, err := memory.ParseType(f.typ)
				if err != nil {
					return usagef("%v", err)
				}
				m.Type = t
			}
			if b.title != "" {
				m.Title = b.title
			}
			if f.tags != "" {
				m.Tags = splitList(f.tags)
			}
			if b.severity != "" {
				m.Severity = b.severity
			}
			if b.files != "" {
				m.Files = splitList(b.files)
			}
			if b.links != "" {
				m.Links = splitList(b.links)
			}
			if slug != "" {
				m.Slug = slug
			}
			if m.Slug == "" {
				m.Slug = memory.SlugFor(m.Type, m.Title)
			}
			if err := f.write(ctx, ms, m); err != nil {
				if strings.HasPrefix(content, "---\n") {
					return err // the file given is wrong, not the command line
				}
				return invalidAsUsage(err)
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), m.Summary())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s, %s scope): %s\n", m.Slug, m.Type, m.Scope, m.Path)
			return nil
		}),
	}
	f.flags(cmd, "scope: local, project, global or enterprise (default: config scopes.default, else project)")
	cmd.Flags().StringVar(&f.typ, "type", "", "decision, learning, artifact, gotcha, breadcrumb or hub")
	cmd.Flags().StringVar(&f.tags, "tags", "", "comma-separated tags (lowercase, hyphenated)")
	cmd.Flags().StringVar(&slug, "slug", "", "slug (default: the type and title)")
	b.add(cmd)
	return cmd
}

func newMemoryShowCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "show SLUG",
		Short: "Print a memory",
		Args:  cobra.ExactArgs(1),
		RunE: f.runE(anyScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			m, err := f.get(cmd.Context(), ms, sc, args[0])
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					memory.Summary
					Links    []string `json:"links,omitempty"`
					Content  string   `json:"content"`
					Problems []string `json:"problems,omitempty"`
				}{m.Summary(), m.Links, m.Content, m.Problems})
			}
			data, err := f.fileText(m)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		}),
	}
	f.flags(cmd, "scope to look in (default: local, project, global, enterprise in that order)")
	return cmd
}

func newMemoryListCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories (from each scope's index.json)",
		Args:  cobra.NoArgs,
		RunE: f.runE(allScopes, func(run *memoryRun) error {
			cmd, ms, scopes := run.cmd, run.ms, run.scopes
			scopes = f.withTeam(scopes)
			types, err := f.types()
			if err != nil {
				return err
			}
			tags := splitList(f.tags)
			type row struct {
				Scope memory.Scope `json:"scope"`
				memory.IndexEntry
			}
			var out []row
			for _, sc := range scopes {
				list, err := f.list(cmd.Context(), ms, sc)
				if err != nil {
					return err
				}
				for _, e := range list {
					if len(types) > 0 && !slices.Contains(types, e.Type) || !hasTags(e.Tags, tags) {
						continue
					}
					out = append(out, row{sc, e})
				}
			}
			if f.asJSON {
				if out == nil {
					out = []row{}
				}
				return writeJSON(cmd.OutOrStdout(), struct {
					Memories []row `json:"memories"`
				}{out})
			}
			for _, r := range out {
				fmt.Fprintf(cmd.OutOrStdout(), "%-8s %-10s %s  %s\n", r.Scope, r.Type, r.Slug, r.Title)
			}
			return nil
		}),
	}
	f.flags(cmd, "only this scope")
	cmd.Flags().StringVar(&f.typ, "type", "", "only these types (comma-separated)")
	cmd.Flags().StringVar(&f.tags, "tags", "", "only memories with all these tags (comma-separated)")
	return cmd
}

func hasTags(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func newMemorySearchCmd() *cobra.Command {
	var f memoryCmd
	var limit int
	var semantic bool
	cmd := &cobra.Command{
		Use:   "search TEXT",
		Short: "Search memories with the full-text index (the analyzer used for code)",
		Args:  cobra.MinimumNArgs(1),
		RunE: f.runE(noScope, func(run *memoryRun) error {
			cmd, args, ctx, ms := run.cmd, run.args, run.ctx, run.ms
			scopes, err := f.scopes()
			if err != nil {
				return err
			}
			types, err := f.types()
			if err != nil {
				return err
			}
			text := strings.Join(args, " ")
			hits, err := f.search(ctx, ms, memory.Query{Text: text, Scopes: scopes, Types: types, Tags: splitList(f.tags), Limit: limit})
			if err != nil {
				return err
			}
			if semantic {
				p := ms.Embedder()
				if p == nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "ctxls: embeddings are disabled (embedding.provider %q): lexical results\n", ms.Config().Embedding.Provider)
				} else if reranked, err := ms.RerankBodies(ctx, p, text, hits, f.teamBody(ctx)); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "ctxls: embeddings unavailable (%v): lexical results\n", err)
				} else {
					hits = reranked
				}
			}
			if f.asJSON {
				if hits == nil {
					hits = []memory.Hit{}
				}
				return writeJSON(cmd.OutOrStdout(), struct {
					Results []memory.Hit `json:"results"`
				}{hits})
			}
			for _, h := range hits {
				fmt.Fprintf(cmd.OutOrStdout(), "%3.0f%%  %-8s %-10s %s  %s\n", h.Relevance*100, h.Scope, h.Type, h.Slug, h.Title)
			}
			return nil
		}),
	}
	f.flags(cmd, "only this scope")
	cmd.Flags().StringVar(&f.typ, "type", "", "only these types (comma-separated)")
	cmd.Flags().StringVar(&f.tags, "tags", "", "only memories with all these tags (comma-separated)")
	cmd.Flags().IntVar(&limit, "limit", 10, "most results")
	cmd.Flags().BoolVar(&semantic, "semantic", false, "re-rank with embeddings from the configured Ollama-compatible endpoint (lexical when unavailable)")
	return cmd
}

// locate finds which scope holds slug when --scope was not given.
func (f *memoryCmd) locate(ctx context.Context, ms *memory.Store, slug string) (memory.Scope, error) {
	sc, err := f.scopeOr("")
	if err != nil || sc != "" {
		return sc, err
	}
	m, err := f.get(ctx, ms, "", slug)
	if err != nil {
		return "", err
	}
	return m.Scope, nil
}

func newMemoryUpdateCmd() *cobra.Command {
	var f memoryCmd
	var b bodyFlags
	cmd := &cobra.Command{
		Use:   "update SLUG [--title T] [--tags a,b] [--type T] [--content TEXT | --stdin | --edit] ...",
		Short: "Change a memory: only the given fields change",
		Args:  cobra.ExactArgs(1),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ctx, ms, sc := run.cmd, run.args, run.ctx, run.ms, run.scope
			var typ memory.Type
			if f.typ != "" {
				var err error
				if typ, err = memory.ParseType(f.typ); err != nil {
					return usagef("%v", err)
				}
			}
			m, err := f.update(ctx, ms, sc, args[0], func(m *memory.Memory) error {
				content, ok, err := b.body(cmd, m.Content)
				if err != nil {
					return err
				}
				if ok {
					m.Content = content
				}
				if typ != "" {
					m.Type = typ
				}
				if b.title != "" {
					m.Title = b.title
				}
				if cmd.Flags().Changed("tags") {
					m.Tags = splitList(f.tags)
				}
				if cmd.Flags().Changed("severity") {
					m.Severity = b.severity
				}
				if cmd.Flags().Changed("files") {
					m.Files = splitList(b.files)
				}
				if cmd.Flags().Changed("links") {
					m.Links = splitList(b.links)
				}
				return nil
			})
			if err != nil {
				return invalidAsUsage(err)
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), m.Summary())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "updated %s (%s scope)\n", m.Slug, m.Scope)
			return nil
		}),
	}
	f.flags(cmd, "scope of the memory (default: where it is found)")
	cmd.Flags().Int64Var(&f.version, "version", 0, "enterprise scope on PostgreSQL: the version read; a memory changed since fails (default: the current one)")
	cmd.Flags().StringVar(&f.typ, "type", "", "new type")
	cmd.Flags().StringVar(&f.tags, "tags", "", "new tags (comma-separated; replaces the old ones)")
	b.add(cmd)
	return cmd
}

func newMemoryDeleteCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "delete SLUG",
		Short: "Delete a memory, its index entry and every link to it",
		Args:  cobra.ExactArgs(1),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ctx, ms, sc := run.cmd, run.args, run.ctx, run.ms, run.scope
			if err := f.delete(ctx, ms, sc, args[0]); err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Deleted string       `json:"deleted"`
					Scope   memory.Scope `json:"scope"`
				}{args[0], sc})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s (%s scope)\n", args[0], sc)
			return nil
		}),
	}
	f.flags(cmd, "scope of the memory (default: where it is found)")
	cmd.Flags().Int64Var(&f.version, "version", 0, "enterprise scope on PostgreSQL: delete only if still at this version")
	return cmd
}

// memoryLinks is `memory link --json`: the two directed links written.
type memoryLinks struct {
	Scope  memory.Scope `json:"scope"`
	Linked []memoryLink `json:"linked"`
}

type memoryLink struct {
	From  string `json:"from"`
	Label string `json:"label"`
	To    string `json:"to"`
}

func newMemoryLinkCmd(link bool) *cobra.Command {
	var f memoryCmd
	var label string
	use, short := "link FROM TO [--label L]", "Link two memories of a scope (both directions, the reverse with the inverse label)"
	if !link {
		use, short = "unlink FROM TO [--label L]", "Remove the links between two memories (both directions)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(2),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ctx, ms, sc := run.cmd, run.args, run.ctx, run.ms, run.scope
			if link {
				if label == "" {
					label = memory.DefaultLabel
				}
				if err := f.link(ctx, ms, sc, args[0], args[1], label, true); err != nil {
					return err
				}
				if f.asJSON {
					return writeJSON(cmd.OutOrStdout(), memoryLinks{Scope: sc, Linked: []memoryLink{
						{args[0], label, args[1]}, {args[1], memory.Inverse(label), args[0]},
					}})
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s -[%s]-> %s, %s -[%s]-> %s\n", args[0], label, args[1], args[1], memory.Inverse(label), args[0])
				return nil
			}
			if err := f.link(ctx, ms, sc, args[0], args[1], label, false); err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Scope    memory.Scope `json:"scope"`
					Unlinked []string     `json:"unlinked"`
					Label    string       `json:"label,omitempty"`
				}{sc, []string{args[0], args[1]}, label})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "unlinked %s and %s\n", args[0], args[1])
			return nil
		}),
	}
	f.flags(cmd, "scope of the memories (default: where FROM is found)")
	if link {
		cmd.Flags().StringVar(&label, "label", "", "relationship: relates-to (default), implements, part-of, builds-on, similar-to, ...")
	} else {
		cmd.Flags().StringVar(&label, "label", "", "remove only the link with this label")
	}
	return cmd
}

func newMemoryGraphCmd() *cobra.Command {
	var f memoryCmd
	var mermaid bool
	cmd := &cobra.Command{
		Use:   "graph [SLUG]",
		Short: "Print a scope's links (all, or those of one memory)",
		Args:  cobra.MaximumNArgs(1),
		RunE: f.runE(defaultScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			g, err := f.graph(cmd.Context(), ms, sc)
			if err != nil {
				return err
			}
			if mermaid {
				only := ""
				if len(args) == 1 {
					only = args[0]
				}
				return writeMermaid(cmd.OutOrStdout(), g, only, f.titles(cmd, ms, sc))
			}
			adj := g.Adj
			if len(args) == 1 {
				adj = map[string][]memory.Edge{args[0]: g.Adj[args[0]]}
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					LinksByMemory map[string][]memory.Edge `json:"links_by_memory"`
				}{adj})
			}
			var srcs []string
			for s := range adj {
				srcs = append(srcs, s)
			}
			sort.Strings(srcs)
			for _, s := range srcs {
				for _, e := range adj[s] {
					fmt.Fprintf(cmd.OutOrStdout(), "%s -[%s]-> %s\n", s, e.Label, e.Target)
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&mermaid, "mermaid", false, "print a Mermaid flowchart (each link once)")
	f.flags(cmd, "scope (default: config scopes.default, else project)")
	return cmd
}

func newMemoryHealthCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Check broken links, one-sided edges, orphans and quality; exit 1 when something needs fixing",
		Args:  cobra.NoArgs,
		RunE: f.runE(allScopes, func(run *memoryRun) error {
			cmd, ms, scopes := run.cmd, run.ms, run.scopes
			var reps []*memory.HealthReport
			healthy := true
			for _, sc := range f.withTeam(scopes) {
				r, err := f.health(cmd.Context(), ms, sc)
				if err != nil {
					return err
				}
				healthy = healthy && r.Healthy()
				reps = append(reps, r)
			}
			if f.asJSON {
				if err := writeJSON(cmd.OutOrStdout(), struct {
					Scopes any `json:"scopes"`
				}{reps}); err != nil {
					return err
				}
			} else {
				for _, r := range reps {
					printHealth(cmd.OutOrStdout(), r)
				}
			}
			if !healthy {
				return silentError{exitError}
			}
			return nil
		}),
	}
	f.flags(cmd, "only this scope")
	return cmd
}

func printHealth(w io.Writer, r *memory.HealthReport) {
	fmt.Fprintf(w, "%s scope: %d memories, quality %d/100%s\n", r.Scope, r.Memories, r.Score, qualityWhy(r.Quality))
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "  not a memory: %s (%s)\n", s.Path, s.Reason)
	}
	if r.IndexStale {
		fmt.Fprintln(w, "  index.json is out of step with the files: run 'ctxls memory rebuild'")
	}
	for _, l := range r.BrokenLinks {
		fmt.Fprintf(w, "  broken link: %s -> %s\n", l.From, l.To)
	}
	for _, g := range r.GraphIssues {
		fmt.Fprintf(w, "  graph: %s\n", g)
	}
	if len(r.Orphans) > 0 {
		fmt.Fprintf(w, "  orphans (no links): %s\n", strings.Join(r.Orphans, ", "))
	}
	slugs := make([]string, 0, len(r.Problems))
	for s := range r.Problems {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	for _, s := range slugs {
		fmt.Fprintf(w, "  %s: %s\n", s, strings.Join(r.Problems[s], "; "))
	}
	if len(r.LowQuality) > 0 {
		fmt.Fprintf(w, "  low quality: %s\n", strings.Join(r.LowQuality, ", "))
	}
}

// qualityWhy says where a scope's quality score comes from: it is the mean
// of its memories' scores, and the (at most three) memories that lost the
// most points are named, lowest first.
func qualityWhy(q map[string]int) string {
	type scored struct {
		slug  string
		score int
	}
	var low []scored
	for s, v := range q {
		if v < 100 {
			low = append(low, scored{s, v})
		}
	}
	if len(q) == 0 || len(low) == 0 {
		return ""
	}
	sort.Slice(low, func(i, j int) bool {
		if low[i].score != low[j].score {
			return low[i].score < low[j].score
		}
		return low[i].slug < low[j].slug
	})
	parts := make([]string, 0, 3)
	for _, l := range low[:min(3, len(low))] {
		parts = append(parts, fmt.Sprintf("%s %d", l.slug, l.score))
	}
	more := ""
	if len(low) > 3 {
		more = fmt.Sprintf(" and %d more", len(low)-3)
	}
	return fmt.Sprintf(" (the mean of each memory's score; below 100: %s%s)", strings.Join(parts, ", "), more)
}

func newMemoryRebuildCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "rebuild",
		Short: "Rebuild index.json from the memory files and re-index them for search",
		Args:  cobra.NoArgs,
		RunE: f.runE(allScopes, func(run *memoryRun) error {
			cmd, ms, scopes := run.cmd, run.ms, run.scopes
			var reps []memory.RebuildReport
			for _, sc := range scopes {
				dir, _ := ms.Dir(sc)
				if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) && f.scope == "" {
					continue
				}
				rebuild := ms.Rebuild
				if f.onTeam(sc) {
					rebuild = f.rebuildTeam
				}
				r, err := rebuild(cmd.Context(), sc)
				if err != nil {
					return err
				}
				reps = append(reps, r)
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Scopes any `json:"scopes"`
				}{reps})
			}
			for _, r := range reps {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d memories indexed, %d not memories, %d with problems, %d graph issues\n",
					r.Scope, r.Memories, len(r.Skipped), r.Problems, len(r.Graph))
				for _, s := range r.Skipped {
					fmt.Fprintf(cmd.OutOrStdout(), "  not a memory: %s (%s)\n", s.Path, s.Reason)
				}
			}
			return nil
		}),
	}
	f.flags(cmd, "only this scope")
	return cmd
}

func newMemoryImportCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "import DIR",
		Short: "Convert a memory plugin store (permanent/, temporary/, archive/, nodes/edges graph) into a scope of ctxls's memory store",
		Args:  cobra.ExactArgs(1),
		RunE: f.runE(defaultScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			if f.onTeam(sc) {
				return f.importTeam(cmd, ms, args[0])
			}
			src, err := filepath.Abs(args[0])
			if err != nil {
				return err
			}
			r, err := ms.Import(cmd.Context(), src, sc)
			if err != nil {
				return err
			}
			if f.asJSON {
				// Empty top-level lists are [] (docs/json.md).
				if r.Skipped == nil {
					r.Skipped = []memory.Skipped{}
				}
				if r.SkippedEdges == nil {
					r.SkippedEdges = []string{}
				}
				return writeJSON(cmd.OutOrStdout(), r)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "imported %d memories and %d links into the %s scope (%d duplicate edges merged)\n", r.Imported, r.Edges, r.Scope, r.MergedEdges)
			for _, s := range slices.Sorted(maps.Keys(r.Changed)) {
				fmt.Fprintf(w, "  changed %s: %s\n", s, strings.Join(r.Changed[s], "; "))
			}
			for _, s := range r.Skipped {
				fmt.Fprintf(w, "  not imported: %s (%s)\n", s.Path, s.Reason)
			}
			for _, e := range r.SkippedEdges {
				fmt.Fprintf(w, "  link not imported: %s\n", e)
			}
			return nil
		}),
	}
	f.flags(cmd, "target scope (default: config scopes.default, else project)")
	return cmd
}
