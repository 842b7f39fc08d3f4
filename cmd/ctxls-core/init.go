package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/install"
	"github.com/ctxls/ctxls/store"
)

func newInitCmd() *cobra.Command {
	var (
		root              string
		local, global     bool
		uninstall         bool
		plugin, command   string
		buildIndex, noIdx bool
		withMCP           bool
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Install ctxls's Claude Code hooks (or write a Claude Code plugin)",
		Long: `Init merges ctxls's hook entries, with small explicit timeouts, into Claude Code
settings without disturbing other keys or hooks: .claude/settings.json by default,
.claude/settings.local.json with --local, ~/.claude/settings.json with --global.
It is idempotent and keeps a backup; --uninstall removes exactly what it added
and leaves the files as it found them.

The files a team commits (.claude/settings.json, .mcp.json, a plugin) run
"ctxls" from each teammate's PATH, never a path of this machine; --local and
--global, files of this machine only, run the ctxls beside this program.

--plugin DIR writes a Claude Code plugin instead. --mcp also registers the MCP
server (ctxls mcp) in the workspace's .mcp.json, or in the plugin's; uninstall
removes that entry too. Init also adds .ctxls/ to the workspace's .gitignore and
offers to build the index.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if local && global {
				return usagef("--local and --global exclude each other")
			}
			if withMCP && global {
				return usagef("--mcp registers the project's .mcp.json; for your user scope run 'claude mcp add --scope user ctxls -- ctxls mcp'")
			}
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			// Files the team commits name ctxls as every teammate's PATH
			// finds it; only the files of this machine (--local, --global)
			// name the thin client beside this program (decisions 0086,
			// 0098).
			sharedHooks := !local && !global
			hookCommand, mcpCommand := command, command
			if command == "" {
				hookCommand, mcpCommand = install.DefaultSharedCommand, install.DefaultSharedCommand
				if !sharedHooks && plugin == "" {
					if exe, err := os.Executable(); err == nil {
						hookCommand = frontCommand(exe)
					}
				}
			} else if !uninstall {
				if err := install.CheckShared(command); err != nil && (sharedHooks || plugin != "" || withMCP) {
					return usagef("--command %s; the file it goes in is shared with the team: give a name on PATH or a path relative to the project, or add --local to install in .claude/settings.local.json", err)
				}
			}
			w := cmd.OutOrStdout()
			if plugin != "" {
				files, err := install.Plugin(plugin, hookCommand, version)
				if err != nil {
					return err
				}
				for _, f := range files {
					fmt.Fprintf(w, "wrote %s\n", f)
				}
				if withMCP {
					return registerMCP(w, filepath.Join(plugin, install.MCPFile), mcpCommand, false)
				}
				return nil
			}
			path := filepath.Join(abs, ".claude", "settings.json")
			switch {
			case local:
				path = filepath.Join(abs, ".claude", "settings.local.json")
			case global:
				home, err := os.UserHomeDir()
				if err != nil {
					return err
				}
				path = filepath.Join(home, ".claude", "settings.json")
			}
			rep, err := install.Settings(path, install.Options{Command: hookCommand, Uninstall: uninstall})
			if err != nil {
				return err
			}
			switch {
			case rep.Added == 0 && rep.Removed == 0:
				fmt.Fprintf(w, "%s already up to date\n", path)
			case uninstall:
				fmt.Fprintf(w, "removed %d ctxls hooks from %s\n", rep.Removed, path)
			default:
				fmt.Fprintf(w, "installed %d ctxls hooks in %s\n", rep.Added, path)
			}
			if rep.Backup != "" {
				fmt.Fprintf(w, "backup: %s\n", rep.Backup)
			}
			if withMCP || uninstall {
				if err := registerMCP(w, filepath.Join(abs, install.MCPFile), mcpCommand, uninstall); err != nil {
					return err
				}
			}
			if uninstall {
				if removed, err := install.RemoveGitignore(abs); err != nil {
					return err
				} else if removed {
					fmt.Fprintln(w, "removed the .ctxls/ line init added to .gitignore")
				}
				return nil
			}
			if sharedHooks || withMCP {
				warnUnresolved(cmd.ErrOrStderr(), abs, mcpCommand)
			}
			if added, err := install.EnsureGitignore(abs); err != nil {
				return err
			} else if added {
				fmt.Fprintln(w, "added .ctxls/ to .gitignore")
			}
			if _, err := os.Stat(store.Path(abs)); err == nil || noIdx {
				return nil
			}
			if !buildIndex && isTerminal(os.Stdin) {
				fmt.Fprint(w, "Build the index now? [Y/n] ")
				answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
				buildIndex = !strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "n")
			}
			if !buildIndex {
				fmt.Fprintln(w, "run 'ctxls index' to build the index")
				return nil
			}
			cfg, err := config.Load(abs)
			if err != nil {
				return err
			}
			st, err := store.Open(cmd.Context(), abs, store.Options{})
			if err != nil {
				return err
			}
			defer st.Close()
			sum, err := index.Run(cmd.Context(), st, index.Options{Root: abs, Config: cfg})
			if err != nil {
				return err
			}
			printSummary(w, sum)
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&local, "local", false, "install in .claude/settings.local.json (not committed)")
	cmd.Flags().BoolVar(&global, "global", false, "install in ~/.claude/settings.json")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "remove ctxls's hooks")
	cmd.Flags().StringVar(&plugin, "plugin", "", "write a Claude Code plugin into this directory instead")
	cmd.Flags().StringVar(&command, "command", "", "the ctxls executable the hooks and the MCP server run: a name on PATH or a path relative to the project (an absolute path only with --local or --global) (default: ctxls from PATH; with --local or --global, the ctxls beside this program)")
	cmd.Flags().BoolVar(&buildIndex, "index", false, "build the index without asking")
	cmd.Flags().BoolVar(&noIdx, "no-index", false, "do not offer to build the index")
	cmd.Flags().BoolVar(&withMCP, "mcp", false, "also register the MCP server (ctxls mcp) in .mcp.json")
	return cmd
}

// registerMCP adds (or removes) ctxls's MCP server in an .mcp.json file and
// says what changed.
func registerMCP(w io.Writer, path, command string, uninstall bool) error {
	rep, err := install.MCPConfig(path, install.Options{Command: command, Uninstall: uninstall})
	if err != nil {
		return err
	}
	switch {
	case uninstall && rep.Removed > 0:
		fmt.Fprintf(w, "removed the ctxls MCP server from %s\n", path)
	case !uninstall && rep.Added > 0:
		fmt.Fprintf(w, "registered the ctxls MCP server in %s\n", path)
	case !uninstall:
		fmt.Fprintf(w, "%s already up to date\n", path)
	}
	if rep.Backup != "" {
		fmt.Fprintf(w, "backup: %s\n", rep.Backup)
	}
	return nil
}

// warnUnresolved says, when the command written into a shared file does not
// resolve on this machine, that the hooks will not run here until it does,
// and what to do.
func warnUnresolved(w io.Writer, root, command string) {
	if _, err := install.Resolve(root, command); err != nil {
		fmt.Fprintf(w, "ctxls: note: the hooks run %q, but %v on this machine, so they will not run here until it is: install ctxls (make install) or put its directory on PATH, or run 'ctxls init --local' to use this machine's path\n", command, err)
	}
}

// frontCommand returns the thin client ctxls beside ctxls-core at exe when
// it exists, else exe.
func frontCommand(exe string) string {
	p := filepath.Join(filepath.Dir(exe), "ctxls")
	if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
		return p
	}
	return exe
}
