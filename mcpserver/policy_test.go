package mcpserver

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/store"
)

// TestAutoRequestIsTheEditorsRequest holds the one editor policy (decision
// 0095): from the same recorded activity, the computed ctxls://context/auto
// makes the request the language server's engine makes, live and after a
// restart.
func TestAutoRequestIsTheEditorsRequest(t *testing.T) {
	ctx := context.Background()
	steps := []func(e *engine.Engine){
		func(e *engine.Engine) { e.Record(engine.Activity{Type: engine.FileOpen, Path: "cmd/app/main.go"}) },
		func(e *engine.Engine) { e.Record(engine.Activity{Type: engine.FileOpen, Path: "auth/auth.go"}) },
		func(e *engine.Engine) {
			e.Record(engine.Activity{Type: engine.FileEdit, Path: "auth/auth.go", ChangedSymbols: []string{"check"}, Line: 8})
		},
		func(e *engine.Engine) {
			e.Record(engine.Activity{Type: engine.SymbolHover, Path: "auth/auth.go", Symbol: "Login", Line: 4})
		},
		func(e *engine.Engine) {
			e.Record(engine.Activity{Type: engine.Selection, Path: "cmd/app/main.go", Line: 6, Text: `auth.Login("admin", "secret")`})
		},
		func(e *engine.Engine) { e.Message("why does Login reject empty passwords") },
		func(e *engine.Engine) {
			e.Record(engine.Activity{Type: engine.VisibleRange, Path: "auth/auth.go", Line: 12})
		},
		func(e *engine.Engine) { e.Record(engine.Activity{Type: engine.FileClose, Path: "cmd/app/main.go"}) },
	}
	for n := 1; n <= len(steps); n++ {
		// A fresh workspace for each prefix of the steps.
		root := testWorkspace(t, fixture)
		st, err := store.Open(ctx, root, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		srv, err := New(Options{Root: root, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		live := engine.New(engine.Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
		for _, step := range steps[:n] {
			step(live)
			time.Sleep(2 * time.Millisecond) // distinct timestamps, as in use
		}
		live.Close() // records the activity
		want := live.Request(ctx)

		restarted := engine.New(engine.Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
		if err := restarted.Restore(ctx); err != nil {
			t.Fatal(err)
		}
		got := restarted.Request(ctx)
		restarted.Close()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after %d steps the restarted engine's request differs:\n got %+v\nwant %+v", n, got, want)
		}

		mst, err := srv.store(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, _, _, err = srv.autoRequest(ctx, mst, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after %d steps ctxls://context/auto's request differs from the engine's:\n got %+v\nwant %+v", n, got, want)
		}
		if len(want.Triggers) == 0 || len(want.ActiveFiles) == 0 {
			t.Errorf("after %d steps the request has no triggers or seeds: %+v", n, want)
		}
	}
}
