package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/pgtest"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/team"
	"github.com/ctxls/ctxls/memory/teamcache"
)

var pg pgtest.Package

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// teamWorkspace is a workspace whose enterprise scope is a fresh schema on
// the package's server; the DSN comes from the environment, with a
// password the server does not need, so that the tests can check it is
// never printed.
func teamWorkspace(t *testing.T, schema string) (root, home string, env []string) {
	t.Helper()
	srv := pg.Need(t)
	root, home = t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ctxls"), 0o755)
	cfg := "memory:\n  enterprise:\n    backend: postgres\n    schema: " + schema + "\n    project: acme\n"
	if err := os.WriteFile(filepath.Join(root, ".ctxls", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, home, []string{"CTXLS_ENTERPRISE_DSN=" + srv.DSN + "&password=" + secretPassword}
}

const secretPassword = "do-not-print-me"

func TestMemoryCLIEnterpriseOnPostgres(t *testing.T) {
	root, home, env := teamWorkspace(t, "cli_enterprise")
	run := func(wantCode int, args ...string) string {
		t.Helper()
		out, errOut, code := memctlEnv(t, root, home, env, "", args...)
		if strings.Contains(out+errOut, secretPassword) {
			t.Fatalf("memory %v printed the DSN's password: %s %s", args, out, errOut)
		}
		if code != wantCode {
			t.Fatalf("memory %v: exit %d, want %d: %s%s", args, code, wantCode, out, errOut)
		}
		return out + errOut
	}
	run(0, "write", "--scope", "enterprise", "--type", "gotcha", "--title", "Flock needs an open file", "--tags", "locking,files",
		"--severity", "high", "--content", "Keep the descriptor open while the lock is held.")
	run(0, "write", "--scope", "enterprise", "--type", "decision", "--title", "Lock files beside the data", "--tags", "locking",
		"--content", "The lock file lives in the scope's directory.")
	run(0, "write", "--scope", "project", "--type", "learning", "--title", "A project note about locks", "--tags", "locking", "--content", "Local.")
	if out := run(0, "show", "gotcha-flock-needs-an-open-file"); !strings.Contains(out, "severity: high") || !strings.Contains(out, "Keep the descriptor") {
		t.Fatalf("show (found in the enterprise scope without --scope): %s", out)
	}
	if out := run(0, "list"); !strings.Contains(out, "enterprise gotcha") || !strings.Contains(out, "project  learning") {
		t.Fatalf("list of every scope: %s", out)
	}
	if out := run(0, "search", "--scope", "enterprise", "lock file"); !strings.Contains(out, "decision-lock-files-beside-the-data") || strings.Contains(out, "project") {
		t.Fatalf("search --scope enterprise: %s", out)
	}
	if out := run(0, "search", "locks"); !strings.Contains(out, "enterprise") || !strings.Contains(out, "learning-a-project-note-about-locks") {
		t.Fatalf("search of every scope: %s", out)
	}
	run(0, "link", "--scope", "enterprise", "decision-lock-files-beside-the-data", "gotcha-flock-needs-an-open-file", "--label", "documents")
	if out := run(0, "graph", "--scope", "enterprise"); !strings.Contains(out, "gotcha-flock-needs-an-open-file -[documented-by]-> decision-lock-files-beside-the-data") {
		t.Fatalf("graph: %s", out)
	}
	// An update naming an old version is refused and changes nothing.
	run(0, "update", "--scope", "enterprise", "gotcha-flock-needs-an-open-file", "--content", "Second text.")
	if out := run(1, "update", "--scope", "enterprise", "gotcha-flock-needs-an-open-file", "--version", "1", "--content", "Stale text."); !strings.Contains(out, "changed by another writer") {
		t.Fatalf("stale update: %s", out)
	}
	if out := run(0, "show", "--scope", "enterprise", "gotcha-flock-needs-an-open-file"); !strings.Contains(out, "Second text.") {
		t.Fatalf("after the refused update: %s", out)
	}
	if out := run(0, "health", "--scope", "enterprise"); !strings.Contains(out, "enterprise scope: 2 memories") {
		t.Fatalf("health: %s", out)
	}
	// Round trip: the project scope in, everything out as files.
	docs := documentedJSON(t)
	checkJSONDoc(t, docs, "memory import --scope enterprise --json", "ctxls memory import --scope enterprise --json",
		run(0, "import", "--json", "--scope", "enterprise", "project"))
	out := t.TempDir()
	checkJSONDoc(t, docs, "memory export --json", "ctxls memory export --json", run(0, "export", "--json", "--scope", "enterprise", out))
	for _, slug := range []string{"gotcha-flock-needs-an-open-file", "decision-lock-files-beside-the-data", "learning-a-project-note-about-locks"} {
		if _, err := os.Stat(filepath.Join(out, slug+".md")); err != nil {
			t.Fatalf("export lacks %s: %v", slug, err)
		}
	}
	// Two machines rename the same memory at once: one wins, the other
	// says why it failed, and the memory and its edge follow the winner.
	var wg sync.WaitGroup
	renamed := []string{"gotcha-keep-the-lock-file-open", "gotcha-flock-holds-a-descriptor"}
	outs, codes := make([]string, 2), make([]int, 2)
	for i, to := range renamed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, e, c := memctlEnv(t, root, home, env, "", "rename", "--scope", "enterprise", "gotcha-flock-needs-an-open-file", to)
			outs[i], codes[i] = o+e, c
		}()
	}
	wg.Wait()
	if codes[0]+codes[1] != 1 {
		t.Fatalf("two renames at once: exits %v: %q", codes, outs)
	}
	won, lost := renamed[0], outs[1]
	if codes[0] != 0 {
		won, lost = renamed[1], outs[0]
	}
	if !strings.Contains(lost, "another writer may have renamed or deleted it") {
		t.Fatalf("the losing rename does not say why: %s", lost)
	}
	if out := run(0, "show", "--scope", "enterprise", won); !strings.Contains(out, "Second text.") {
		t.Fatalf("renamed memory: %s", out)
	}
	if out := run(0, "graph", "--scope", "enterprise"); !strings.Contains(out, won+" -[documented-by]-> decision-lock-files-beside-the-data") {
		t.Fatalf("graph after the rename: %s", out)
	}
	run(0, "delete", "--scope", "enterprise", "decision-lock-files-beside-the-data")
	if out := run(0, "graph", "--scope", "enterprise"); strings.TrimSpace(out) != "" {
		t.Fatalf("graph after delete: %s", out)
	}
}

// loadWritesEnv sets how many writes and links each of the load test's
// eight processes makes: the size, 200, takes minutes (each is a
// process of its own that connects), so by default each makes
// defaultLoadWrites.
const (
	loadWritesEnv     = "CTXLS_TEAM_LOAD_WRITES"
	defaultLoadWrites = 10
)

// Eight processes write and link at once: every memory and edge arrives
// and the graph is consistent, and the server has no deadlock to break
// (every write locks the memories it touches in one order).
func TestMemoryCLIEnterpriseConcurrentProcesses(t *testing.T) {
	root, home, env := teamWorkspace(t, "cli_load")
	srv := pg.Need(t)
	// The CLI's processes use the server's postgres database; no other
	// test runs meanwhile.
	deadlocks := func() int64 {
		t.Helper()
		n, err := srv.Deadlocks(context.Background(), "postgres")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadlocksBefore := deadlocks()
	const procs = 8
	each := defaultLoadWrites
	if v := os.Getenv(loadWritesEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive count", loadWritesEnv, v)
		}
		each = n
	}
	if _, errOut, code := memctlEnv(t, root, home, env, "", "write", "--scope", "enterprise", "--type", "hub", "--title", "Load hub", "--tags", "load"); code != 0 {
		t.Fatal(errOut)
	}
	var wg sync.WaitGroup
	errs := make(chan string, procs*each)
	start := time.Now()
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				title := fmt.Sprintf("Writer %d note %d", p, i)
				if _, e, c := memctlEnv(t, root, home, env, "", "write", "--scope", "enterprise", "--type", "learning", "--title", title, "--tags", "load", "--content", title); c != 0 {
					errs <- e
					return
				}
				slug := fmt.Sprintf("learning-writer-%d-note-%d", p, i)
				if _, e, c := memctlEnv(t, root, home, env, "", "link", "--scope", "enterprise", slug, "hub-load-hub", "--label", "part-of"); c != 0 {
					errs <- e
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	elapsed := time.Since(start)
	detected := deadlocks() - deadlocksBefore
	t.Logf("%d processes x %d writes and links: %v; the server detected %d deadlocks", procs, each, elapsed.Round(time.Millisecond), detected)
	if detected != 0 {
		t.Errorf("the server detected %d deadlocks among the writers", detected)
	}
	out, errOut, code := memctlEnv(t, root, home, env, "", "health", "--scope", "enterprise")
	if !strings.Contains(out, fmt.Sprintf("enterprise scope: %d memories", procs*each+1)) || strings.Contains(out, "graph:") || strings.Contains(out, "broken link") {
		t.Fatalf("health after the load (exit %d): %s %s", code, out, errOut)
	}
	g, _, _ := memctlEnv(t, root, home, env, "", "graph", "--scope", "enterprise", "hub-load-hub")
	if n := strings.Count(g, "-[contains]->"); n != procs*each {
		t.Fatalf("hub has %d contains edges, want %d", n, procs*each)
	}
	t.Logf("health: %s", strings.TrimSpace(out))
}

// With the database unreachable, a write fails quickly and clearly, and
// the file scopes keep working.
func TestMemoryCLIEnterpriseOffline(t *testing.T) {
	root, home, _ := teamWorkspace(t, "cli_offline")
	env := []string{"CTXLS_ENTERPRISE_DSN=postgres://u:" + secretPassword + "@127.0.0.1:1/db?connect_timeout=2"}
	start := time.Now()
	out, errOut, code := memctlEnv(t, root, home, env, "", "write", "--scope", "enterprise", "--type", "learning", "--title", "Offline", "--tags", "x", "--content", "x")
	if code == 0 || !strings.Contains(errOut, "unreachable") || strings.Contains(out+errOut, secretPassword) {
		t.Fatalf("offline write: exit %d: %s %s", code, out, errOut)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("offline write took %v", d)
	}
	if _, errOut, code := memctlEnv(t, root, home, env, "", "write", "--scope", "project", "--type", "learning", "--title", "Still local", "--tags", "x", "--content", "x"); code != 0 {
		t.Fatalf("project write while the database is down: %s", errOut)
	}
}

// doctor checks the enterprise database: reachable, schema version, the
// role's rights, latency; and says so plainly when it is not reachable.
func TestDoctorChecksTheEnterpriseDatabase(t *testing.T) {
	root, home, env := teamWorkspace(t, "cli_doctor")
	// doctor's canaries start the workspace's daemon, whose LISTEN then
	// records the unreachable database in the cache: stopped before the
	// workspace is removed, it cannot write it back into being.
	t.Cleanup(func() { stopDaemon(t, root) })
	if _, errOut, code := memctlEnv(t, root, home, env, "", "write", "--scope", "enterprise", "--type", "learning", "--title", "Doctor", "--tags", "x", "--content", "x"); code != 0 {
		t.Fatal(errOut)
	}
	doctor := func(env []string) string {
		cmd := exec.Command(os.Getenv("CTXLS_BIN"), "doctor", "--root", root)
		cmd.Env = append(append(os.Environ(), "HOME="+home), env...)
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), secretPassword) {
			t.Fatalf("doctor printed the DSN's password:\n%s", out)
		}
		return string(out)
	}
	out := doctor(env)
	for _, want := range []string{"ok    enterprise memory database: PostgreSQL 15", "round trip", fmt.Sprintf("ok    enterprise memory schema: version %d, role may write", team.SchemaVersion()), "info  enterprise memory cache: 1 memories, synced"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	out = doctor([]string{"CTXLS_ENTERPRISE_DSN=postgres://u:" + secretPassword + "@127.0.0.1:1/db?connect_timeout=2"})
	if !strings.Contains(out, "FAIL  enterprise memory database: the enterprise memory database is unreachable") {
		t.Errorf("doctor with the database down:\n%s", out)
	}
}

// A running daemon hears a change made elsewhere (another machine's
// write, here a direct one) through LISTEN/NOTIFY and refreshes the local
// cache the hooks read, without polling.
func TestDaemonRefreshesTheCacheOnNotify(t *testing.T) {
	root, home, env := teamWorkspace(t, "cli_notify")
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	bin := os.Getenv("CTXLS_BIN")
	if out, err := exec.Command(bin, "index", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	d := exec.Command(bin, "daemon", "--root", root, "--idle", "2m")
	d.Env = append(append(os.Environ(), "HOME="+home), env...)
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Signal(os.Interrupt); d.Wait() })
	dir := config.EnterpriseCacheDir(root)
	waitFor := func(what string, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > 20*time.Second {
				log, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log"))
				t.Fatalf("%s: not within 20s; daemon log:\n%s", what, log)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return time.Since(start)
	}
	waitFor("first refresh", func() bool { st, _ := teamcache.ReadState(dir); return !st.Synced.IsZero() })
	ts, err := team.Open(context.Background(), team.Options{DSN: pg.Need(t).DSN, Schema: "cli_notify", Project: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	m := &memory.Memory{Slug: "gotcha-from-another-machine", Type: memory.Gotcha, Title: "From another machine", Tags: []string{"x"}, Content: "Heard by NOTIFY.\n"}
	if _, err := ts.Write(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	took := waitFor("the notified change in the cache", func() bool {
		_, err := os.Stat(filepath.Join(dir, m.Slug+".md"))
		return err == nil
	})
	t.Logf("write committed to file in the local cache: %v", took.Round(time.Millisecond))
}
