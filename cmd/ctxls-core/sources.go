package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/sources"
	"github.com/ctxls/ctxls/sources/discover"
)

func newSourcesCmd() *cobra.Command {
	var (
		root   string
		asJSON bool
		files  []string
	)
	cmd := &cobra.Command{
		Use:   "sources [--json] [--file F]... [PROMPT]",
		Short: "List the rules, AGENTS.md, README, keyword modes and discovered agents, commands, skills and styles, and why each applies",
		Long: `sources lists what the context sources beyond code find for the workspace: rule files
(Cursor, Copilot, Claude Code, docs/kord/rules) with their kind and scope, rules skipped and
why, the AGENTS.md and README.md of each --file, the keyword modes of .ctxls/config.yaml, and
the agents, commands, skills and output styles discovered in ~/.claude, .claude and installed
plugins. With --file and a PROMPT it says which of them apply and why. No index is needed.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			cfg, err := config.Load(abs)
			if err != nil {
				return err
			}
			req := &sources.Event{Root: abs, Config: cfg, Prompt: strings.Join(args, " ")}
			if home, err := os.UserHomeDir(); err == nil {
				req.Home = home
			}
			for _, f := range files {
				rel, _, err := relToRoot(abs, f)
				if err != nil {
					return usagef("--file %s: %v", f, err)
				}
				req.Files = append(req.Files, rel)
			}
			rep := sources.Explain(cmd.Context(), req)
			if asJSON {
				if rep.Rules == nil {
					rep.Rules = []sources.RuleReport{} // [] when empty (docs/json.md)
				}
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			printSources(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringArrayVar(&files, "file", nil, "a file in play, to check glob-scoped rules, AGENTS.md and README against (repeatable)")
	return cmd
}

func printSources(w io.Writer, rep sources.Report) {
	mark := func(ok bool) string {
		if ok {
			return "applies"
		}
		return "-"
	}
	fmt.Fprintf(w, "rules: %d loaded, %d skipped\n", len(rep.Rules), len(rep.SkippedRules))
	for _, r := range rep.Rules {
		fmt.Fprintf(w, "  %-7s %-11s %s [%s]: %s\n", mark(r.Applies), r.Kind, r.Path, r.Format, r.Why)
	}
	for _, s := range rep.SkippedRules {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
	}
	for _, d := range rep.Directory {
		fmt.Fprintf(w, "directory context for %s: AGENTS.md %s, README %s\n", d.File, orNone(d.Agents), orNone(d.Readme))
	}
	if len(rep.Modes) > 0 {
		fmt.Fprintf(w, "keyword modes: %d\n", len(rep.Modes))
		for _, m := range rep.Modes {
			trig := ""
			if m.Applies {
				trig = fmt.Sprintf(": the prompt says %q", m.Trigger)
			}
			fmt.Fprintf(w, "  %-7s %s (keywords %s; pattern %s)%s\n", mark(m.Applies), m.Name, orNone(strings.Join(m.Keywords, ", ")), orNone(m.Pattern), trig)
		}
	}
	d := rep.Discovery
	fmt.Fprintf(w, "discovered: %d items", len(d.Items))
	if d.SkipReason != "" {
		fmt.Fprintf(w, " (%s)", discoverySkip(d.SkipReason))
	}
	if d.TimedOut {
		fmt.Fprint(w, " (scan timed out; partial)")
	}
	fmt.Fprintln(w)
	matched := map[string]discover.Match{}
	if d.Matches != nil {
		for _, ms := range [][]discover.Match{d.Matches.Agents, d.Matches.Commands, d.Matches.Skills, d.Matches.Styles} {
			for _, m := range ms {
				matched[m.Item.Path] = m
			}
		}
	}
	for _, it := range d.Items {
		why := ""
		if m, ok := matched[it.Path]; ok {
			why = fmt.Sprintf(" — fits the prompt: %s (score %d)", strings.Join(m.Matched, ", "), m.Score)
		}
		fmt.Fprintf(w, "  %-7s %-11s %s [%s] %s%s\n", mark(why != ""), it.Type, it.Name, it.Scope, it.Path, why)
	}
	for _, s := range d.Shadowed {
		fmt.Fprintf(w, "  shadowed %s %s [%s] %s by %s\n", s.Item.Type, s.Item.Name, s.Item.Scope, s.Item.Path, s.By)
	}
	for _, dr := range d.Dirs {
		if dr.Error != "" {
			fmt.Fprintf(w, "  error   %s: %s\n", dr.Path, dr.Error)
		}
	}
	if d.Formatted != "" {
		fmt.Fprintf(w, "suggestions for the prompt:\n%s\n", d.Formatted)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// discoverySkip says in words why discovery found nothing; the JSON keeps
// the code.
func discoverySkip(r discover.SkipReason) string {
	switch r {
	case discover.Disabled:
		return "discovery is turned off in the configuration"
	case discover.NoResourcesFound:
		return "no agents, commands, skills or output styles in ~/.claude, .claude or installed plugins"
	case discover.Timeout:
		return "the scan timed out"
	case discover.FilesystemError:
		return "the directories could not be read; see .ctxls/ctxls.log"
	}
	return "skipped: " + string(r)
}
