package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookd"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/store"
)

func newDaemonCmd() *cobra.Command {
	var (
		root string
		idle time.Duration
	)
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Answer the workspace's hook calls from one long-lived process",
		Long: `daemon keeps the workspace's index open and answers 'ctxls hook' calls sent to
it over a private unix socket, so that each hook costs a connection instead of a
process that opens the index anew. 'ctxls hook' starts it in the background when
none runs, and answers in-process whenever it cannot be reached; you need not
start it yourself. It exits after --idle without calls, when the index is deleted
or replaced, when a client of another ctxls build calls, or when
hooks.daemon: false is set in .ctxls/config.yaml. Logs go to .ctxls/ctxls.log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			daemonRuntime()
			// Started in the background, the daemon may find its
			// workspace's state removed meanwhile: it must not create
			// any of it again (not even the log's directory).
			if _, err := os.Stat(store.Dir(abs)); err != nil {
				return fmt.Errorf("%w at %s", hooks.ErrNoIndex, abs)
			}
			log, err := logging.File(filepath.Join(store.Dir(abs), "ctxls.log"), "info")
			if err != nil {
				return err
			}
			defer log.Sync()
			exe, err := hookcall.Executable()
			if err != nil {
				return err
			}
			// While it runs, the daemon keeps a team's enterprise memory
			// cache fresh (memory.enterprise on PostgreSQL).
			tctx, stopTeam := context.WithCancel(cmd.Context())
			defer stopTeam()
			go watchTeam(tctx, abs, log)
			err = hookd.Serve(cmd.Context(), hookd.ServeOptions{Root: abs, Identity: hookcall.Identity(exe), Idle: idle, Log: log, Query: answerQuery,
				Heal: func(root, reason string) { heal(root, reason, log) }})
			if errors.Is(err, hookd.ErrRunning) {
				return fmt.Errorf("%w (%s)", err, abs)
			}
			return err
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().DurationVar(&idle, "idle", hookd.DefaultIdle, "exit after this long without a hook call")
	return cmd
}
