package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/damage"
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
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# Demo\n\nSome text.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	settings := filepath.Join(root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(ls)"]}}`), 0o644)

	bin := os.Getenv("CTXLS_BIN")
	out, errOut, code := ctxls(t, root, "init", "--index", "--command", bin)
	if code != 0 || !strings.Contains(out, "installed 5 ctxls hooks") {
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
	if out, _, _ := ctxls(t, root, "init", "--command", bin); !strings.Contains(out, "already up to date") {
		t.Errorf("second init: %q", out)
	}
	out, _, code = ctxls(t, root, "doctor")
	if code != 0 || strings.Contains(out, "FAIL") || !strings.Contains(out, "hook user-prompt-submit") {
		t.Errorf("doctor: %d\n%s", code, out)
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
	_, errOut, code = ctxls(t, root, "index", "--check")
	if code != 0 || !strings.Contains(errOut, "had damaged pages") || asides() != 2 {
		t.Fatalf("index --check: exit %d, %d moved aside, stderr %q", code, asides(), errOut)
	}
	if out, _, code := ctxls(t, root, "query", "--json", "Check7"); code != 0 || !strings.Contains(out, "check7.go") {
		t.Fatalf("query after index --check: %d %q", code, out)
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
