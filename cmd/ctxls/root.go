package main

import (
	"strings"

	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ctxls",
		Short: "A context engine for AI coding assistants",
		Long: `ctxls indexes a workspace's code into an entity graph and puts the code, rules
and decisions that matter in front of an AI coding assistant: through Claude Code
hooks, a language server that follows the editor, and an MCP server.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("ctxls {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{err.Error()}
	})
	root.AddCommand(
		newIndexCmd(),
		newStatsCmd(),
		newSymbolsCmd(),
		newQueryCmd(),
		newContextCmd(),
		newHookCmd(),
		newInitCmd(),
		newDoctorCmd(),
		newMCPCmd(),
		newSourcesCmd(),
		newMemoryCmd(),
		newServeCmd(),
		// Each command family lives in its own file; add one line here.
	)
	return root
}

// isCobraUsageError recognises cobra's own argument errors, which it returns
// as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires exactly", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
