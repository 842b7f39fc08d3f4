package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// commands are the subcommands by name (the first word of each one's Use,
// which TestCommandNames checks). Each command family lives in its own
// file; add one line here.
var commands = []struct {
	name string
	new  func() *cobra.Command
}{
	{"index", newIndexCmd},
	{"stats", newStatsCmd},
	{"sessions", newSessionsCmd},
	{"symbols", newSymbolsCmd},
	{"query", newQueryCmd},
	{"context", newContextCmd},
	{"hook", newHookCmd},
	{"daemon", newDaemonCmd},
	{"init", newInitCmd},
	{"doctor", newDoctorCmd},
	{"mcp", newMCPCmd},
	{"sources", newSourcesCmd},
	{"memory", newMemoryCmd},
	{"serve", newServeCmd},
}

// newRootCmd builds the command tree for args. When args name a
// subcommand, only that one is built: a hook or query process then does not
// pay for every other command's flags (the whole tree was ~7 % of the page
// faults of starting up). Help, completion and unknown names get them all.
func newRootCmd(args []string) *cobra.Command {
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
	defer setExamples(root)
	for _, c := range commands {
		if len(args) > 0 && c.name == args[0] {
			root.AddCommand(c.new())
			return root
		}
	}
	for _, c := range commands {
		root.AddCommand(c.new())
	}
	// cobra's own help and completion commands, made now rather than by
	// Execute so that setExamples gives their help an example too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
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
