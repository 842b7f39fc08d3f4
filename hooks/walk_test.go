package hooks

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/internal/workspace"
)

// walkCommits is how many consecutive checkouts the real-history walk makes
// (issue 19: "walk 20 consecutive commits of a fetched repository").
const walkCommits = 20

// walkSource is the repository whose history the walk checks out: the
// one CTXLS_WALK_REPO names (a clone or a bare mirror, such as
// /work/.mirror/psf+requests/repo), else this project's own repository,
// a real history of Go, TypeScript, Python and Markdown changes that
// every clone of the project carries.
func walkSource(t *testing.T) string {
	t.Helper()
	if src := os.Getenv("CTXLS_WALK_REPO"); src != "" {
		return src
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("the tests do not run in a git clone of the project (%v): no history to walk", err)
	}
	return strings.TrimSpace(string(out))
}

// walkWindow returns the newest walkCommits+1 commits of src's first-parent
// history, oldest first, that changed a file the index reads, skipping the
// test when the clone is too shallow to hold them.
func walkWindow(t *testing.T, src string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "log", "--first-parent", "--format=%H", "-n", "400", "HEAD",
		"--", "*.go", "*.py", "*.ts", "*.js", "*.rs", "*.java", "*.c", "*.h").Output()
	if err != nil {
		t.Fatalf("git log in %s: %v", src, err)
	}
	commits := strings.Fields(string(out))
	if len(commits) < walkCommits+1 {
		t.Skipf("%s holds %d commits that changed source files, the walk needs %d (a shallow clone?)", src, len(commits), walkCommits+1)
	}
	window := commits[:walkCommits+1]
	for i, j := 0, len(window)-1; i < j; i, j = i+1, j-1 {
		window[i], window[j] = window[j], window[i]
	}
	return window
}

// deletedNames returns the names of the Go, Python and TypeScript
// declarations the diff from prev to cur removes and that no file of the
// checked-out tree at root still declares: what must not be shown after
// checking out cur.
func deletedNames(t *testing.T, root, prev, cur string) []string {
	t.Helper()
	diff := git(t, root, "diff", "-U0", "--no-color", prev, cur, "--", "*.go", "*.py", "*.ts")
	var names []string
	for _, line := range strings.Split(diff, "\n") {
		if !strings.HasPrefix(line, "-") || strings.HasPrefix(line, "---") {
			continue
		}
		name := declaredName(line[1:])
		if name == "" || len(name) < 4 {
			continue
		}
		cmd := exec.Command("git", "grep", "-q", "-w", "-E", `(func|def|class|function|type) (\([^)]*\) )?`+name, "--", "*.go", "*.py", "*.ts")
		cmd.Dir = root
		if cmd.Run() != nil { // no match: declared nowhere now
			names = append(names, name)
		}
	}
	return names
}

// declaredName returns the name a line of Go, Python or TypeScript
// declares at its start, or "".
func declaredName(line string) string {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return ""
	}
	switch fields[0] {
	case "func":
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "func"))
		if strings.HasPrefix(rest, "(") { // a method: skip the receiver
			end := strings.Index(rest, ")")
			if end < 0 {
				return ""
			}
			rest = strings.TrimSpace(rest[end+1:])
		}
		return identPrefix(rest)
	case "def", "class", "function":
		return identPrefix(fields[1])
	case "export":
		if len(fields) > 2 && (fields[1] == "function" || fields[1] == "class") {
			return identPrefix(fields[2])
		}
	}
	return ""
}

// identPrefix returns the identifier s starts with.
func identPrefix(s string) string {
	end := 0
	for end < len(s) {
		c := s[end]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || end > 0 && c >= '0' && c <= '9' {
			end++
			continue
		}
		break
	}
	return s[:end]
}

// A real repository's history, checked out commit after commit with no
// editor and no `ctxls index` between: after each checkout the prompt hook,
// asked for the next commit's change in that commit's own words, shows
// only code as the checked-out files hold it, byte for byte at the lines
// it names, and none of the declarations the checkout deleted (issue 19).
// Both the hook process alone and the workspace's daemon are walked.
func TestCheckoutWalkOfARealHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a real repository and checks out 20 commits")
	}
	src := walkSource(t)
	window := walkWindow(t, src)
	for _, mode := range []struct {
		name string
		env  []string
	}{
		{name: "hook process", env: []string{"CTXLS_HOOK_DAEMON=0"}},
		{name: "daemon"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			root := quietDir(t)
			if out, err := exec.Command("git", "clone", "-q", "--no-checkout", src, root).CombinedOutput(); err != nil {
				t.Fatalf("git clone %s: %v\n%s", src, err, out)
			}
			git(t, root, "checkout", "-q", window[0])
			// The index's directory must not show up as a change of the
			// tree under test, whatever the project's .gitignore says.
			if err := os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(".ctxls/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin(t), "index", "--root", root).CombinedOutput(); err != nil {
				t.Fatalf("ctxls index: %v\n%s", err, out)
			}
			if mode.env == nil {
				// The first call starts the daemon, which then sees every
				// checkout through its follow loop.
				promptHook(t, root, "walk-warm", "how is the index kept fresh", mode.env...)
				sock, err := hookcall.SocketPath(root)
				if err != nil {
					t.Fatal(err)
				}
				waitSocket(t, sock)
			}
			items, deleted := 0, 0
			for i := 1; i < len(window); i++ {
				git(t, root, "checkout", "-q", window[i])
				gone := deletedNames(t, root, window[i-1], window[i])
				deleted += len(gone)
				prompt := git(t, root, "log", "-1", "--format=%B", nextOrSelf(window, i))
				what := fmt.Sprintf("checkout %d (%.8s)", i, window[i])
				got := promptHook(t, root, fmt.Sprintf("walk-%d", i), prompt, mode.env...)
				shown := checkInjected(t, what, root, got)
				for _, it := range shown {
					name := it.qname[strings.LastIndex(it.qname, ".")+1:]
					for _, g := range gone {
						if name == g {
							t.Errorf("%s: shows %s from %s, a declaration the checkout deleted", what, it.qname, it.path)
						}
					}
				}
				items += len(shown)
			}
			t.Logf("%s: %d commits walked, %d items checked, %d deleted declarations watched", src, len(window)-1, items, deleted)
			if items < walkCommits {
				t.Errorf("only %d items injected over %d checkouts: the walk checks little", items, len(window)-1)
			}
			if mode.env == nil {
				log, _ := os.ReadFile(filepath.Join(workspace.Dir(root), "ctxls.log"))
				if !bytes.Contains(log, []byte(`"daemon":true`)) {
					t.Errorf("no call answered by the daemon; log:\n%s", log)
				}
			}
		})
	}
}

// nextOrSelf returns the commit after window[i], whose message asks for the
// change the checked-out tree is about to receive, or window[i] itself at
// the end of the window.
func nextOrSelf(window []string, i int) string {
	if i+1 < len(window) {
		return window[i+1]
	}
	return window[i]
}
