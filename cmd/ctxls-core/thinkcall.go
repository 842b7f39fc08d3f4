package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/inject"
	"github.com/ctxls/ctxls/memory/think"
	"github.com/ctxls/ctxls/sources/discover"
)

// callFlags are think add/counter/branch's flags for asking another AI CLI
// for the thought.
type callFlags struct {
	provider, model, agent, style string
	oss, auto, nonInteractive     bool
	timeout                       time.Duration
	session                       string
}

func (c *callFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&c.provider, "call", "", "ask an AI CLI for the thought: claude, codex or gemini (the argument is the request)")
	fl.StringVar(&c.model, "model", "", "the provider's model")
	fl.StringVar(&c.agent, "agent", "", "a discovered agent (--call claude only)")
	fl.StringVar(&c.style, "style", "", "a discovered output style (--call claude only)")
	fl.BoolVar(&c.oss, "oss", false, "use open-source models (--call codex only)")
	fl.BoolVar(&c.auto, "auto", false, "choose agent, style and model (Ollama's ollama_host in .claude/memory.local.md, else keyword heuristics; --call claude)")
	fl.BoolVar(&c.nonInteractive, "non-interactive", false, "no hints, no confirmation")
	fl.DurationVar(&c.timeout, "timeout", think.DefaultTimeout, fmt.Sprintf("how long the provider may take (at most %s)", think.MaxTimeout))
	fl.StringVar(&c.session, "session", "", "assistant session id for attribution, hints and circuit breakers (default: $CLAUDE_SESSION_ID)")
}

// check validates the flag combination before anything is opened.
func (c *callFlags) check() error {
	if c.session == "" {
		c.session = os.Getenv("CLAUDE_SESSION_ID")
	}
	if c.provider == "" {
		for _, fl := range []struct {
			set  bool
			name string
		}{{c.model != "", "--model"}, {c.agent != "", "--agent"}, {c.style != "", "--style"}, {c.oss, "--oss"}, {c.auto, "--auto"}} {
			if fl.set {
				return usagef("%s needs --call claude|codex|gemini", fl.name)
			}
		}
		return nil
	}
	p, err := think.LookupProvider(c.provider)
	if err != nil {
		return usagef("--call: %v", err)
	}
	if (c.agent != "" || c.style != "") && !p.SupportsAgent {
		return usagef("--agent and --style are for --call claude only")
	}
	if c.auto && !p.SupportsAgent {
		return usagef("--auto chooses Claude's agent, style and model: use it with --call claude")
	}
	if c.oss && p.ExtraFlags["oss"] == "" {
		return usagef("--oss is for --call codex only")
	}
	if c.timeout <= 0 || c.timeout > think.MaxTimeout {
		return usagef("--timeout must be between 1s and %s", think.MaxTimeout)
	}
	if c.session != "" {
		if _, err := think.SessionDir("", c.session); err != nil {
			return usagef("--session: %v", err)
		}
	}
	return nil
}

// stateSession is the session whose state (hints, circuit breakers) a
// command uses: the assistant's, or one shared by command-line use.
func (c *callFlags) stateSession() string {
	if c.session != "" {
		return c.session
	}
	return "cli"
}

// call resolves agent and style through discovery and asks the provider.
func (c *callFlags) call(cmd *cobra.Command, ts *think.Store, sc memory.Scope, id string, kind think.Kind, request string) (*think.Document, think.Entry, error) {
	ctx := cmd.Context()
	ms := ts.Memory()
	p, _ := think.LookupProvider(c.provider)
	o := think.CallOptions{Model: c.model, OSS: c.oss, Timeout: c.timeout, Dir: ms.Root(), Session: c.session}
	if c.agent != "" || c.style != "" || c.auto {
		home, _ := os.UserHomeDir()
		cat := think.Discover(ctx, ms.Root(), home)
		if c.auto {
			if err := c.autoSelect(cmd, ts, sc, id, kind, request, cat); err != nil {
				return nil, think.Entry{}, err
			}
			o.Model = c.model
		}
		if c.agent != "" {
			it, ok := cat.Agent(c.agent)
			if !ok {
				return nil, think.Entry{}, usagef("agent %q is not discovered; available: %s", c.agent, namesOrNone(cat.Agents))
			}
			o.Agent = it.Name
		}
		if c.style != "" {
			it, ok := cat.Style(c.style)
			if !ok {
				return nil, think.Entry{}, usagef("output style %q is not discovered; available: %s", c.style, namesOrNone(cat.Styles))
			}
			text, err := think.StyleText(it)
			if err != nil {
				return nil, think.Entry{}, err
			}
			o.Style, o.StylePrompt = it.Name, text
		}
	}
	br, err := think.NewBreakers(ms.Root(), c.stateSession(), nil)
	if err != nil {
		return nil, think.Entry{}, err
	}
	return ts.Call(ctx, sc, id, kind, request, p, o, br)
}

func namesOrNone(items []discover.Item) string {
	n := think.Names(items)
	if len(n) == 0 {
		return "none (add them in .claude/agents or .claude/output-styles)"
	}
	return strings.Join(n, ", ")
}

// Hints shown on stderr, each at most hintMax times per session.
const (
	hintCall    = "call-ai-assistance"
	hintAuto    = "auto-selection"
	hintPromote = "promote-conclusion"
	// hintMax is the seed's progressive disclosure: shown three times,
	// then suppressed (docs/decisions/0096).
	hintMax = 3
)

var hintText = map[string]string{
	hintCall:    "hint: --call claude|codex|gemini asks another AI for this thought, with the document as context",
	hintAuto:    "hint: --auto picks an agent, output style and model for the thought (via Ollama, else heuristics)",
	hintPromote: "hint: --promote decision|learning|gotcha|artifact keeps the conclusion as a permanent memory",
}

// hint writes a hint to stderr (stdout stays clean for --json) unless
// --non-interactive, counting it in the session's HintState. Hints fail
// open: a state that cannot be written shows nothing more.
func (c *callFlags) hint(cmd *cobra.Command, ts *think.Store, hint string) {
	if c.nonInteractive {
		return
	}
	ok, err := inject.ShowHint(ts.Memory().Root(), c.stateSession(), hint, hintMax, time.Now())
	if err == nil && ok {
		fmt.Fprintln(cmd.ErrOrStderr(), hintText[hint])
	}
}

// autoSelect fills --agent, --style and --model that were not given from
// an AutoSelection, shows it with its source on stderr and, on a terminal,
// asks for confirmation.
func (c *callFlags) autoSelect(cmd *cobra.Command, ts *think.Store, sc memory.Scope, id string, kind think.Kind, request string, cat think.Catalog) error {
	ctx := cmd.Context()
	root := ts.Memory().Root()
	d, err := ts.Get(ctx, sc, id)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	ol, err := think.OllamaConfig(root)
	if err != nil {
		fmt.Fprintf(stderr, "auto: %v; using heuristics\n", err)
	}
	br, err := think.NewBreakers(root, c.stateSession(), nil)
	if err != nil {
		return err
	}
	sel, note := think.Select(ctx, think.SelectRequest{Topic: d.Topic, Thought: request, Kind: kind, UsedStyles: d.UsedStyles()}, cat, ol, br)
	if note != "" {
		fmt.Fprintf(stderr, "auto: %s\n", note)
	}
	fmt.Fprintln(stderr, sel.String())
	if !c.nonInteractive && term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stderr.Fd())) {
		fmt.Fprint(stderr, "Proceed? [Y/n] ")
		line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "" && a != "y" && a != "yes" {
			return errors.New("auto-selection declined; nothing written")
		}
	}
	// Flags given explicitly win over the selection.
	if c.agent == "" {
		c.agent = sel.Agent
	}
	if c.style == "" {
		c.style = sel.Style
	}
	if c.model == "" {
		c.model = sel.Model
	}
	return nil
}

// newThinkCatalogCmd lists the agents and output styles --agent, --style
// and --auto may name (the plugin's "memory help think").
func newThinkCatalogCmd() *cobra.Command {
	var f thinkCmd
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "List the discovered agents and output styles that --agent, --style and --auto may use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := resolveRoot(f.root)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			cat := think.Discover(cmd.Context(), root, home)
			if f.asJSON {
				type entry struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					Path        string `json:"path"`
				}
				list := func(items []discover.Item) []entry {
					out := []entry{}
					for _, it := range items {
						out = append(out, entry{it.Name, it.Description, it.Path})
					}
					return out
				}
				return writeJSON(cmd.OutOrStdout(), map[string][]entry{"agents": list(cat.Agents), "styles": list(cat.Styles)})
			}
			w := cmd.OutOrStdout()
			for _, g := range []struct {
				title string
				items []discover.Item
			}{{"AVAILABLE AGENTS (--agent)", cat.Agents}, {"AVAILABLE OUTPUT STYLES (--style)", cat.Styles}} {
				fmt.Fprintln(w, g.title)
				if len(g.items) == 0 {
					fmt.Fprintln(w, "  none")
				}
				for _, it := range g.items {
					fmt.Fprintf(w, "  %-28s %s\n", it.Name, clipLine(it.Description, 90))
				}
			}
			return nil
		},
	}
	rootFlag(cmd, &f.root)
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print as JSON")
	return cmd
}
