package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/gofrs/flock"
	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookd"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/internal/workspace"
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
			if _, err := os.Stat(workspace.Dir(abs)); err != nil {
				return fmt.Errorf("%w at %s", hooks.ErrNoIndex, abs)
			}
			log, err := logging.File(filepath.Join(workspace.Dir(abs), "ctxls.log"), "info")
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
			err = hookd.Serve(cmd.Context(), hookd.ServeOptions{Root: abs, Identity: hookcall.Identity(exe), Idle: idle, Log: log, Query: func(ctx context.Context, st *store.Store, q *hookcall.Query) ([]byte, string, error) {
				return answerQuery(ctx, st, abs, q)
			},
				FormatIndex: formatIndex, Heal: func(root, reason string) { heal(root, reason, log) }})
			if errors.Is(err, hookd.ErrRunning) {
				return fmt.Errorf("%w (%s)", err, abs)
			}
			return err
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().DurationVar(&idle, "idle", hookd.DefaultIdle, "exit after this long without a hook call")
	cmd.AddCommand(newDaemonListCmd(), newDaemonStopCmd())
	return cmd
}

// daemonListing is `ctxls daemon list --json` (writeJSON adds the
// version).
type daemonListing struct {
	Daemons []daemonSummary `json:"daemons"`
}

// daemonSummary is one daemon of the listing.
type daemonSummary struct {
	Root   string `json:"root,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Socket string `json:"socket"`
	// Started and LastCall are absent, as Root and PID, for a daemon of
	// a build that does not say them.
	Started  *time.Time `json:"started,omitempty"`
	LastCall *time.Time `json:"last_call,omitempty"`
}

// listDaemons asks every daemon socket of this user what it serves;
// sockets no daemon listens on any more are left out, and a daemon that
// does not say (a build older than Info requests) is listed by its socket.
func listDaemons(ctx context.Context) ([]daemonSummary, error) {
	socks, err := hookcall.Sockets()
	if err != nil {
		return nil, err
	}
	var out []daemonSummary
	for _, sock := range socks {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		resp, err := hookcall.CallSocket(cctx, sock, &hookcall.Request{Info: true})
		cancel()
		switch {
		case err != nil:
			continue // stale socket, or a daemon on its way out
		case resp.Daemon == nil:
			out = append(out, daemonSummary{Socket: sock})
		default:
			i := resp.Daemon
			out = append(out, daemonSummary{Root: i.Root, PID: i.PID, Socket: sock, Started: &i.Started, LastCall: &i.LastCall})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Root < out[b].Root })
	return out, nil
}

func newDaemonListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workspace daemons running for this user",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := listDaemons(cmd.Context())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if list == nil {
					list = []daemonSummary{}
				}
				return writeJSON(w, daemonListing{Daemons: list})
			}
			if len(list) == 0 {
				fmt.Fprintln(w, "no ctxls daemon is running")
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PID\tSTARTED\tLAST CALL\tWORKSPACE")
			for _, d := range list {
				if d.PID == 0 {
					fmt.Fprintf(tw, "?\t?\t?\t(an older ctxls build; socket %s)\n", d.Socket)
					continue
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", d.PID, d.Started.Local().Format("2006-01-02 15:04"), ago(time.Since(*d.LastCall)), d.Root)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// ago says how long ago something was, to the second or minute.
func ago(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	}
	return fmt.Sprintf("%s ago", d.Round(time.Minute).String())
}

func newDaemonStopCmd() *cobra.Command {
	var (
		root string
		all  bool
	)
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the workspace's daemon (or, with --all, every one of this user)",
		Long: `Stop asks the workspace's daemon to exit once the calls in flight are
answered, and waits until it has. The next hook call starts a new one. Stopping
a workspace no daemon serves is not an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all && cmd.Flags().Changed("root") {
				return usagef("--all and --root exclude each other")
			}
			var socks []string
			if all {
				list, err := listDaemons(cmd.Context())
				if err != nil {
					return err
				}
				for _, d := range list {
					socks = append(socks, d.Socket)
				}
			} else {
				abs, err := resolveRoot(root)
				if err != nil {
					return err
				}
				sock, err := hookcall.SocketPath(abs)
				if err != nil {
					return err
				}
				socks = append(socks, sock)
			}
			w := cmd.OutOrStdout()
			stopped := 0
			for _, sock := range socks {
				info, _ := hookcall.CallSocket(cmd.Context(), sock, &hookcall.Request{Info: true})
				_, err := hookcall.CallSocket(cmd.Context(), sock, &hookcall.Request{Stop: true})
				if errors.Is(err, hookcall.ErrNoDaemon) {
					continue
				}
				if err != nil {
					return fmt.Errorf("stop the daemon on %s: %w", sock, err)
				}
				if err := waitDaemonExit(cmd.Context(), hookcall.LockPath(sock), 10*time.Second); err != nil {
					return err
				}
				stopped++
				if d := info.Daemon; d != nil {
					fmt.Fprintf(w, "stopped the daemon of %s (pid %d)\n", d.Root, d.PID)
				} else {
					fmt.Fprintf(w, "stopped the daemon on %s\n", sock)
				}
			}
			if stopped == 0 {
				if all {
					fmt.Fprintln(w, "no ctxls daemon is running")
				} else {
					fmt.Fprintln(w, "no ctxls daemon serves this workspace")
				}
			}
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&all, "all", false, "stop every daemon of this user, whatever its workspace")
	return cmd
}

// waitDaemonExit waits until the daemon holding the lock file has exited: a
// daemon holds it until it has closed the index.
func waitDaemonExit(ctx context.Context, path string, limit time.Duration) error {
	lock := flock.New(path)
	for deadline := time.Now().Add(limit); ; {
		ok, err := lock.TryLock()
		if err != nil {
			return fmt.Errorf("daemon lock %s: %w", path, err)
		}
		if ok {
			lock.Unlock()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon holding %s did not exit within %v", path, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
