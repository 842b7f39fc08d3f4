package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/server"
)

func newServeCmd() *cobra.Command {
	var (
		stdio    bool
		logFile  string
		logLevel string
		debounce time.Duration
		noWatch  bool
		noIndex  bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the language server over stdin/stdout (LSP; see docs/protocol.md)",
		Long: `serve runs ctxls's language server on stdin/stdout for an editor: document sync
with an overlay of unsaved buffers, hover, document and workspace symbols, editor
activity, and the live auto-context in <root>/.ctxls/auto-context.md and .json.
Logs go to --log-file, or stderr; never to stdout, which is the protocol.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_ = stdio // the only transport; vscode-languageclient appends --stdio
			log, err := logging.File(logFile, logLevel)
			if err != nil {
				return usagef("%v", err)
			}
			defer log.Sync()
			opts := server.Options{Version: version, Log: log, NoWatch: noWatch, NoIndex: noIndex}
			if cmd.Flags().Changed("debounce") {
				if debounce < 0 {
					return usagef("--debounce must not be negative")
				}
				opts.Debounce = &debounce
			}
			log.Info("serve starting", zap.String("version", version))
			code := server.New(opts).Serve(cmd.Context(), os.Stdin, os.Stdout, os.Stdin)
			log.Info("serve stopped", zap.Int("status", code))
			if code != 0 {
				return silentError{code}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&stdio, "stdio", false, "accepted for editors that pass it: stdin/stdout is the only transport")
	cmd.Flags().StringVar(&logFile, "log-file", "", "append JSON log lines to this file (default: stderr)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	cmd.Flags().DurationVar(&debounce, "debounce", 0, "quiet time after activity before the auto-context is rewritten (default: serve.debounce from config, 150ms unless set)")
	cmd.Flags().BoolVar(&noWatch, "no-watch", false, "do not watch the workspace for changes made outside the editor")
	cmd.Flags().BoolVar(&noIndex, "no-index", false, "skip the initial index run")
	return cmd
}
