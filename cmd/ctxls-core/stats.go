package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/history"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

func newStatsCmd() *cobra.Command {
	var (
		root     string
		asJSON   bool
		sessions bool
		limit    int
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show what the index holds",
		Long: `Show what the index holds. With --sessions, show instead how much of what the
prompt hook injected the assistant went on to use: the share of injected files
a later tool call of the same session read, edited or searched, over the last
N sessions of the last 30 days (see 'ctxls sessions').`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("limit") && !sessions {
				return usagef("--limit needs --sessions")
			}
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			st, err := store.Open(cmd.Context(), abs, store.Options{ReadOnly: true})
			if err != nil {
				return err
			}
			defer st.Close()
			if sessions {
				list, err := st.Sessions(cmd.Context(), historyFilter(limit))
				if err != nil {
					return err
				}
				u := usageOf(list)
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), u)
				}
				w := cmd.OutOrStdout()
				which := fmt.Sprintf("the last %d", limit)
				if limit <= 0 {
					which = "all"
				}
				fmt.Fprintf(w, "sessions:       %d (%s of the last %d days)\n", u.Sessions, which, u.Days)
				fmt.Fprintf(w, "prompts:        %d\n", u.Prompts)
				fmt.Fprintf(w, "injections:     %d\n", u.Injections)
				fmt.Fprintf(w, "injected files: %d (distinct per session)\n", u.InjectedFiles)
				fmt.Fprintf(w, "used:           %s\n", share(u.UsedFiles, u.InjectedFiles))
				return nil
			}
			s, err := st.Stats(cmd.Context())
			if err != nil {
				return err
			}
			// Counts of a partial or incomplete index are not the
			// workspace's: say so.
			h, err := index.CheckHealth(cmd.Context(), st, abs)
			if err != nil {
				return err
			}
			hist, err := history.Status(cmd.Context(), st)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					store.Stats
					State   string       `json:"state"`
					Health  index.Health `json:"health"`
					History string       `json:"history"`
				}{s, h.String(), h, hist})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "index %s (%.1f MB)\n", st.Path(), float64(s.Bytes)/1e6)
			fmt.Fprintf(w, "state:      %s\n", h)
			fmt.Fprintf(w, "files:      %d (%d parsed, %d skipped)\n", s.Files, s.Parsed, s.Skipped)
			fmt.Fprintf(w, "entities:   %d\n", s.Entities)
			fmt.Fprintf(w, "references: %d (%d resolved)\n", s.Refs, s.Resolved)
			fmt.Fprintf(w, "history:    %s\n", hist)
			printCounts(w, "by kind", s.ByKind)
			printCounts(w, "by language", s.ByLang)
			printCounts(w, "skipped", s.SkipReasons)
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&sessions, "sessions", false, "show the share of injected files the assistant used")
	cmd.Flags().IntVar(&limit, "limit", defaultUsageSessions, "with --sessions: over the N most recent sessions")
	return cmd
}

func printCounts(w interface{ Write([]byte) (int, error) }, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return m[keys[a]] > m[keys[b]] || m[keys[a]] == m[keys[b]] && keys[a] < keys[b] })
	fmt.Fprintf(w, "%s:\n", title)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-12s %d\n", k, m[k])
	}
}
