package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

func TestQueryArgs(t *testing.T) {
	for _, tc := range []struct {
		args, want []string
	}{
		// Nothing to move: as given.
		{[]string{"query", "--json", "x", "y"}, []string{"query", "--json", "x", "y"}},
		{[]string{"query", "--no-such", "x"}, []string{"query", "--no-such", "x"}},
		{[]string{"query", "-x"}, []string{"query", "-x"}},
		{[]string{"index", "-v is ignored"}, []string{"index", "-v is ignored"}},
		// Text starting with "-": flags (with their values) first, then
		// the words in their order after "--".
		{[]string{"query", "--root", "/w", "-v is ignored", "--limit", "3"}, []string{"query", "--root", "/w", "--limit", "3", "--", "-v is ignored"}},
		{[]string{"query", "fix", "--color=auto breaks", "--json", "it"}, []string{"query", "--json", "--", "fix", "--color=auto breaks", "it"}},
		{[]string{"query", "- x", "--", "--json"}, []string{"query", "--", "- x", "--json"}},
		{[]string{"query", "--root=/a b", "-5%"}, []string{"query", "--root=/a b", "--", "-5%"}},
	} {
		root := newRootCmd(tc.args)
		if got := queryArgs(root, tc.args); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("queryArgs(%q) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

// TestIndexNoteWhileAnIndexerBuilds: a query answered while another
// process builds an index that no run has finished says so on stderr; a
// complete index gets no note.
func TestIndexNoteWhileAnIndexerBuilds(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lock, ok, err := index.TryLock(root)
	if err != nil || !ok {
		t.Fatalf("index lock: %v %v", ok, err)
	}
	defer lock.Close()
	reason, h, err := index.RebuildReason(ctx, st, root)
	if err != nil {
		t.Fatal(err)
	}
	if note := indexNote(ctx, st, reason, h); !strings.Contains(note, "the index is being built") {
		t.Errorf("incomplete index, an indexer at work: note %q", note)
	}
	if err := st.SetMeta(ctx, store.MetaComplete, "2026-11-28T10:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if reason, h, err = index.RebuildReason(ctx, st, root); err != nil {
		t.Fatal(err)
	}
	if note := indexNote(ctx, st, reason, h); note != "" {
		t.Errorf("complete index: note %q", note)
	}
}

// TestQueryOnAnOlderIndex: `ctxls query` on an index of an older schema
// version, which it opens read-only and cannot migrate, starts the rebuild
// a hook would and says so; once that is in, it answers.
func TestQueryOnAnOlderIndex(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc Greet() string { return \"hi\" }\n"), 0o644)
	if _, errOut, code := ctxls(t, root, "index"); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion-1)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, errOut, code := ctxls(t, root, "query", "Greet")
	if code != 1 || !strings.Contains(errOut, "written by an older ctxls") || !strings.Contains(errOut, "being rebuilt in the background") {
		t.Fatalf("query on an older index: %d %q", code, errOut)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		out, errOut, code := ctxls(t, root, "query", "Greet")
		if code == 0 && strings.Contains(out, "Greet") && errOut == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer a minute after the rebuild started: %d %q %q", code, out, errOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
