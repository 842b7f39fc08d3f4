package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/install"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/mcpserver"
)

func newMCPCmd() *cobra.Command {
	var root, logFile, logLevel string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the auto-context and code retrieval over MCP (stdio)",
		Long: `Mcp runs ctxls's Model Context Protocol server on stdin/stdout for one client
(Claude Code, or any MCP client). Resources: ctxls://context/auto (the current
auto-context), ctxls://context/session (working set and recent activity) and
ctxls://context/file/{+path} (one file's entities and relations, and the
rules, nearest AGENTS.md and memories that apply to it), with subscriptions.
Tools: context_query, symbol_lookup, related, memory_search, memory_write,
memory_link. The user's rules and global memories are read from $HOME/.claude.

Logs go to --log-file (default <root>/.ctxls/ctxls.log when that directory
exists), never to stdout, which carries the protocol.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			log := zap.NewNop()
			if logFile == "" {
				if _, err := os.Stat(workspace.Dir(abs)); err == nil {
					logFile = filepath.Join(workspace.Dir(abs), "ctxls.log")
				}
			}
			if logFile != "" {
				if log, err = logging.File(logFile, logLevel); err != nil {
					return usagef("%v", err)
				}
			}
			defer log.Sync()
			srv, err := mcpserver.New(mcpserver.Options{Root: abs, Version: version, Log: log,
				Rebuild: func(reason string) bool { return rebuildOutdated(abs, reason, log) }})
			if err != nil {
				return err
			}
			log.Info("mcp: serving", zap.String("root", abs))
			// The session ends when the client closes stdin. A malformed
			// line, which would end it in the SDK's transport, is answered
			// with a JSON-RPC error by the filter in front of it.
			err = srv.Run(cmd.Context(), mcpserver.FilterTransport(os.Stdin, os.Stdout))
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, cmd.Context().Err()) {
				log.Warn("mcp: session ended", zap.Error(err))
			} else {
				log.Info("mcp: session ended")
			}
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().StringVar(&logFile, "log-file", "", "log file (default: <root>/.ctxls/ctxls.log if .ctxls exists)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	return cmd
}

// mcp checks the MCP server registered in the project's .mcp.json, if any:
// it starts the entry's command in the project directory as Claude Code
// does, and lists the tools and reads the session resource through it.
func (d *doctor) mcp(ctx context.Context) {
	p := filepath.Join(d.root, install.MCPFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return // not registered: nothing to check
	}
	var doc struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		d.verdict(false, "mcp server in "+p, "not valid JSON: "+err.Error())
		return
	}
	e, ok := doc.Servers[install.MCPServerName]
	if !ok {
		return
	}
	exe := d.command(p, e.Command, true)
	if exe == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, e.Args...)
	cmd.Dir = d.root
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ctxls-doctor", Version: version}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		d.verdict(false, "mcp server in "+p, fmt.Sprintf("%s %s: %v", e.Command, strings.Join(e.Args, " "), err))
		return
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err == nil {
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.SessionURI})
	}
	if err != nil {
		d.verdict(false, "mcp server in "+p, err.Error())
		return
	}
	d.verdict(len(tools.Tools) > 0, "mcp server in "+p, fmt.Sprintf("%d tools, session resource read, %d ms", len(tools.Tools), time.Since(start).Milliseconds()))
}
