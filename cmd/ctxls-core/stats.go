package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

func newStatsCmd() *cobra.Command {
	var (
		root   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show what the index holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			st, err := store.Open(cmd.Context(), abs, store.Options{ReadOnly: true})
			if err != nil {
				return err
			}
			defer st.Close()
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
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					store.Stats
					State  string       `json:"state"`
					Health index.Health `json:"health"`
				}{s, h.String(), h})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "index %s (%.1f MB)\n", st.Path(), float64(s.Bytes)/1e6)
			fmt.Fprintf(w, "state:      %s\n", h)
			fmt.Fprintf(w, "files:      %d (%d parsed, %d skipped)\n", s.Files, s.Parsed, s.Skipped)
			fmt.Fprintf(w, "entities:   %d\n", s.Entities)
			fmt.Fprintf(w, "references: %d (%d resolved)\n", s.Refs, s.Resolved)
			printCounts(w, "by kind", s.ByKind)
			printCounts(w, "by language", s.ByLang)
			printCounts(w, "skipped", s.SkipReasons)
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
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
