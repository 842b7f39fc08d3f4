package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/think"
)

// thinkCmd holds the flags the think subcommands share.
type thinkCmd struct {
	memoryCmd
	refs string
}

// open opens the thinking store and the scope the command works in.
func (f *thinkCmd) open(ctx context.Context) (*think.Store, memory.Scope, func(), error) {
	ms, done, err := f.memoryCmd.open(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	sc, err := f.scopeOr(ms.DefaultScope())
	if err != nil {
		done()
		return nil, "", nil, err
	}
	ts := think.New(ms, nil)
	// A promotion to the enterprise scope on PostgreSQL goes to the
	// database, as `memory write` does.
	ts.WriteWith(func(ctx context.Context, m *memory.Memory) error { return f.write(ctx, ms, m) })
	return ts, sc, done, nil
}

func newMemoryThinkCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "think",
		Short: "Deliberate in thinking documents, then conclude (and promote the conclusion to a memory)",
		Long: `Thinking documents are ephemeral deliberations kept in the scope's .thinking/ directory
(markdown with YAML frontmatter; the frontmatter is the record, the body is rendered from it).
Each scope has a current document: create makes a new one current, use switches.`,
	}
	cmd.AddCommand(newThinkCreateCmd(), newThinkAddCmd("add"), newThinkAddCmd("counter"), newThinkAddCmd("branch"),
		newThinkListCmd(), newThinkShowCmd(), newThinkUseCmd(), newThinkConcludeCmd(), newThinkDeleteCmd(),
		newThinkCatalogCmd())
	return cmd
}

func newThinkCreateCmd() *cobra.Command {
	var f thinkCmd
	cmd := &cobra.Command{
		Use:   "create TOPIC|-",
		Short: "Start a thinking document on a topic and make it current",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			topic, err := argText(cmd, args[0])
			if err != nil {
				return err
			}
			d, err := ts.Create(cmd.Context(), sc, topic, splitList(f.refs))
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), d)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s (%s scope, now current): %s\n", d.ID, sc, d.Path)
			return nil
		},
	}
	f.flags(cmd, "scope: local, project, global or enterprise (default: config scopes.default, else project)")
	cmd.Flags().StringVar(&f.refs, "ref", "", "comma-separated slugs of memories the deliberation is about")
	return cmd
}

// newThinkAddCmd builds add, counter and branch.
func newThinkAddCmd(name string) *cobra.Command {
	var f thinkCmd
	var c callFlags
	var id string
	short := map[string]string{
		"add":     "Add a thought to the current document",
		"counter": "Add a counter-argument to the current document",
		"branch":  "Add an alternative approach to the current document",
	}[name]
	cmd := &cobra.Command{
		Use:   name + " THOUGHT|-",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, err := think.ParseKind(name)
			if err != nil {
				return err
			}
			if err := c.check(); err != nil {
				return err
			}
			text, err := argText(cmd, args[0])
			if err != nil {
				return err
			}
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			var d *think.Document
			var e think.Entry
			if c.provider != "" {
				d, e, err = c.call(cmd, ts, sc, id, kind, text)
			} else {
				d, e, err = ts.Add(cmd.Context(), sc, id, kind, text, "", splitList(f.refs))
			}
			if err != nil {
				return err
			}
			if c.provider == "" {
				c.hint(cmd, ts, hintCall)
			} else if c.provider == "claude" && c.agent == "" && c.style == "" {
				c.hint(cmd, ts, hintAuto)
			}
			return printEntry(cmd, f.asJSON, d, e)
		},
	}
	f.flags(cmd, "scope of the document (default: config scopes.default, else project)")
	c.add(cmd)
	cmd.Flags().StringVar(&f.refs, "ref", "", "comma-separated slugs of memories the thought refers to")
	cmd.Flags().StringVar(&id, "id", "", "document (default: the scope's current one)")
	return cmd
}

// argText is a text argument, or stdin when it is "-" (a command line
// holds at most 128 KiB per argument). Past the documents' limit stdin is
// not read on: the store refuses the text anyway.
func argText(cmd *cobra.Command, arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), think.MaxThought+1))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	return string(data), nil
}

func printEntry(cmd *cobra.Command, asJSON bool, d *think.Document, e think.Entry) error {
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), struct {
			Document string `json:"document"`
			think.Entry
		}{d.ID, e})
	}
	by := ""
	if e.By != "" {
		by = " by " + e.By
	}
	fmt.Fprintf(cmd.OutOrStdout(), "added %s %d to %s%s\n", e.Kind, e.N, d.ID, by)
	return nil
}

func newThinkListCmd() *cobra.Command {
	var f thinkCmd
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the thinking documents of a scope, the latest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			list, skipped, err := ts.List(cmd.Context(), sc)
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Documents []think.Summary `json:"documents"`
					Skipped   []think.Skipped `json:"skipped,omitempty"`
				}{list, skipped})
			}
			w := cmd.OutOrStdout()
			for _, s := range list {
				mark := " "
				if s.Current {
					mark = "*"
				}
				fmt.Fprintf(w, "%s %s  %s  %d thoughts  %s\n", mark, s.ID, s.Status, s.Thoughts, clipLine(s.Topic, 80))
			}
			for _, s := range skipped {
				fmt.Fprintf(cmd.ErrOrStderr(), "skipped %s: %s\n", s.Path, s.Reason)
			}
			if len(list) == 0 {
				fmt.Fprintf(w, "no thinking documents in the %s scope\n", sc)
			}
			return nil
		},
	}
	f.flags(cmd, "scope (default: config scopes.default, else project)")
	return cmd
}

func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newThinkShowCmd() *cobra.Command {
	var f thinkCmd
	cmd := &cobra.Command{
		Use:   "show [ID]",
		Short: "Print a thinking document (default: the current one)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			d, err := ts.Get(cmd.Context(), sc, id)
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), d)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s (%s scope)\n\n%s", d.ID, sc, think.Render(d))
			return nil
		},
	}
	f.flags(cmd, "scope (default: config scopes.default, else project)")
	return cmd
}

func newThinkUseCmd() *cobra.Command {
	var f thinkCmd
	cmd := &cobra.Command{
		Use:   "use ID",
		Short: "Make a thinking document the scope's current one",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			if err := ts.Use(cmd.Context(), sc, args[0]); err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Scope   memory.Scope `json:"scope"`
					Current string       `json:"current"`
				}{sc, args[0]})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "current: %s\n", args[0])
			return nil
		},
	}
	f.flags(cmd, "scope (default: config scopes.default, else project)")
	return cmd
}

func newThinkConcludeCmd() *cobra.Command {
	var f thinkCmd
	var h callFlags
	var id, promote, slug string
	cmd := &cobra.Command{
		Use:   "conclude TEXT|- [--promote TYPE]",
		Short: "Conclude the current document; --promote saves the conclusion as a memory linked to what it referenced",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := h.check(); err != nil {
				return err
			}
			var p *think.Promotion
			if promote != "" {
				t, err := memory.ParseType(promote)
				if err != nil {
					return usagef("--promote: %v", err)
				}
				p = &think.Promotion{Type: t, Tags: splitList(f.tags), Slug: slug}
			}
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			text, err := argText(cmd, args[0])
			if err != nil {
				return err
			}
			d, m, err := ts.Conclude(cmd.Context(), sc, id, text, p)
			if err != nil {
				return err
			}
			if p == nil {
				h.hint(cmd, ts, hintPromote)
			}
			if f.asJSON {
				out := struct {
					Document *think.Document `json:"document"`
					Memory   *memory.Summary `json:"memory,omitempty"`
				}{Document: d}
				if m != nil {
					s := m.Summary()
					out.Memory = &s
				}
				return writeJSON(cmd.OutOrStdout(), out)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "concluded %s\n", d.ID)
			if m != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "promoted to %s %s (%s scope), linked to: %s\n", m.Type, m.Slug, m.Scope, orNoneList(m.Links))
			}
			return nil
		},
	}
	f.flags(cmd, "scope (default: config scopes.default, else project)")
	cmd.Flags().StringVar(&id, "id", "", "document (default: the scope's current one)")
	cmd.Flags().StringVar(&promote, "promote", "", "save the conclusion as a memory of this type (decision, learning, gotcha, artifact, ...)")
	cmd.Flags().StringVar(&f.tags, "tags", "", "tags of the promoted memory (default: thinking)")
	cmd.Flags().StringVar(&slug, "slug", "", "slug of the promoted memory (default: the type and topic)")
	cmd.Flags().BoolVar(&h.nonInteractive, "non-interactive", false, "no hints")
	cmd.Flags().StringVar(&h.session, "session", "", "assistant session id for hints (default: $CLAUDE_SESSION_ID)")
	return cmd
}

func orNoneList(ss []string) string {
	if len(ss) == 0 {
		return "(none)"
	}
	return strings.Join(ss, ", ")
}

func newThinkDeleteCmd() *cobra.Command {
	var f thinkCmd
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a thinking document",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, sc, done, err := f.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			if err := ts.Delete(cmd.Context(), sc, args[0]); err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Scope   memory.Scope `json:"scope"`
					Deleted string       `json:"deleted"`
				}{sc, args[0]})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", args[0])
			return nil
		},
	}
	f.flags(cmd, "scope (default: config scopes.default, else project)")
	return cmd
}
