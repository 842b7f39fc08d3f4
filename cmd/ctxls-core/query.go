package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/sources"
	"github.com/ctxls/ctxls/store"
)

// queryFlags are shared by query and context.
type queryFlags struct {
	root         string
	asJSON       bool
	active       []string
	refresh      bool
	minRelevance float64
}

// register adds the flags; minRelevance is what --min-relevance's help
// says of its default, which differs between query and context.
func (f *queryFlags) register(cmd *cobra.Command, minRelevance string) {
	rootFlag(cmd, &f.root)
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringArrayVar(&f.active, "active-file", nil, "a file in play (repeatable; the first is the active one)")
	cmd.Flags().BoolVar(&f.refresh, "refresh", false, "update the index before querying")
	// Zero, so that cobra adds no "(default ...)" of its own: the
	// commands read the flag only when it was given.
	cmd.Flags().Float64Var(&f.minRelevance, "min-relevance", 0, "abstain below this relevance, 0 to 1 "+minRelevance)
}

// repairCorrupt is repairCorrupt for the workspace of the flags.
func (f *queryFlags) repairCorrupt(ctx context.Context, err error) error {
	if !store.IsCorrupt(err) {
		return err
	}
	abs, rerr := resolveRoot(f.root)
	if rerr != nil {
		return err
	}
	return repairCorrupt(ctx, abs, err)
}

// open validates the arguments and opens the index, refreshing it if asked.
func (f *queryFlags) open(ctx context.Context, stdin io.Reader, stderr io.Writer, args []string) (string, config.Config, *store.Store, string, error) {
	text, err := queryText(stdin, args)
	if err != nil {
		return "", config.Config{}, nil, "", err
	}
	return f.openFor(ctx, stderr, text)
}

// queryText is the text to look up: the arguments, or stdin for "-".
func queryText(stdin io.Reader, args []string) (string, error) {
	text := strings.Join(args, " ")
	if text == "-" {
		// The text on stdin: pasted logs and issues exceed argv limits.
		data, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
		if err != nil {
			return "", fmt.Errorf("read query from stdin: %w", err)
		}
		text = string(data)
	}
	if strings.TrimSpace(text) == "" {
		return "", usagef("empty query: pass the text to search for")
	}
	// A pasted log longer than the bound is cut: its head names what
	// failed.
	return analyzer.CutMessage(text), nil
}

// openFor opens the index for text, refreshing it if asked. An index that
// was recovered empty, is partial or incomplete is rebuilt in the
// background (heal), and stderr says the answer may be incomplete.
func (f *queryFlags) openFor(ctx context.Context, stderr io.Writer, text string) (string, config.Config, *store.Store, string, error) {
	abs, err := resolveRoot(f.root)
	if err != nil {
		return "", config.Config{}, nil, "", err
	}
	cfg, err := config.Load(abs)
	if err != nil {
		return "", cfg, nil, "", err
	}
	if !f.refresh {
		// Indexing uses every core; a plain query answers and exits.
		oneRequestRuntime()
	}
	if f.refresh {
		st, err := store.Open(ctx, abs, store.Options{})
		if err != nil {
			return "", cfg, nil, "", err
		}
		_, err = index.Run(ctx, st, index.Options{Root: abs, Config: cfg})
		st.Close()
		if err != nil {
			return "", cfg, nil, "", err
		}
	}
	st, err := store.Open(ctx, abs, store.Options{ReadOnly: true})
	if errors.Is(err, store.ErrOutdated) {
		var log *zap.Logger
		if rebuildOutdated(abs, err.Error(), workspaceLog(abs, &log)) {
			return "", cfg, nil, "", index.RebuildingError(abs)
		}
	}
	if err != nil {
		return "", cfg, nil, "", fmt.Errorf("%s: %w", abs, err)
	}
	reason, h := healIfNeeded(ctx, st, abs, nil)
	fmt.Fprint(stderr, indexNote(ctx, st, reason, h))
	return abs, cfg, st, text, nil
}

// indexNote is what a query says on stderr of the index it answers from,
// "" when that index is complete: reason is why it is being rebuilt
// (index.RebuildReason; the caller or the daemon has the rebuild started),
// h its health. An index that an indexer is building, as after a migration
// or a first index run cut short, is said to be incomplete too.
func indexNote(ctx context.Context, st *store.Store, reason string, h index.Health) string {
	switch {
	case reason != "":
		return "ctxls: " + reason + "; it is being rebuilt in the background, so answers may be incomplete\n"
	case h.Indexing:
		if done, err := st.Meta(ctx, store.MetaComplete); err == nil && done == "" {
			return "ctxls: the index is being built (no index run has finished into it yet), so answers may be incomplete\n"
		}
	}
	return ""
}

// freshFor re-indexes, in its own writable connection (the command reads
// the index read-only), the files of the results that changed on disk,
// and indexes root in the background when it changed at large (decision
// 0092).
func freshFor(root string, cfg config.Config) *index.Fresh {
	return &index.Fresh{Options: index.Options{Root: root, Config: cfg}, Background: func() error {
		var log *zap.Logger
		heal(root, "the workspace changed at large (a checkout, a pull)", workspaceLog(root, &log))
		return nil
	}}
}

func (f *queryFlags) request(abs, text string, limit int) retrieval.Request {
	req := retrieval.Request{Text: text, Limit: limit, MinRelevance: f.minRelevance}
	for _, a := range f.active {
		if rel, _, err := relToRoot(abs, a); err == nil {
			req.ActiveFiles = append(req.ActiveFiles, rel)
		}
	}
	return req
}

func newQueryCmd() *cobra.Command {
	var (
		f       queryFlags
		limit   int
		explain bool
	)
	cmd := &cobra.Command{
		Use:   "query [flags] TEXT|-",
		Short: "Rank the workspace's files and entities for a message",
		Long: `Query analyzes TEXT (a prompt, an issue, an error), ranks entities by
lexical, exact-mention and graph evidence, and prints the best files and
entities ("-" reads TEXT from stdin). With --json it prints one object:
  {"version": 1, "files": [{"path", "score"}], "results": [{"path", "line", "kind", "name", "score"}]}
(every key in docs/json.md)`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			defer func() { err = f.repairCorrupt(cmd.Context(), err) }()
			if limit <= 0 {
				return usagef("--limit must be positive")
			}
			text, err := queryText(cmd.InOrStdin(), args)
			if err != nil {
				return err
			}
			// query ranks whatever matches (each result carries its
			// relevance); only an explicit threshold makes it abstain.
			if f.minRelevance < 0 || f.minRelevance > 1 {
				return usagef("--min-relevance must be within [0, 1]")
			}
			if !f.refresh {
				// The workspace's daemon has the index open and warm.
				if abs, err := resolveRoot(f.root); err == nil {
					if d, _ := daemonFor(abs, zap.NewNop()); d.use {
						req := f.request(abs, text, limit)
						resp, err := d.call(cmd.Context(), &hookcall.Request{Query: &hookcall.Query{
							Text: req.Text, Limit: req.Limit, MinRelevance: req.MinRelevance, ActiveFiles: req.ActiveFiles,
							JSON: f.asJSON, Explain: explain,
						}})
						switch {
						case err == nil && resp.Error != "":
							return errors.New(resp.Error)
						case err == nil:
							fmt.Fprint(cmd.ErrOrStderr(), resp.Note)
							_, err = cmd.OutOrStdout().Write(resp.Output)
							return err
						case !errors.Is(err, errInProcess):
							return err
						}
						defer d.startIfNeeded()
					}
				}
			}
			abs, _, st, text, err := f.openFor(cmd.Context(), cmd.ErrOrStderr(), text)
			if err != nil {
				return err
			}
			defer st.Close()
			resp, err := retrieval.Query(cmd.Context(), st, f.request(abs, text, limit))
			if err != nil {
				return err
			}
			return writeQuery(cmd.OutOrStdout(), resp, f.asJSON, explain)
		},
	}
	f.register(cmd, "(default: 0, which ranks whatever matches)")
	cmd.Flags().IntVar(&limit, "limit", 10, "results to return")
	cmd.Flags().BoolVar(&explain, "explain", false, "show the signals behind each score")
	return cmd
}

type jsonResult struct {
	Path      string             `json:"path"`
	Line      int                `json:"line"`
	EndLine   int                `json:"end_line"`
	Kind      string             `json:"kind"`
	Name      string             `json:"name"`
	QName     string             `json:"qualified_name"`
	Score     float64            `json:"score"`
	Relevance float64            `json:"relevance"`
	Signals   *retrieval.Signals `json:"signals,omitempty"`
	Why       []string           `json:"why,omitempty"`
}

type jsonQuery struct {
	Files     []retrieval.FileResult `json:"files"`
	Results   []jsonResult           `json:"results"`
	Abstained bool                   `json:"abstained"`
	Reason    string                 `json:"reason,omitempty"`
	Terms     map[string]float64     `json:"terms,omitempty"`
	Triggers  any                    `json:"triggers,omitempty"`
	// Weights are the file signals' weights (--explain): a file's score is
	// their weighted sum times its demotion, so tools that re-score the
	// files offline read them here rather than copying the constants.
	Weights map[string]float64 `json:"weights,omitempty"`
}

func queryJSON(resp *retrieval.Response, explain bool) jsonQuery {
	out := jsonQuery{Files: resp.Files, Results: []jsonResult{}, Abstained: resp.Abstain, Reason: resp.Reason}
	if out.Files == nil {
		out.Files = []retrieval.FileResult{}
	}
	if !explain {
		out.Files = make([]retrieval.FileResult, len(resp.Files))
		for i, f := range resp.Files {
			f.Signals = nil
			out.Files[i] = f
		}
	}
	for _, r := range resp.Results {
		jr := jsonResult{Path: r.Entity.Path, Line: r.Entity.StartLine, EndLine: r.Entity.EndLine, Kind: r.Entity.Kind,
			Name: r.Entity.Name, QName: r.Entity.QName, Score: r.Score, Relevance: r.Relevance}
		if explain {
			s := r.Signals
			jr.Signals, jr.Why = &s, r.Why
		}
		out.Results = append(out.Results, jr)
	}
	if explain {
		// [] rather than null when the message has no triggers.
		out.Terms, out.Triggers = resp.Terms, append([]analyzer.Trigger{}, resp.Triggers...)
		out.Weights = map[string]float64{}
		for _, p := range (retrieval.FileSignals{}).Parts() {
			out.Weights[p.Name] = p.Weight
		}
	}
	return out
}

// writeQuery prints a query's answer as `ctxls query` does.
func writeQuery(w io.Writer, resp *retrieval.Response, asJSON, explain bool) error {
	if asJSON {
		return writeJSON(w, queryJSON(resp, explain))
	}
	printQuery(w, resp, explain)
	return nil
}

// answerQuery is the daemon's side of `ctxls query`: the command's output
// for q, from the daemon's open index of root, and its note (indexNote).
func answerQuery(ctx context.Context, st *store.Store, root string, q *hookcall.Query) ([]byte, string, error) {
	resp, err := retrieval.Query(ctx, st, retrieval.Request{Text: q.Text, Limit: q.Limit, MinRelevance: q.MinRelevance, ActiveFiles: q.ActiveFiles})
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	if err := writeQuery(&buf, resp, q.JSON, q.Explain); err != nil {
		return nil, "", err
	}
	// The daemon's own checks start the rebuild an index needs.
	reason, h, _ := index.RebuildReason(ctx, st, root)
	return buf.Bytes(), indexNote(ctx, st, reason, h), nil
}

func printQuery(w io.Writer, resp *retrieval.Response, explain bool) {
	if resp.Abstain {
		fmt.Fprintf(w, "no relevant context (%s)\n", resp.Reason)
		return
	}
	fmt.Fprintln(w, "files:")
	for _, f := range resp.Files {
		fmt.Fprintf(w, "  %6.3f  %s\n", f.Score, f.Path)
		if explain && f.Signals != nil {
			fmt.Fprint(w, "         ")
			for _, p := range f.Signals.Parts() {
				fmt.Fprintf(w, " %s %.2f", p.Name, p.Value)
			}
			fmt.Fprintf(w, " × demotion %.2f\n", f.Signals.Demotion)
		}
	}
	fmt.Fprintln(w, "entities:")
	for _, r := range resp.Results {
		e := r.Entity
		fmt.Fprintf(w, "  %6.3f  %-9s %s  %s:%d\n", r.Score, e.Kind, e.QName, e.Path, e.StartLine)
		if explain {
			s := r.Signals
			fmt.Fprintf(w, "          relevance %.2f = lexical %.2f coverage %.2f exact %.2f active %.2f graph %.2f", r.Relevance, s.Lexical, s.Coverage, s.Exact, s.Active, s.Graph)
			if len(r.Why) > 0 {
				fmt.Fprintf(w, "  (%s)", strings.Join(r.Why, "; "))
			}
			fmt.Fprintln(w)
		}
	}
	if explain {
		fmt.Fprintln(w, "triggers:")
		for _, t := range resp.Triggers {
			fmt.Fprintf(w, "  %-15s %.2f  %s", t.Type, t.Relevance, t.Query)
			if t.Line > 0 {
				fmt.Fprintf(w, ":%d", t.Line)
			}
			fmt.Fprintln(w)
		}
	}
}

func newContextCmd() *cobra.Command {
	var (
		f         queryFlags
		maxTokens int
		session   string
	)
	cmd := &cobra.Command{
		Use:   "context [flags] TEXT|-",
		Short: "Assemble the auto-context for a message within a token budget",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			defer func() { err = f.repairCorrupt(cmd.Context(), err) }()
			abs, cfg, st, text, err := f.open(cmd.Context(), cmd.InOrStdin(), cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			defer st.Close()
			if cmd.Flags().Changed("max-tokens") {
				if maxTokens <= 0 {
					return usagef("--max-tokens must be positive")
				}
				cfg.Retrieval.MaxTokens = maxTokens
			}
			if session != "" {
				return sessionContext(cmd, st, abs, cfg, session, text, f.asJSON)
			}
			// The prompt hook's request, so that this shows what the hook
			// would inject for the same text.
			req := retrieval.ForPrompt(text, cfg.Retrieval.MaxSections)
			req.ActiveFiles = f.request(abs, text, 0).ActiveFiles
			if cmd.Flags().Changed("min-relevance") {
				if f.minRelevance < 0 || f.minRelevance > 1 {
					return usagef("--min-relevance must be within [0, 1]")
				}
				req.MinRelevance = f.minRelevance
			}
			c, _, err := retrieval.QueryContext(cmd.Context(), st, req, retrieval.ContextOptions{
				Root: abs, MaxTokens: cfg.Retrieval.MaxTokens, MaxSections: cfg.Retrieval.MaxSections,
				Refresh: freshFor(abs, cfg),
			})
			if err != nil {
				return err
			}
			if len(c.Sections) == 0 {
				c.Reason = abstention(c)
				c.Sections = []retrieval.Section{}
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					*retrieval.Context
					Markdown string `json:"markdown"`
				}{c, c.Markdown})
			}
			fmt.Fprint(cmd.OutOrStdout(), c.Markdown)
			if len(c.Sections) == 0 {
				// An empty context is an answer, not an error (exit 0),
				// but the person should know why: one line, off stdout.
				fmt.Fprintf(cmd.ErrOrStderr(), "ctxls: no context for this message: %s\n", c.Reason)
			}
			return nil
		},
	}
	f.register(cmd, "(default: retrieval.minRelevance from config, 0.5 unless set)")
	cmd.Flags().IntVar(&maxTokens, "max-tokens", 0, "token budget (default: retrieval.maxTokens from config, 4000 unless set)")
	cmd.Flags().StringVar(&session, "session", "", "show the code the prompt hook would inject for TEXT in this Claude Code session: with its continuity and without what the session was already given")
	return cmd
}

// sessionContext prints the code entries the prompt hook would inject for
// text in session, merged as the hook merges them, and says why on stderr
// when there are none.
func sessionContext(cmd *cobra.Command, st *store.Store, root string, cfg config.Config, session, text string, asJSON bool) error {
	entries, reason, err := sources.PromptEntries(cmd.Context(), st, root, cfg.Retrieval, session, text, false, freshFor(root, cfg), nil)
	if err != nil {
		return err
	}
	col := collect.New(st, session)
	var fresh []collect.Entry
	var parts []string
	size := 0
	for _, e := range entries {
		if col.WasInjected(cmd.Context(), e) {
			continue
		}
		add := len(e.Content)
		if size > 0 {
			add += len(collect.Separator)
		}
		if size+add > cfg.Hooks.Budget {
			continue
		}
		size += add
		fresh = append(fresh, e)
		parts = append(parts, e.Content)
	}
	if len(entries) > 0 && len(fresh) == 0 {
		reason = "the session was already given all of it"
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), struct {
			Session string          `json:"session"`
			Entries []collect.Entry `json:"entries"`
			Reason  string          `json:"reason,omitempty"`
		}{session, fresh, reason})
	}
	if len(fresh) == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "nothing to inject: %s\n", reason)
		return nil
	}
	fmt.Fprintln(cmd.OutOrStdout(), strings.Join(parts, collect.Separator))
	return nil
}

// abstention is why c holds nothing, in one line.
func abstention(c *retrieval.Context) string {
	if c.Reason != "" {
		return c.Reason
	}
	return "nothing relevant was found"
}

// queryArgs rewrites a `query` command line in which an argument starting
// with "-" is message text, not a flag ("-v is ignored", "--color=auto
// breaks the pager": a whole message in one argument), so that the flag
// parser takes it as text: the flags first, then "--" and the words in
// their order. Other command lines are returned as they are.
func queryArgs(root *cobra.Command, args []string) []string {
	if len(args) == 0 || args[0] != "query" {
		return args
	}
	cmd, _, err := root.Find(args[:1])
	if err != nil || cmd == root {
		return args
	}
	lookup := func(a string) *pflag.Flag {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "--") {
			if f := cmd.Flags().Lookup(name); f != nil {
				return f
			}
			return cmd.InheritedFlags().Lookup(name)
		}
		if f := cmd.Flags().ShorthandLookup(name); f != nil {
			return f
		}
		return cmd.InheritedFlags().ShorthandLookup(name)
	}
	var flags, words []string
	moved := false
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			words = append(words, rest[i+1:]...)
			i = len(rest)
		case a == "-" || !strings.HasPrefix(a, "-"):
			words = append(words, a)
		case !flagShaped(a) || lookup(a) == nil && strings.ContainsFunc(a, unicode.IsSpace):
			// Not a flag, or no flag of query's and spaced like a
			// sentence ("--color=auto breaks the pager").
			words = append(words, a)
			moved = true
		default:
			flags = append(flags, a)
			// A flag that takes a value and has none attached takes the
			// next argument.
			f := lookup(a)
			if f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") && (strings.HasPrefix(a, "--") || len(a) == 2) && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		}
	}
	if !moved {
		return args
	}
	out := append([]string{args[0]}, flags...)
	return append(append(out, "--"), words...)
}

// flagShaped reports whether a, which starts with "-", can be a flag: a
// name of letters, digits, "-" and "_" (then "=value" for a long flag).
// Anything else ("-v is ignored", "-5%") is message text.
func flagShaped(a string) bool {
	name := strings.TrimPrefix(a, "-")
	long := strings.HasPrefix(name, "-")
	if long {
		name, _, _ = strings.Cut(name[1:], "=")
	}
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
