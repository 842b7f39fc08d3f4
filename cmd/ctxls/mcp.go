package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/mcpserver"
	"github.com/ctxls/ctxls/store"
)

func newMCPCmd() *cobra.Command {
	var root, logFile, logLevel string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the auto-context and code retrieval over MCP (stdio)",
		Long: `Mcp runs ctxls's Model Context Protocol server on stdin/stdout for one client
(Claude Code, or any MCP client). Resources: ctxls://context/auto (the current
auto-context), ctxls://context/session (working set and recent activity) and
ctxls://context/file/{+path} (one file's entities and relations), with
subscriptions. Tools: context_query, symbol_lookup, related.

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
				if _, err := os.Stat(store.Dir(abs)); err == nil {
					logFile = filepath.Join(store.Dir(abs), "ctxls.log")
				}
			}
			if logFile != "" {
				if log, err = logging.File(logFile, logLevel); err != nil {
					return usagef("%v", err)
				}
			}
			defer log.Sync()
			srv, err := mcpserver.New(mcpserver.Options{Root: abs, Version: version, Log: log})
			if err != nil {
				return err
			}
			log.Info("mcp: serving", zap.String("root", abs))
			err = srv.Run(cmd.Context(), &mcp.StdioTransport{})
			if err != nil && !errors.Is(err, cmd.Context().Err()) {
				log.Info("mcp: session ended", zap.Error(err))
			}
			// A client closing stdin ends the session normally.
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().StringVar(&logFile, "log-file", "", "log file (default: <root>/.ctxls/ctxls.log if .ctxls exists)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	return cmd
}
