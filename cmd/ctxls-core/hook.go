package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/install"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/store"
)

func newHookCmd() *cobra.Command {
	var (
		root     string
		budget   int
		deadline time.Duration
	)
	var names []string
	for _, e := range hookevent.All() {
		names = append(names, e.Arg)
	}
	sort.Strings(names)
	cmd := &cobra.Command{
		Use:   "hook EVENT",
		Short: "Answer a Claude Code hook (reads its JSON on stdin)",
		Long: `Hook answers one Claude Code hook event with additionalContext JSON on stdout,
or with nothing. It never fails the session: on any error it prints nothing,
exits 0 and logs why to <root>/.ctxls/ctxls.log.

Events: ` + strings.Join(names, ", "),
		// A hook never fails the session, not even when it is installed
		// wrongly: Claude Code reads exit code 2 as "block". Bad arguments
		// are reported on stderr (shown to the user, not the model) and in
		// the log, with exit code 0.
		Args:               cobra.ArbitraryArgs,
		ValidArgs:          names,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				fmt.Fprintf(cmd.ErrOrStderr(), "ctxls hook: want one event (%s), got %q\n", strings.Join(names, ", "), args)
				return nil
			}
			event := args[0]
			if _, ok := hookevent.FromArg(event); !ok {
				fmt.Fprintf(cmd.ErrOrStderr(), "ctxls hook: unknown event %q (want one of %s)\n", event, strings.Join(names, ", "))
				return nil
			}
			oneRequestRuntime()
			runHook(cmd, event, root, hooks.Options{Budget: budget, Deadline: deadline,
				BudgetSet: cmd.Flags().Changed("budget"), DeadlineSet: cmd.Flags().Changed("deadline")})
			return nil
		},
	}
	// A malformed flag value must not fail the session either.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		fmt.Fprintf(c.ErrOrStderr(), "ctxls hook: %v\n", err)
		return nil
	})
	cmd.Flags().StringVar(&root, "root", "", "workspace root (default: found from the input's cwd)")
	cmd.Flags().IntVar(&budget, "budget", hooks.DefaultBudget, "additionalContext budget in characters")
	cmd.Flags().DurationVar(&deadline, "deadline", hooks.DefaultDeadline, "answer with what is ready after this long")
	return cmd
}

// runHook never returns an error: a hook fails open.
func runHook(cmd *cobra.Command, event, root string, opts hooks.Options) {
	start := time.Now()
	// The input's read has the hook's deadline: the workspace's is not
	// known before the input names the workspace.
	wait := hookcall.InputWait
	if opts.DeadlineSet && opts.Deadline > 0 {
		wait = opts.Deadline
	}
	data, readErr := hookcall.ReadInput(cmd.InOrStdin(), wait)
	log := zap.NewNop()
	logRoot := root
	if logRoot == "" {
		if in, err := hooks.ParseInput(data); err == nil {
			logRoot = workspace.FindRoot(in.Cwd)
		} else {
			logRoot = workspace.FindRoot("")
		}
	}
	if _, err := os.Stat(workspace.Dir(logRoot)); err == nil {
		if l, err := logging.File(filepath.Join(workspace.Dir(logRoot), "ctxls.log"), "info"); err == nil {
			log = l
		}
	}
	defer log.Sync()
	defer func() {
		if r := recover(); r != nil {
			log.Error("hook panicked", zap.String("event", event), zap.Any("panic", r))
		}
	}()
	if readErr != nil {
		log.Warn("hook input unreadable", zap.String("event", event), zap.Error(readErr))
		return
	}
	opts.Root, opts.Log = root, log
	opts.Heal = func(root, reason string) { heal(root, reason, log) }
	if d, cfg := daemonFor(logRoot, log); d.use {
		// The daemon answers within the hook's deadline plus the grace
		// period of its bookkeeping.
		deadline := cfg.HookDeadline()
		if opts.DeadlineSet {
			deadline = opts.Deadline
		}
		d.wait = 2*deadline + time.Second
		resp, err := d.call(cmd.Context(), &hookcall.Request{
			Event: event, Budget: opts.Budget, Deadline: opts.Deadline, BudgetSet: opts.BudgetSet, DeadlineSet: opts.DeadlineSet,
			Input: data,
		})
		switch {
		case err == nil:
			if len(resp.Output) > 0 {
				fmt.Fprintln(cmd.OutOrStdout(), string(resp.Output))
			}
			return
		case !errors.Is(err, errInProcess):
			return // too late for any answer; logged
		}
		defer d.startIfNeeded()
	}
	out, err := hooks.Run(cmd.Context(), event, data, opts)
	if err != nil {
		log.Info("hook answered nothing", zap.String("event", event), zap.Error(err), zap.Duration("took", time.Since(start)))
		if name, _ := hookevent.FromArg(event); errors.Is(err, hooks.ErrNoIndex) && name == hookevent.SessionStart {
			noIndex(cmd.OutOrStdout(), logRoot)
		}
		if store.IsCorrupt(err) {
			// Damaged pages surface only in the queries that meet them (Open
			// reads the headers): the damaged file is moved aside so that
			// the next call starts a new one, and an index moved aside is
			// rebuilt in the background (the language server, if one runs,
			// waits for the index lock or finds the work done).
			if r, rerr := store.Repair(cmd.Context(), logRoot); rerr != nil {
				log.Warn("check index and state files", zap.Error(rerr))
			} else if r != (store.Repaired{}) {
				log.Warn("damaged files moved aside", zap.String("index", r.Index), zap.String("state", r.State))
				if r.Index != "" {
					heal(logRoot, "damaged index pages; moved to "+r.Index, log)
				}
			}
		}
	} else if len(out) > 0 {
		fmt.Fprintln(cmd.OutOrStdout(), string(out))
	}
	log.Debug("hook done", zap.String("event", event), zap.Duration("took", time.Since(start)))
}

// noIndex answers the start of a session in a workspace without an index.
// A project whose own settings run ctxls's hooks (a teammate's fresh clone
// of a repository where someone ran `ctxls init`) gets its first index
// built in the background, as a damaged one is; a workspace that only the
// person's global settings reach is left alone, as it may be any
// directory. Either way the person, not the model, is told why no code
// context comes yet, once per session.
func noIndex(w io.Writer, root string) {
	project := false
	for _, name := range []string{"settings.json", "settings.local.json"} {
		if ok, err := install.Installed(filepath.Join(root, ".claude", name)); err == nil && ok {
			project = true
		}
	}
	msg := fmt.Sprintf("ctxls: %s has no index yet, so no code context is added; run `ctxls index` there to build it.", root)
	if project && workspace.EnsureDir(root) == nil {
		log := zap.NewNop()
		if l, err := logging.File(filepath.Join(workspace.Dir(root), "ctxls.log"), "info"); err == nil {
			log = l
			defer l.Sync()
		}
		// Started now, or by an earlier session that is still at it (heal
		// hands its lock to the indexer, which holds it to the end).
		if heal(root, "the first session of a project whose settings run ctxls's hooks, with no index", log) || indexerRunning(root) {
			msg = fmt.Sprintf("ctxls: indexing %s for the first time, in the background; code context is added once it is done (`ctxls stats` shows how far it is).", root)
		}
	}
	out, _ := json.Marshal(struct {
		SystemMessage string `json:"systemMessage"`
	}{msg})
	fmt.Fprintln(w, string(out))
}

// indexerRunning reports whether an index run holds root's index lock.
func indexerRunning(root string) bool {
	lock, free, err := index.TryLock(root)
	if err != nil {
		return false
	}
	if free {
		lock.Close()
	}
	return !free
}
