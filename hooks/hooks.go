// Package hooks answers Claude Code hooks. It is the orchestrator only:
// it parses the hook's JSON input once into a sources.Event, does the
// event's side effects (prepare), runs every context source of package
// sources in parallel under a hard deadline, gives their entries to the
// session's collector, and prints the merged additionalContext within a
// character budget. The sources themselves live in package sources.
//
// A hook must never hurt the session: Run's caller prints nothing and exits
// 0 on any error; only valid JSON is ever written.
package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/sources"
	"github.com/ctxls/ctxls/store"
)

// DefaultBudget is the additionalContext budget in characters; Claude Code
// replaces anything over 10,000 with a preview.
const DefaultBudget = 9500

// DefaultDeadline is how long a hook may take before it answers with what
// is ready.
const DefaultDeadline = time.Second

// Options configure Run.
type Options struct {
	// Root overrides the workspace root found from the input's cwd.
	Root     string
	Budget   int
	Deadline time.Duration
	// BudgetSet and DeadlineSet say the values came from the command line
	// and override the workspace's configuration.
	BudgetSet, DeadlineSet bool
	Log                    *zap.Logger
	// Sources are the context sources; nil means sources.All.
	Sources []sources.Source
	// Store, if set, is Root's open index, used instead of opening it for
	// the call (the hook daemon keeps one open); Run does not close it.
	Store *store.Store
	// Heal, if set, starts a rebuild of root's index in the background,
	// for the reason given. Run calls it when the index it opened was
	// recovered empty, is partial or incomplete (index.RebuildReason), and
	// answers from what is ready. A caller that passes Store checks that
	// store itself (the daemon does so as it watches its files).
	Heal func(root, reason string)
	// Update, if set, re-indexes files the call finds changed or the
	// assistant touched (sources.Event.Update): the daemon's follow loop.
	Update func(ctx context.Context, paths []string) error
}

// Output is the hook's JSON answer.
type Output struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// ErrNoIndex means the workspace has no index: the hook answers nothing.
var ErrNoIndex = errors.New("workspace has no ctxls index")

// Run handles one hook call and returns what to print (nil for nothing).
func Run(ctx context.Context, event string, stdin []byte, opts Options) ([]byte, error) {
	name, ok := hookevent.FromArg(event)
	if !ok {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	in, err := ParseInput(stdin)
	if err != nil {
		return nil, err
	}
	root := opts.Root
	if root == "" {
		root = workspace.FindRoot(in.Cwd)
	}
	if _, err := os.Stat(store.Path(root)); err != nil {
		return nil, fmt.Errorf("%w at %s", ErrNoIndex, root)
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	// The workspace's configuration applies where the command line said
	// nothing.
	if !opts.BudgetSet {
		opts.Budget = cfg.Hooks.Budget
	}
	if !opts.DeadlineSet {
		opts.Deadline = cfg.HookDeadline()
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()
	st := opts.Store
	if st == nil {
		// One connection, as the daemon's: the sources share its warm
		// cache (docs/decisions/0085).
		if st, err = store.Open(ctx, root, store.Options{BusyTimeout: opts.Deadline, SingleConnection: true}); err != nil {
			return nil, err
		}
		defer st.Close()
		if st.Recovered != "" {
			log.Warn("index was corrupt or not a ctxls index; moved aside for a new one", zap.String("moved", st.Recovered))
		}
		if opts.Heal != nil {
			if reason, _, err := index.RebuildReason(ctx, st, root); err != nil {
				log.Warn("index state unknown", zap.Error(err))
			} else if reason != "" {
				opts.Heal(root, reason)
			}
		}
	}
	ev := newEvent(name, in, root)
	ev.Store, ev.Config, ev.Log, ev.Collector = st, cfg, log, collect.New(st, in.SessionID)
	ev.Update = opts.Update
	if opts.Heal != nil {
		ev.Reindex = func() error {
			opts.Heal(root, "the workspace changed at large (a checkout, a pull)")
			return nil
		}
	}

	// A source's failure costs only its own entries, unless the store is
	// damaged: then the call answers nothing and says so, so that its
	// caller can repair the file (store.Repair) instead of every call
	// failing the same way.
	var corrupt error
	start := time.Now()
	if err := prepare(ctx, ev); err != nil {
		log.Warn("hook preparation failed", zap.String("event", name), zap.Error(err))
		if store.IsCorrupt(err) {
			corrupt = err
		}
	}
	prepared := time.Now()
	srcs := opts.Sources
	if srcs == nil {
		srcs = sources.All()
	}
	// Sources run in parallel; past the deadline, what is ready is used.
	type got struct {
		i       int // the source's place in srcs
		src     string
		entries []collect.Entry
		err     error
		took    time.Duration
	}
	results := make(chan got, len(srcs))
	var wg sync.WaitGroup
	for i, s := range srcs {
		wg.Add(1)
		go func(i int, s sources.Source) {
			defer wg.Done()
			t := time.Now()
			es, err := s.Collect(ctx, ev)
			results <- got{i, s.Name(), es, err, time.Since(t)}
		}(i, s)
	}
	// Entries keep the sources' order, not the order they finished in:
	// the collector breaks ties of priority by registration order, and
	// the same call must inject the same text.
	bySource := make([][]collect.Entry, len(srcs))
	for range srcs {
		select {
		case g := <-results:
			if g.err != nil {
				log.Warn("context source failed", zap.String("source", g.src), zap.Error(g.err))
				if corrupt == nil && store.IsCorrupt(g.err) {
					corrupt = g.err
				}
			}
			log.Debug("context source done", zap.String("source", g.src), zap.Int("entries", len(g.entries)), zap.Duration("took", g.took))
			bySource[g.i] = g.entries
		case <-ctx.Done():
			log.Warn("hook deadline reached; answering with what is ready", zap.String("event", name))
		}
		if ctx.Err() != nil {
			break
		}
	}
	if corrupt != nil {
		return nil, fmt.Errorf("%s: %w", name, corrupt)
	}
	var entries []collect.Entry
	for _, es := range bySource {
		entries = append(entries, es...)
	}
	collected := time.Now()
	// Registration and consumption get a short grace period of their own, so
	// that work already done is not lost to the deadline.
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), opts.Deadline/2)
	defer wcancel()
	if err := ev.Collector.Register(wctx, entries...); err != nil {
		return nil, err
	}
	if name == hookevent.PreCompact {
		return nil, nil // PreCompact cannot inject; prepare() saved state
	}
	var res collect.Result
	if name == hookevent.UserPromptSubmit && !IsProbeSession(in.SessionID) {
		// The prompt history is written in the collector's transaction:
		// no write of its own on the hook's path.
		res, err = ev.Collector.ConsumePrompt(wctx, opts.Budget, analyzer.Truncate(in.Prompt, store.MaxPromptText))
		if res.HistoryErr != nil {
			log.Warn("prompt history not recorded", zap.Error(res.HistoryErr))
		}
	} else {
		res, err = ev.Collector.Consume(wctx, opts.Budget)
	}
	if err != nil {
		return nil, err
	}
	log.Info("hook answered", zap.String("event", name), zap.Int("entries", len(res.Entries)),
		zap.Int("chars", len(res.Merged)), zap.Int("dedup_hits", res.DedupHits), zap.Int("dropped", res.Dropped),
		// Where a call's time goes: preparation (activity, re-index), the
		// sources, and the collector's writes.
		zap.Duration("prepare", prepared.Sub(start)), zap.Duration("sources", collected.Sub(prepared)),
		zap.Duration("collector", time.Since(collected)))
	if res.Merged == "" {
		return nil, nil
	}
	var out Output
	out.HookSpecificOutput.HookEventName = name
	out.HookSpecificOutput.AdditionalContext = res.Merged
	return json.Marshal(out)
}
