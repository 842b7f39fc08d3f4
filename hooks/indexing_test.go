package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// Prompt hooks get their context while an index run writes (issue 23, item
// 3): an editor's, a checkout's or another hook's re-index must not cost
// the prompt its context. Here index runs re-write a few hundred files in a
// loop, as `ctxls index` after a checkout does, while rounds of concurrent
// prompt hooks, each in a session of its own, go through the binary, with
// the daemon and in process; every call must inject, and the log must not
// say "database is locked". Before the fix the hooks' state writes waited
// for the index run's write lock past their deadline.
func TestContextWhileIndexing(t *testing.T) {
	const ask = "Why does AuthService.Login reject valid passwords?"
	// At least rounds rounds of calls concurrent calls. Processes that
	// answer in process each open the index and parse the prompt on the
	// test's two cores: fewer of them at once, so that none misses its
	// deadline for want of CPU on a loaded machine, which is not what the
	// test is about.
	const rounds = 4
	for _, daemon := range []bool{true, false} {
		t.Run(fmt.Sprintf("daemon=%v", daemon), func(t *testing.T) {
			calls := 8
			if !daemon {
				t.Setenv("CTXLS_HOOK_DAEMON", "0")
				calls = 4
			}
			root := testWorkspace(t)
			// Enough code that each index run holds the index's write lock
			// for a good part of a second or more.
			fill := func(rev int) {
				for f := range 150 {
					var b strings.Builder
					fmt.Fprintf(&b, "package filler\n\n// rev %d\n", rev)
					for fn := range 30 {
						fmt.Fprintf(&b, "\n// Fill%d_%d adds a constant of revision %d.\nfunc Fill%d_%d(x int) int { return x + %d }\n", f, fn, rev, f, fn, rev+fn)
					}
					os.MkdirAll(filepath.Join(root, "filler"), 0o755)
					if err := os.WriteFile(filepath.Join(root, "filler", fmt.Sprintf("f%03d.go", f)), []byte(b.String()), 0o644); err != nil {
						t.Error(err)
					}
				}
			}
			fill(0)
			prompt := func(session string) (string, int) {
				out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": session, "cwd": root, "prompt": ask}))
				return contextOf(t, "user-prompt-submit", out), code
			}
			// The prompt injects with no indexer at work (and the daemon,
			// when used, runs before the index runs start).
			reindex(t, root)
			if c, _ := prompt("quiet"); c == "" {
				t.Fatal("the prompt gets no context even with no index run")
			}
			if daemon {
				waitDaemon(t, root)
			}

			ctx, stop := context.WithCancel(context.Background())
			var runs atomic.Int32
			done := make(chan struct{})
			go func() {
				defer close(done)
				for rev := 1; ctx.Err() == nil; rev++ {
					fill(rev)
					if err := reindexCtx(ctx, root); err != nil && ctx.Err() == nil {
						t.Errorf("index run %d: %v", rev, err)
						return
					}
					runs.Add(1)
				}
			}()
			// Rounds go on until index runs have finished during them,
			// so that the calls met runs at every stage of their work: for
			// up to a minute, not a number of rounds, since rounds can be
			// quick while a run waits for the daemon's own re-index of the
			// rewritten files (race-detector CI once ended 60 rounds in
			// 5.6 s with two runs done).
			r := 0
			for start := time.Now(); r < rounds || runs.Load() < 3 && time.Since(start) < time.Minute; r++ {
				var wg sync.WaitGroup
				got := make([]string, calls)
				codes := make([]int, calls)
				for i := range calls {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got[i], codes[i] = prompt(fmt.Sprintf("round-%d-call-%d", r, i))
					}()
				}
				wg.Wait()
				for i := range calls {
					if codes[i] != 0 || !strings.Contains(got[i], "Login") {
						t.Errorf("round %d, call %d: exit %d, context %.80q", r, i, codes[i], got[i])
					}
				}
			}
			stop()
			<-done
			if n := runs.Load(); n < 3 {
				t.Errorf("only %d index runs finished during %d rounds of calls: the test did not overlap them", n, r)
			}
			t.Logf("%d rounds of %d calls during %d index runs", r, calls, runs.Load())
			log, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log"))
			if n := bytes.Count(log, []byte("database is locked")); n > 0 {
				t.Errorf("%d \"database is locked\" in the log", n)
			}
			if t.Failed() {
				for _, l := range strings.Split(string(log), "\n") {
					if strings.Contains(l, `"warn"`) || strings.Contains(l, "nothing") {
						t.Log(l)
					}
				}
			}
		})
	}
}

func reindex(t *testing.T, root string) {
	t.Helper()
	if err := reindexCtx(context.Background(), root); err != nil {
		t.Fatal(err)
	}
}

// reindexCtx is one `ctxls index` run: a store of its own, the whole tree.
func reindexCtx(ctx context.Context, root string) error {
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = index.Run(ctx, st, index.Options{Root: root, Config: config.Default()})
	return err
}
