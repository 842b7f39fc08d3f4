package hookd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wstest"
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

// TestDaemonAnswersIndexWhenFollowed: `ctxls index` is answered without a
// walk only once a whole walk has run since the watches were in place, and
// then with every change made before the call in the index; a changed
// ignore file sends the next call back to a walk.
func TestDaemonAnswersIndexWhenFollowed(t *testing.T) {
	root := testWorkspace(t)
	const build = "test-build"
	serveWith(t, ServeOptions{Root: root, Identity: build, FormatIndex: func(sum index.Summary, _ bool) ([]byte, error) {
		return json.Marshal(sum)
	}})
	ctx := context.Background()
	home, _ := os.UserHomeDir()
	call := func(req *hookcall.Request) hookcall.Response {
		t.Helper()
		req.Identity, req.Home, req.Root = build, home, root
		resp, err := hookcall.Call(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	indexCall := func() (index.Summary, string) {
		t.Helper()
		resp := call(&hookcall.Request{Index: &hookcall.Index{JSON: true}})
		var sum index.Summary
		if resp.Refused == "" {
			if err := json.Unmarshal(resp.Output, &sum); err != nil {
				t.Fatalf("index answer %q: %v", resp.Output, err)
			}
		}
		return sum, resp.Refused
	}
	st, err := store.Open(ctx, root, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tracked := func(rel string) bool {
		_, ok, err := st.FileByPath(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	time.Sleep(200 * time.Millisecond) // the watches in place

	if _, refused := indexCall(); refused == "" {
		t.Fatal("answered an index call before any whole walk")
	}
	// A walk that began before the watches proves nothing.
	call(&hookcall.Request{Walked: &hookcall.Walked{Started: time.Now().Add(-time.Hour)}})
	if _, refused := indexCall(); refused == "" {
		t.Fatal("answered after a walk older than the watches")
	}
	call(&hookcall.Request{Walked: &hookcall.Walked{Started: time.Now()}})
	sum, refused := indexCall()
	if refused != "" || !sum.Followed || sum.Files != 1 || sum.Parsed != 0 {
		t.Fatalf("after a walk: %+v, refused %q", sum, refused)
	}

	// A file written just before the call is in the index when it answers.
	if err := os.MkdirAll(filepath.Join(root, "billing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "billing", "invoice.go"), []byte("package billing\n\nfunc Render() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, refused = indexCall(); refused != "" || sum.Files != 2 || !tracked("billing/invoice.go") {
		t.Fatalf("after a new file: %+v, refused %q", sum, refused)
	}
	// A directory moved away takes its files out of the index, though no
	// event names them.
	if err := os.Rename(filepath.Join(root, "billing"), filepath.Join(t.TempDir(), "billing")); err != nil {
		t.Fatal(err)
	}
	if sum, refused = indexCall(); refused != "" || sum.Files != 1 || tracked("billing/invoice.go") {
		t.Fatalf("after moving a directory away: %+v, refused %q", sum, refused)
	}
	// A checkout moved HEAD: the history in the index needs a walk.
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, refused := indexCall(); refused == "" {
		t.Fatal("answered after HEAD moved")
	}
	os.RemoveAll(filepath.Join(root, ".git"))
	if _, refused := indexCall(); refused != "" {
		t.Fatalf("refused with HEAD as recorded: %s", refused)
	}
	// What the walk indexes changed: back to a walk.
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("auth/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, refused := indexCall(); refused == "" {
		t.Fatal("answered after an ignore file changed")
	}
}

// TestDaemonFollowsBadInput: issue 19's awkward changes behind the
// daemon's back (a file replaced by a directory, a directory renamed while
// watched, a symbolic link loop, a checkout of more files than the loop
// re-indexes itself) leave it serving, the index following or the reason
// it does not in what it reports (`ctxls doctor`), and a bound on watches
// reported as the reason some directories are not followed.
func TestDaemonFollowsBadInput(t *testing.T) {
	root := testWorkspace(t)
	healed := make(chan string, 4)
	serveWith(t, ServeOptions{Root: root, Identity: "test-build", Heal: func(_, reason string) { healed <- reason }})
	st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	tracked := func(rel string) bool {
		_, ok, err := st.FileByPath(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: not followed within 10 s", what)
			}
		}
	}
	following := func() *hookcall.Following {
		t.Helper()
		sock, _ := hookcall.SocketPath(root)
		resp, err := hookcall.CallSocket(ctx, sock, &hookcall.Request{Info: true})
		if err != nil || resp.Daemon == nil || resp.Daemon.Following == nil {
			t.Fatalf("Info: %+v, %v", resp, err)
		}
		return resp.Daemon.Following
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // the watches in place
	if f := following(); f.Dirs < 2 || f.NoWatcher != "" || f.Partial != "" {
		t.Fatalf("following %+v, want every directory watched", f)
	}

	// A file replaced by a directory of the same name.
	if err := os.Remove(filepath.Join(root, "auth", "auth.go")); err != nil {
		t.Fatal(err)
	}
	write("auth/auth.go/inner.go", "package inner\n\nfunc Inner() {}\n")
	waitFor("file replaced by a directory", func() bool { return !tracked("auth/auth.go") && tracked("auth/auth.go/inner.go") })

	// A watched directory renamed.
	if err := os.Rename(filepath.Join(root, "auth"), filepath.Join(root, "login")); err != nil {
		t.Fatal(err)
	}
	waitFor("directory renamed", func() bool { return !tracked("auth/auth.go/inner.go") && tracked("login/auth.go/inner.go") })

	// A symbolic link loop: recorded, never followed; the daemon goes on.
	if err := os.Symlink("..", filepath.Join(root, "login", "up")); err != nil {
		t.Fatal(err)
	}
	write("login/after.go", "package login\n\nfunc After() {}\n")
	waitFor("a file after the loop", func() bool { return tracked("login/after.go") })

	// More files at once than the loop re-indexes itself (a directory of
	// them moved in: one event, as a checkout's burst on a fast disk): a
	// background run is asked for, and the daemon says why the index is
	// catching up.
	staging := t.TempDir()
	for i := range followBatch + 20 {
		if err := os.WriteFile(filepath.Join(staging, fmt.Sprintf("f%03d.go", i)), fmt.Appendf(nil, "package gen\n\nfunc F%d() {}\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(staging, filepath.Join(root, "gen")); err != nil {
		t.Fatal(err)
	}
	select {
	case why := <-healed:
		if !strings.Contains(why, "files changed on disk") {
			t.Errorf("heal asked for %q", why)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no background run was asked for after a checkout of many files")
	}
	if f := following(); f.Current || !strings.Contains(f.Lost, "files changed on disk") {
		t.Errorf("following after the checkout %+v, want the reason it catches up", f)
	}

	// A bound on watches: another workspace watched in part says why.
	other := t.TempDir()
	wstest.Write(t, other, map[string]string{"a/a.go": "package a\n", "b/b.go": "package b\n", "c/c.go": "package c\n"})
	wstest.Index(t, other)
	serveWith(t, ServeOptions{Root: other, Identity: "test-build", MaxWatchedDirs: 2})
	time.Sleep(200 * time.Millisecond)
	sock, _ := hookcall.SocketPath(other)
	resp, err := hookcall.CallSocket(ctx, sock, &hookcall.Request{Info: true})
	if err != nil || resp.Daemon == nil || resp.Daemon.Following == nil {
		t.Fatalf("Info: %+v, %v", resp, err)
	}
	if f := resp.Daemon.Following; f.Dirs != 2 || !strings.Contains(f.Partial, "bound of 2") {
		t.Errorf("following with a bound of 2 directories: %+v", f)
	}
}

// TestFollowBatchLeavesHooksReading re-indexes a checkout's worth of files
// through the follow loop while a hook's query runs on the daemon's one
// connection again and again: the batch writes through a connection of its
// own, so no query waits for it. Through the daemon's connection the
// longest query waited for nearly the whole batch (295 of 314 ms), and for
// its writes when it was parsed first (126–191 of 340–383 ms).
func TestFollowBatchLeavesHooksReading(t *testing.T) {
	ctx := context.Background()
	root := testWorkspace(t)
	st, err := store.Open(ctx, root, store.Options{SingleConnection: true, Existing: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f := &follower{d: &daemon{opts: ServeOptions{Root: root}, log: zap.NewNop(), st: st}, cfg: config.Default(), pending: map[string]bool{}}
	defer f.resident.Close()
	for rev := range 2 {
		var changes []index.Change
		for i := range 150 {
			var b strings.Builder
			fmt.Fprintf(&b, "package filler\n\n// rev %d\n", rev)
			for fn := range 30 {
				fmt.Fprintf(&b, "\n// Fill%d_%d adds a constant.\nfunc Fill%d_%d(x int) int { return x + %d }\n", i, fn, i, fn, rev+fn)
			}
			rel := fmt.Sprintf("filler/f%03d.go", i)
			wstest.Write(t, root, map[string]string{rel: b.String()})
			changes = append(changes, index.Change{Path: rel})
		}
		var longest time.Duration
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				start := time.Now()
				if _, err := st.FileCount(ctx); err != nil {
					t.Error(err)
				}
				longest = max(longest, time.Since(start))
			}
		}()
		start := time.Now()
		sum, err := f.reindex(ctx, changes)
		took := time.Since(start)
		close(stop)
		<-done
		if err != nil || sum.Parsed != 150 {
			t.Fatalf("re-index of 150 files: %+v, %v", sum, err)
		}
		t.Logf("batch %v, longest query %v", took, longest)
		if longest > took/2 {
			t.Errorf("a query waited %v during a batch of %v", longest, took)
		}
	}
	if n := st.Commits(); n != 0 {
		t.Errorf("the batches committed %d times through the daemon's connection", n)
	}
	// A few files go through the daemon's own connection, which stays warm.
	wstest.Write(t, root, map[string]string{"filler/f000.go": "package filler\n\nfunc Only() {}\n"})
	if _, err := f.reindex(ctx, []index.Change{{Path: "filler/f000.go"}}); err != nil {
		t.Fatal(err)
	}
	if st.Commits() == 0 {
		t.Error("a save was not written through the daemon's connection")
	}
	ents, err := st.EntitiesInFile(ctx, "filler/f000.go")
	if err != nil || len(ents) != 2 || ents[1].Name != "Only" {
		t.Errorf("after the save: %+v, %v", ents, err)
	}
}
