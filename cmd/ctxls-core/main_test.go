package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/damage"
	"github.com/ctxls/ctxls/store"
)

// ctxls runs the built binary.
func ctxls(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.Run()
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestCLIContract(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc main() { Greet() }\n"), 0o644)

	if out, _, code := ctxls(t, root, "--version"); code != 0 || !strings.HasPrefix(out, "ctxls ") {
		t.Errorf("--version: %d %q", code, out)
	}
	// Before any index: a clear message and exit 1.
	_, errOut, code := ctxls(t, root, "query", "Greet")
	if code != 1 || !strings.Contains(errOut, "ctxls index") {
		t.Errorf("query before index: %d %q", code, errOut)
	}
	if out, _, code := ctxls(t, root, "index", "--json"); code != 0 || !json.Valid([]byte(out)) {
		t.Fatalf("index --json: %d %q", code, out)
	}
	out, _, code := ctxls(t, root, "query", "--json", "--limit", "3", "where is Greet")
	var q struct {
		Files []struct {
			Path  string  `json:"path"`
			Score float64 `json:"score"`
		} `json:"files"`
		Results []struct {
			Path, Kind, Name string
			Line             int
			Score            float64
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &q); err != nil || code != 0 {
		t.Fatalf("query --json: %d %v %q", code, err, out)
	}
	if len(q.Files) == 0 || q.Files[0].Path != "main.go" || q.Results[0].Name != "Greet" || q.Results[0].Line != 4 {
		t.Errorf("query result: %+v", q)
	}
	if out, _, code := ctxls(t, root, "context", "Greet"); code != 0 || !strings.Contains(out, "<auto-context>") || !strings.Contains(out, "func Greet()") {
		t.Errorf("context: %d %q", code, out)
	}

	// Message text that starts with "-" is text, through the thin client
	// and through ctxls-core (--refresh is left to it).
	for _, args := range [][]string{
		{"query", "--json", "-v Greet is ignored"},
		{"query", "--refresh", "--json", "--color=auto breaks Greet", "--limit", "3"},
	} {
		if out, errOut, code := ctxls(t, root, args...); code != 0 || !strings.Contains(out, "main.go") {
			t.Errorf("%q: exit %d, %q %q", args, code, out, errOut)
		}
	}

	usage := [][]string{
		{"query"},                      // empty query
		{"query", "   "},               // blank query
		{"query", "--limit", "0", "x"}, // bad flag value
		{"query", "--root", filepath.Join(root, "main.go"), "x"}, // root is a file
		{"index", "--nope"},
		{"no-such-command"},
		{"symbols", "notes.txt"},
	}
	for _, args := range usage {
		if _, errOut, code := ctxls(t, root, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want usage error 2", args, code, errOut)
		}
	}
	// A huge and a binary query are handled.
	big := strings.Repeat("Greet ", 200000)
	cmd := exec.Command(os.Getenv("CTXLS_BIN"), "query", "--root", root, "--json", "-")
	cmd.Stdin = strings.NewReader(big)
	if out, err := cmd.Output(); err != nil || !json.Valid(out) {
		t.Errorf("1 MB query on stdin: %v %q", err, out)
	}
	if _, _, code := ctxls(t, root, "query", big[:100000]); code != 0 {
		t.Errorf("100 kB query: exit %d", code)
	}
	if _, _, code := ctxls(t, root, "query", "\x01\x02\xff\xfe"); code != 0 {
		t.Errorf("binary query: exit %d", code)
	}
	if out, _, code := ctxls(t, root, "stats", "--json"); code != 0 || !json.Valid([]byte(out)) {
		t.Errorf("stats: %d %q", code, out)
	}
	if out, _, code := ctxls(t, root, "symbols", "main.go"); code != 0 || !strings.Contains(out, "function  main.Greet") {
		t.Errorf("symbols: %d %q", code, out)
	}
}

func TestInitAndDoctor(t *testing.T) {
	root := t.TempDir()
	t.Cleanup(func() { stopDaemon(t, root) }) // doctor's canaries start it
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# Demo\n\nSome text.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	settings := filepath.Join(root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(ls)"]}}`), 0o644)

	binOnPath(t)
	out, errOut, code := ctxls(t, root, "init", "--index")
	if code != 0 || !strings.Contains(out, "installed 5 ctxls hooks") || errOut != "" {
		t.Fatalf("init: %d %q %q", code, out, errOut)
	}
	data, _ := os.ReadFile(settings)
	if !strings.Contains(string(data), `"Bash(ls)"`) || !strings.Contains(string(data), "user-prompt-submit") {
		t.Fatalf("settings after init: %s", data)
	}
	if gi, _ := os.ReadFile(filepath.Join(root, ".gitignore")); !strings.Contains(string(gi), ".ctxls/") {
		t.Errorf(".gitignore: %q", gi)
	}
	if _, err := os.Stat(filepath.Join(root, ".ctxls", "index.db")); err != nil {
		t.Errorf("init --index built no index: %v", err)
	}
	if out, _, _ := ctxls(t, root, "init"); !strings.Contains(out, "already up to date") {
		t.Errorf("second init: %q", out)
	}
	out, _, code = ctxls(t, root, "doctor")
	if code != 0 || strings.Contains(out, "FAIL") || !strings.Contains(out, "hook user-prompt-submit") {
		t.Errorf("doctor: %d\n%s", code, out)
	}
	if strings.Contains(out, "hook daemon: serving") && !regexp.MustCompile(`ok    file watching: \d+ directories watched`).MatchString(out) {
		t.Errorf("doctor says nothing of how the daemon follows the files:\n%s", out)
	}
	if _, _, code := ctxls(t, root, "init", "--uninstall"); code != 0 {
		t.Errorf("uninstall: %d", code)
	}
	data, _ = os.ReadFile(settings)
	if strings.Contains(string(data), "ctxls") || !strings.Contains(string(data), `"Bash(ls)"`) {
		t.Errorf("settings after uninstall: %s", data)
	}
	out, _, code = ctxls(t, root, "doctor")
	if code != 1 || !strings.Contains(out, "FAIL") {
		t.Errorf("doctor without hooks: %d\n%s", code, out)
	}
	plugin := t.TempDir()
	if _, _, code := ctxls(t, root, "init", "--plugin", plugin); code != 0 {
		t.Errorf("init --plugin: %d", code)
	}
	if _, err := os.Stat(filepath.Join(plugin, ".claude-plugin", "plugin.json")); err != nil {
		t.Errorf("plugin manifest: %v", err)
	}
}

// binOnPath puts the directory of the built binaries first on PATH, as
// `make install` does for a person, for the test and the processes it
// starts, and returns that directory.
func binOnPath(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	dir := filepath.Dir(bin)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// git runs git in dir and fails the test when it fails.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The files init writes for the team hold no path of the machine that
// wrote them: committed and cloned elsewhere, their hooks run there through
// ctxls on PATH, and doctor says when that command does not resolve
// (decision 0098).
func TestInitTeamFilesArePortable(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	binDir := binOnPath(t)
	bin := os.Getenv("CTXLS_BIN")
	repo := t.TempDir()
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc main() { Greet() }\n"), 0o644)
	git(t, repo, "init", "-q", "-b", "main")
	if out, errOut, code := ctxls(t, repo, "init", "--mcp", "--no-index"); code != 0 {
		t.Fatalf("init: %d %q %q", code, out, errOut)
	}
	for _, f := range []string{".claude/settings.json", ".mcp.json", ".gitignore"} {
		data, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), binDir) {
			t.Errorf("%s holds this machine's path %s:\n%s", f, binDir, data)
		}
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "ctxls init")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, t.TempDir(), "clone", "-q", repo, clone)
	// Doctor's canaries below start the clone's daemon again after it is
	// stopped; stopped before the directory is removed, it writes nothing
	// into it (a cleanup that raced it failed once in CI: "directory not
	// empty").
	t.Cleanup(func() { stopDaemon(t, clone) })

	// The clone's hooks, run as Claude Code runs them: the command and
	// args of the shared file, in the project directory.
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(filepath.Join(clone, ".claude", "settings.json"))
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	h := settings.Hooks["UserPromptSubmit"][0].Hooks[0]
	if h.Command != "ctxls" {
		t.Fatalf("the shared hook runs %q, want ctxls from PATH", h.Command)
	}
	// The clone has no index: the first session's start builds it in the
	// background and tells the person so (systemMessage), not the model.
	start := settings.Hooks["SessionStart"][0].Hooks[0]
	first := exec.Command(start.Command, start.Args...)
	first.Dir = clone
	first.Env = append(os.Environ(), "CTXLS_HOOK_DAEMON=0")
	first.Stdin = strings.NewReader(`{"session_id":"clone-0","hook_event_name":"SessionStart","source":"startup","cwd":"` + clone + `"}`)
	out, err := first.Output()
	var notice struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err != nil || json.Unmarshal(out, &notice) != nil || !strings.Contains(notice.SystemMessage, "indexing "+clone+" for the first time") {
		t.Fatalf("the first session start in the clone: %v %q", err, out)
	}
	waitIndexed(t, clone)
	hook := exec.Command(h.Command, h.Args...)
	hook.Dir = clone
	hook.Env = append(os.Environ(), "CTXLS_HOOK_DAEMON=0")
	hook.Stdin = strings.NewReader(`{"session_id":"clone-1","hook_event_name":"UserPromptSubmit","cwd":"` + clone + `","prompt":"fix Greet in main.go"}`)
	out, err = hook.Output()
	if err != nil || !strings.Contains(string(out), "func Greet()") {
		t.Fatalf("the shared hook in the clone: %v %q", err, out)
	}
	if doc, _, _ := ctxls(t, clone, "doctor"); !regexp.MustCompile(`ok    command in .*settings\.json: ctxls → ` + regexp.QuoteMeta(filepath.Join(binDir, "ctxls"))).MatchString(doc) {
		t.Errorf("doctor in the clone:\n%s", doc)
	}
	stopDaemon(t, clone)

	// Where ctxls is not on PATH, doctor says so for each shared file.
	cmd := exec.Command(bin, "doctor")
	cmd.Dir = clone
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	doc, _ := cmd.Output()
	for _, f := range []string{"settings.json", ".mcp.json"} {
		if !regexp.MustCompile(`FAIL  command in .*` + regexp.QuoteMeta(f) + `: "ctxls" does not resolve on this machine: ctxls is not on PATH`).Match(doc) {
			t.Errorf("doctor without ctxls on PATH says nothing of %s:\n%s", f, doc)
		}
	}

	// Where ctxls is not on PATH, init still writes the portable command
	// and says the hooks will not run here until it is.
	elsewhere := t.TempDir()
	initCmd := exec.Command(bin, "init", "--no-index")
	initCmd.Dir = elsewhere
	initCmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	var initErr strings.Builder
	initCmd.Stderr = &initErr
	if err := initCmd.Run(); err != nil || !strings.Contains(initErr.String(), `ctxls: note: the hooks run "ctxls", but ctxls is not on PATH on this machine`) {
		t.Errorf("init without ctxls on PATH: %v, stderr %q", err, initErr.String())
	}

	// A path of this machine goes only into the local file.
	if _, errOut, code := ctxls(t, repo, "init", "--command", bin); code != 2 || !strings.Contains(errOut, "--local") {
		t.Errorf("init --command %s into the shared file: exit %d %q, want a usage error", bin, code, errOut)
	}
	if _, _, code := ctxls(t, repo, "init", "--local", "--no-index"); code != 0 {
		t.Fatalf("init --local: exit %d", code)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, ".claude", "settings.local.json")); !strings.Contains(string(data), strconv.Quote(filepath.Join(binDir, "ctxls"))) {
		t.Errorf("settings.local.json does not run this machine's ctxls:\n%s", data)
	}
}

// init --uninstall leaves a project as init found it: no settings file,
// .claude directory, .mcp.json or .gitignore line of init's is left.
func TestInitUninstallRestores(t *testing.T) {
	binOnPath(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644)
	if _, errOut, code := ctxls(t, root, "init", "--mcp", "--no-index"); code != 0 {
		t.Fatalf("init: %d %q", code, errOut)
	}
	if _, errOut, code := ctxls(t, root, "init", "--uninstall"); code != 0 {
		t.Fatalf("init --uninstall: %d %q", code, errOut)
	}
	entries, _ := os.ReadDir(root)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "main.go" {
		t.Errorf("after init and init --uninstall the project holds %v, want only main.go", names)
	}
}

// stopDaemon stops the workspace daemon a test's hooks or doctor started.
func stopDaemon(t *testing.T, root string) {
	t.Helper()
	ctxls(t, root, "daemon", "stop", "--root", root)
}

// Damaged pages of the index (Open reads only the header) are found by the
// command that meets them: the file is set aside and rebuilt in the
// background, with a message saying so, and `ctxls index --check` finds
// them before they are met.
func TestDamagedIndexPages(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0") // nothing else holds the file open
	root := t.TempDir()
	if err := damage.GoFiles(root, "main", 300); err != nil {
		t.Fatal(err)
	}
	damage := func() {
		t.Helper()
		if out, errOut, code := ctxls(t, root, "index"); code != 0 {
			t.Fatalf("index: %d %s %s", code, out, errOut)
		}
		path := filepath.Join(root, ".ctxls", "index.db")
		if _, err := os.Stat(path + "-wal"); err == nil {
			t.Fatal("the index has a WAL after the command closed it: the damage would not be read")
		}
		if err := damage.Pages(path, 1.0/3); err != nil {
			t.Fatal(err)
		}
	}
	asides := func() int {
		m, _ := filepath.Glob(filepath.Join(root, ".ctxls", "index.db.corrupt-*"))
		return len(m)
	}

	damage()
	_, errOut, code := ctxls(t, root, "query", "--json", "which check validates login attempts")
	if code != 1 || !strings.Contains(errOut, "has been moved to") || !strings.Contains(errOut, "rebuilt in the background") || asides() != 1 {
		t.Fatalf("query on damaged pages: exit %d, %d moved aside, stderr %q", code, asides(), errOut)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, _, code := ctxls(t, root, "query", "--json", "Check7")
		if code == 0 && strings.Contains(out, "check7.go") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("query a minute after the repair: %d %q", code, out)
		}
	}
	waitUnlocked(t, root)
	if _, errOut, code := ctxls(t, root, "index"); code != 0 || errOut != "" {
		t.Fatalf("index after the rebuild: %d %q", code, errOut)
	}

	damage()
	out, _, _ := ctxls(t, root, "doctor")
	if !regexp.MustCompile(`FAIL.*index pages: damaged: .*index\.db; run 'ctxls index --check'`).MatchString(out) {
		t.Errorf("doctor on damaged pages:\n%s", out)
	}
	out, errOut, code = ctxls(t, root, "index", "--check")
	if code != 0 || !strings.Contains(errOut, "had damaged pages") || asides() != 2 {
		t.Fatalf("index --check: exit %d, %d moved aside, stderr %q", code, asides(), errOut)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); !strings.HasPrefix(lines[len(lines)-1], "check: the index had damaged pages; set aside as ") {
		t.Errorf("index --check does not end with its verdict:\n%s", out)
	}
	if out, _, code := ctxls(t, root, "query", "--json", "Check7"); code != 0 || !strings.Contains(out, "check7.go") {
		t.Fatalf("query after index --check: %d %q", code, out)
	}
}

// TestDamagedIndexHeader: an index whose first page (header and schema) is
// damaged does not open; the doctor says so and what to run, and that run
// sets the file aside and rebuilds it.
func TestDamagedIndexHeader(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	root := t.TempDir()
	if err := damage.GoFiles(root, "main", 20); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := ctxls(t, root, "index"); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errOut)
	}
	if err := damage.FirstPage(filepath.Join(root, ".ctxls", "index.db")); err != nil {
		t.Fatal(err)
	}
	out, _, _ := ctxls(t, root, "doctor")
	if !regexp.MustCompile(`FAIL.*index: index is corrupt.*; run 'ctxls index' to set it aside and rebuild`).MatchString(out) {
		t.Errorf("doctor on a damaged header:\n%s", out)
	}
	if _, errOut, code := ctxls(t, root, "index"); code != 0 || !strings.Contains(errOut, "moved it to") {
		t.Fatalf("index on a damaged header: exit %d, stderr %q", code, errOut)
	}
	if out, _, code := ctxls(t, root, "query", "--json", "Check7"); code != 0 || !strings.Contains(out, "check7.go") {
		t.Fatalf("query after the rebuild: %d %q", code, out)
	}
}

// waitUnlocked waits until no process holds root's index lock: a
// background rebuild has finished.
func waitUnlocked(t *testing.T, root string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		locked, err := index.Locked(root)
		if err != nil {
			t.Fatal(err)
		}
		if !locked {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the index is still locked a minute later")
		}
	}
}

// waitIndexed waits until no `index --root root` process runs and root has
// an index, failing the test after a minute.
func waitIndexed(t *testing.T, root string) {
	t.Helper()
	marker := []byte("index\x00--root\x00" + root + "\x00")
	for deadline := time.Now().Add(time.Minute); ; {
		running := false
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range cmdlines {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, marker) {
				running = true
				break
			}
		}
		if _, err := os.Stat(store.Path(root)); err == nil && !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no index of %s after a minute", root)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A session that starts in a directory with no index, where only the
// person's own settings could have run the hook, is told how to build one;
// nothing is written there.
func TestSessionStartWithoutIndex(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	cmd := exec.Command(bin, "hook", "session-start")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXLS_HOOK_DAEMON=0", "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"` + dir + `"}`)
	out, err := cmd.Output()
	var notice struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err != nil || json.Unmarshal(out, &notice) != nil || !strings.Contains(notice.SystemMessage, "no index yet") ||
		!strings.Contains(notice.SystemMessage, "ctxls index") {
		t.Fatalf("session start without an index: %v %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ctxls")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the hook wrote into a directory that did not install ctxls: %v", err)
	}
	// Other events stay silent: the notice is once per session.
	cmd = exec.Command(bin, "hook", "user-prompt-submit")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXLS_HOOK_DAEMON=0", "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"` + dir + `","prompt":"fix Greet"}`)
	if out, err := cmd.Output(); err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("prompt without an index: %v %q", err, out)
	}
}

// A second session that starts while the first one's index run still
// holds the index lock is told the index is being built, not asked to
// build it.
func TestSessionStartWhileTheFirstIndexRuns(t *testing.T) {
	binOnPath(t)
	repo := t.TempDir()
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	git(t, repo, "init", "-q", "-b", "main")
	if out, errOut, code := ctxls(t, repo, "init", "--no-index"); code != 0 {
		t.Fatalf("init: %d %q %q", code, out, errOut)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".ctxls"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, free, err := index.TryLock(repo) // the first session's indexer
	if err != nil || !free {
		t.Fatalf("index lock: free %v, %v", free, err)
	}
	defer lock.Close()
	cmd := exec.Command(os.Getenv("CTXLS_BIN"), "hook", "session-start")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CTXLS_HOOK_DAEMON=0")
	cmd.Stdin = strings.NewReader(`{"session_id":"s2","hook_event_name":"SessionStart","source":"startup","cwd":"` + repo + `"}`)
	out, err := cmd.Output()
	var notice struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err != nil || json.Unmarshal(out, &notice) != nil || !strings.Contains(notice.SystemMessage, "indexing "+repo+" for the first time") {
		t.Fatalf("session start while the index is built: %v %q", err, out)
	}
}
