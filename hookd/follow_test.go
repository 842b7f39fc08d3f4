package hookd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/store"
)

// TestDaemonFollowsFileChanges edits, creates and deletes files behind the
// daemon's back (another editor, git): the index follows without a hook
// call, well within a second.
func TestDaemonFollowsFileChanges(t *testing.T) {
	root := testWorkspace(t)
	serve(t, root, "test-build")
	st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	names := func(rel string) string {
		ents, err := st.EntitiesInFile(context.Background(), rel)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			if e.Kind != "file" {
				out = append(out, e.Name)
			}
		}
		return strings.Join(out, ",")
	}
	// waitFor polls the index until cond holds and reports how long it took.
	waitFor := func(what string, cond func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !cond() {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: the index did not follow within 10 s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(start)
	}
	// The watches are in place once the daemon answers; give it a moment
	// to start following.
	time.Sleep(200 * time.Millisecond)

	edited := strings.Replace(authGo, "func issueToken", "func mintToken", 1)
	if err := os.WriteFile(filepath.Join(root, "auth", "auth.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	took := waitFor("edit", func() bool { return strings.Contains(names("auth/auth.go"), "mintToken") })
	t.Logf("edit reached the index in %v", took)

	if err := os.MkdirAll(filepath.Join(root, "billing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "billing", "invoice.go"), []byte("package billing\n\nfunc Render() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor("new directory", func() bool { return names("billing/invoice.go") == "Render" })

	if err := os.Remove(filepath.Join(root, "auth", "auth.go")); err != nil {
		t.Fatal(err)
	}
	waitFor("delete", func() bool {
		_, ok, err := st.FileByPath(context.Background(), "auth/auth.go")
		return err == nil && !ok
	})
}
