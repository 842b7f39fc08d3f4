package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/store"
)

// defaultUsageSessions is how many recent sessions stats --sessions and
// doctor take the share of used injected files over.
const defaultUsageSessions = 50

func newSessionsCmd() *cobra.Command {
	var (
		root   string
		asJSON bool
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List recent assistant sessions: what the prompt hook injected and what the assistant used",
		Long: `List the recent Claude Code sessions of the workspace, most recently active
first: when each started, its last activity, its prompts, the entries the
prompt hook injected, the distinct files they showed, and the share of those
files the assistant then read, edited or searched (a later tool call of the
session naming the file). 'ctxls sessions show ID' shows one session prompt by
prompt. The history keeps 30 days, at most 2,000 prompts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openHistory(cmd.Context(), root)
			if err != nil {
				return err
			}
			defer st.Close()
			list, err := st.Sessions(cmd.Context(), historyFilter(limit))
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []store.SessionSummary{}
				}
				return writeJSON(cmd.OutOrStdout(), struct {
					Sessions []store.SessionSummary `json:"sessions"`
				}{list})
			}
			printSessions(cmd.OutOrStdout(), list)
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"sessions": [...]} as JSON`)
	cmd.Flags().IntVar(&limit, "limit", 20, "list at most N sessions")
	cmd.AddCommand(newSessionsShowCmd())
	return cmd
}

func newSessionsShowCmd() *cobra.Command {
	var (
		root   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one session prompt by prompt: what was injected and whether the assistant used it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := args[0]
			st, err := openHistory(ctx, root)
			if err != nil {
				return err
			}
			defer st.Close()
			// A probe session is never shown, as it is never listed: its
			// prompts are not the person's.
			var sum *store.SessionSummary
			if !hooks.IsProbeSession(id) {
				list, err := st.Sessions(ctx, store.SessionFilter{ExcludePrefix: hooks.ProbeSessionPrefix})
				if err != nil {
					return err
				}
				for i := range list {
					if list[i].ID == id {
						sum = &list[i]
					}
				}
			}
			if sum == nil {
				return fmt.Errorf("no session %q in the prompt history (see 'ctxls sessions')", id)
			}
			prompts, err := st.SessionPrompts(ctx, id)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Session store.SessionSummary `json:"session"`
					Prompts []store.Prompt       `json:"prompts"`
				}{*sum, prompts})
			}
			printSession(cmd.OutOrStdout(), *sum, prompts)
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"session": {...}, "prompts": [...]} as JSON`)
	return cmd
}

// openHistory opens a workspace's store to read its prompt history.
func openHistory(ctx context.Context, root string) (*store.Store, error) {
	abs, err := resolveRoot(root)
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, abs, store.Options{ReadOnly: true})
}

// historyFilter selects the person's sessions of the retained history, the
// limit most recently active.
func historyFilter(limit int) store.SessionFilter {
	return store.SessionFilter{Since: time.Now().Add(-store.PromptRetention), Limit: limit, ExcludePrefix: hooks.ProbeSessionPrefix}
}

func printSessions(w io.Writer, list []store.SessionSummary) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no sessions recorded in the last 30 days (the prompt hook records them)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTARTED\tLAST ACTIVITY\tPROMPTS\tINJECTIONS\tFILES\tUSED")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", s.ID, stamp(s.Started), stamp(s.LastActivity),
			s.Prompts, s.Injections, s.InjectedFiles, share(s.UsedFiles, s.InjectedFiles))
	}
	tw.Flush()
}

func printSession(w io.Writer, s store.SessionSummary, prompts []store.Prompt) {
	fmt.Fprintf(w, "session %s\nstarted %s, last activity %s\n%d prompts, %d injections, injected files used: %s\n",
		s.ID, stamp(s.Started), stamp(s.LastActivity), s.Prompts, s.Injections, share(s.UsedFiles, s.InjectedFiles))
	for _, p := range prompts {
		fmt.Fprintf(w, "\n#%d %s  %s\n", p.Ordinal, stamp(p.At), oneLine(p.Text, 200))
		if len(p.Injected) == 0 {
			fmt.Fprintln(w, "  nothing injected")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, in := range p.Injected {
			mark := "-"
			if in.Used != nil {
				mark = "unused"
				if *in.Used {
					mark = "used"
					if in.UsedBy != "" {
						mark += " (" + in.UsedBy + ")"
					}
				}
			}
			what := in.ID
			if in.Source != "code" {
				what = in.Source + ":" + in.ID
			}
			rel := ""
			if in.Relevance > 0 {
				rel = fmt.Sprintf("%.2f", in.Relevance)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark, what, in.Section, rel)
		}
		tw.Flush()
	}
}

// usage is the share of injected files used over several sessions.
type usage struct {
	Sessions      int     `json:"sessions"`
	Prompts       int     `json:"prompts"`
	Injections    int     `json:"injections"`
	InjectedFiles int     `json:"injected_files"`
	UsedFiles     int     `json:"used_files"`
	ShareUsed     float64 `json:"share_used"`
	Days          int     `json:"days"`
}

// usageOf sums the sessions' figures; a file counts once per session.
func usageOf(list []store.SessionSummary) usage {
	u := usage{Sessions: len(list), Days: int(store.PromptRetention / (24 * time.Hour))}
	for _, s := range list {
		u.Prompts += s.Prompts
		u.Injections += s.Injections
		u.InjectedFiles += s.InjectedFiles
		u.UsedFiles += s.UsedFiles
	}
	if u.InjectedFiles > 0 {
		u.ShareUsed = float64(u.UsedFiles) / float64(u.InjectedFiles)
	}
	return u
}

// String is the one-line verdict stats and doctor print.
func (u usage) String() string {
	if u.InjectedFiles == 0 {
		return fmt.Sprintf("no injected files in %d sessions of the last %d days", u.Sessions, u.Days)
	}
	return fmt.Sprintf("%s of the injected files were used in the last %d sessions (%d days; a lower bound)",
		share(u.UsedFiles, u.InjectedFiles), u.Sessions, u.Days)
}

// share prints "used of total (percent)".
func share(used, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%d of %d (%.0f %%)", used, total, 100*float64(used)/float64(total))
}

func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

// oneLine is s on one line, cut to about n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
