package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// git runs git in dir, failing the test on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitFiles writes files into the repository at root and commits them
// (every other tracked file removed), returning the commit.
func commitFiles(t *testing.T, root string, files map[string]string) string {
	t.Helper()
	git(t, root, "rm", "-rq", "--ignore-unmatch", ".")
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, root, "add", "-A", ".")
	git(t, root, "commit", "-qm", "change", "--allow-empty")
	return git(t, root, "rev-parse", "HEAD")
}

var (
	itemHeader = regexp.MustCompile("^### (\\S+) `([^`]+)` — (.+):(\\d+)$")
	fenceLine  = regexp.MustCompile("^(```+)")
)

// rendered is one item of injected code.
type rendered struct {
	qname, path string
	line        int
	excerpt     []string
}

// parseItems returns the code items in injected text (retrieval.RenderItem's
// form): header, optional doc, fenced excerpt.
func parseItems(text string) []rendered {
	var out []rendered
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := itemHeader.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[4])
		it := rendered{qname: m[2], path: m[3], line: n}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "> ") {
			j++
		}
		if j < len(lines) {
			if f := fenceLine.FindStringSubmatch(lines[j]); f != nil {
				for k := j + 1; k < len(lines) && lines[k] != f[1]; k++ {
					it.excerpt = append(it.excerpt, lines[k])
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// checkInjected fails unless every excerpt in text is the checked-out file
// at root, byte for byte (sameLine), at the line its header names, that line declares
// the item, and text names none of the qualified names in gone. It returns
// the items.
func checkInjected(t *testing.T, what, root, text string, gone ...string) []rendered {
	t.Helper()
	items := parseItems(text)
	for _, it := range items {
		for _, g := range gone {
			if it.qname == g {
				t.Errorf("%s: %s shows %s, deleted in the checked-out commit", what, it.path, g)
			}
		}
		if len(it.excerpt) == 0 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(it.path)))
		if err != nil {
			t.Errorf("%s: %s rendered from %s: %v", what, it.qname, it.path, err)
			continue
		}
		file := strings.Split(string(data), "\n")
		end := it.line - 1 + len(it.excerpt)
		if it.line < 1 || end > len(file) {
			t.Errorf("%s: %s at %s:%d: %d lines past the file's end", what, it.qname, it.path, it.line, len(it.excerpt))
			continue
		}
		for k, got := range it.excerpt {
			if want := file[it.line-1+k]; !sameLine(got, want) {
				t.Errorf("%s: %s at %s:%d: line %d of the excerpt is\n%q\nthe file there holds\n%q", what, it.qname, it.path, it.line, it.line+k, got, want)
				break
			}
		}
		// The file at that line must be the entity's declaration: an
		// excerpt read from a changed file at stored lines matches the
		// file too, and shows other code (issue 19).
		name := it.qname[strings.LastIndex(it.qname, ".")+1:]
		if !strings.Contains(file[it.line-1], name) {
			t.Errorf("%s: %s at %s:%d: the line there declares no %s: %q", what, it.qname, it.path, it.line, name, file[it.line-1])
		}
	}
	return items
}

// sameLine reports whether an excerpt's line shows the file's line as the
// renderer does: trailing blanks dropped, and a long line cut at a rune
// boundary and ended with "…".
func sameLine(shown, file string) bool {
	file = strings.TrimRight(file, " \t\r")
	if cut, ok := strings.CutSuffix(shown, "…"); ok && cut != file {
		return strings.HasPrefix(file, cut) && len(file) > len(cut)
	}
	return shown == file
}

// promptHook runs the prompt hook through the binary for a workspace,
// with env added, and returns its additionalContext.
func promptHook(t *testing.T, root, session, prompt string, env ...string) string {
	t.Helper()
	cmd := exec.Command(bin(t), "hook", "user-prompt-submit")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(input(map[string]any{"session_id": session, "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": prompt}))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("hook: %v, stderr %q", err, stderr.String())
	}
	return contextOf(t, "user-prompt-submit", string(out))
}

const clientV1 = `package client

import "errors"

// Client sends requests and follows redirects.
type Client struct{ redirects int }

// closeIdleConnections closes the connections that sit idle.
func (c *Client) closeIdleConnections() {
	c.redirects = 0
}

// defaultCheckRedirect stops a client after ten redirects.
func defaultCheckRedirect(via []string) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// Post issues a POST to the named URL.
func (c *Client) Post(url string) error {
	return defaultCheckRedirect([]string{url})
}
`

// clientV2 deletes closeIdleConnections and puts Do above
// defaultCheckRedirect, which moves down by four lines.
const clientV2 = `package client

import "errors"

// Client sends requests and follows redirects.
type Client struct{ redirects int }

// Do sends a request and follows its redirects as
// defaultCheckRedirect allows.
func (c *Client) Do(url string) error {
	c.redirects++
	if err := defaultCheckRedirect([]string{url}); err != nil {
		return err
	}
	return nil
}

// defaultCheckRedirect stops a client after ten redirects.
func defaultCheckRedirect(via []string) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// Post issues a POST to the named URL.
func (c *Client) Post(url string) error {
	return c.Do(url)
}
`

const redirectPrompt = "why does defaultCheckRedirect stop the Client Post after closeIdleConnections"

// checkoutRepo returns a repository of two commits (clientV1, clientV2),
// checked out and indexed at the first, and the second's id.
func checkoutRepo(t *testing.T) (root, second string) {
	t.Helper()
	root = quietDir(t)
	git(t, root, "init", "-q", "-b", "main")
	first := commitFiles(t, root, map[string]string{".gitignore": ".ctxls/\n", "client/client.go": clientV1, "client/util.go": "package client\n\n// hostOf returns the host of a URL.\nfunc hostOf(url string) string { return url }\n"})
	second = commitFiles(t, root, map[string]string{".gitignore": ".ctxls/\n", "client/client.go": clientV2, "client/util.go": "package client\n\n// hostOf returns the host of a URL.\nfunc hostOf(url string) string { return url }\n"})
	git(t, root, "checkout", "-q", first)
	cmd := exec.Command(bin(t), "index", "--root", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctxls index: %v\n%s", err, out)
	}
	return root, second
}

// The reproduction of issue 19: indexed at one commit, another checked
// out with no editor and no re-index, the prompt hook and ctxls context
// must show defaultCheckRedirect as the checked-out file has it, and not
// the deleted closeIdleConnections.
func TestCheckoutRendersCheckedOutFiles(t *testing.T) {
	const gone = "client.Client.closeIdleConnections"
	tests := []struct {
		name string
		// ask returns what the surface injects for redirectPrompt.
		ask func(t *testing.T, root string) string
		// daemon: the first call starts the workspace's daemon, which
		// answers after the checkout.
		daemon bool
	}{
		{name: "prompt hook in process", ask: func(t *testing.T, root string) string {
			return promptHook(t, root, "s-inproc", redirectPrompt, "CTXLS_HOOK_DAEMON=0")
		}},
		{name: "prompt hook through the daemon", daemon: true, ask: func(t *testing.T, root string) string {
			return promptHook(t, root, "s-daemon", redirectPrompt)
		}},
		{name: "ctxls context", ask: func(t *testing.T, root string) string {
			cmd := exec.Command(bin(t), "context", "--root", root, redirectPrompt)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("ctxls context: %v\n%s", err, out)
			}
			return string(out)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, second := checkoutRepo(t)
			if tc.daemon {
				before := promptHook(t, root, "s-warm", redirectPrompt)
				checkInjected(t, "before the checkout", root, before)
				sock, err := hookcall.SocketPath(root)
				if err != nil {
					t.Fatal(err)
				}
				waitSocket(t, sock)
			}
			git(t, root, "checkout", "-q", second)
			got := tc.ask(t, root)
			items := checkInjected(t, tc.name, root, got, gone)
			shown := false
			for _, it := range items {
				if it.qname == "client.defaultCheckRedirect" && len(it.excerpt) > 0 {
					shown = true
				}
			}
			if !shown {
				t.Errorf("defaultCheckRedirect not shown after the checkout:\n%s", got)
			}
			if tc.daemon {
				log, _ := os.ReadFile(filepath.Join(workspace.Dir(root), "ctxls.log"))
				if !bytes.Contains(log, []byte(`"daemon":true`)) {
					t.Errorf("no call answered by the daemon; log:\n%s", log)
				}
			}
			// HEAD moved: a whole index run catches up in the background
			// and records the HEAD it indexed.
			waitIndexers(t, root)
			st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if head, err := st.Meta(context.Background(), "git_head"); err != nil || head != index.GitHead(root) {
				t.Errorf("index records HEAD %q (%v), want %q", head, err, index.GitHead(root))
			}
		})
	}
}

// waitSocket waits until the daemon's socket exists.
func waitSocket(t *testing.T, sock string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(sock); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the daemon did not start")
}

// Twenty consecutive commits of a small history, each moving functions,
// resizing them and deleting one: after each checkout the prompt hook's
// excerpts are the checked-out files, byte for byte.
func TestCheckoutWalkRendersEachCommit(t *testing.T) {
	root := quietDir(t)
	git(t, root, "init", "-q", "-b", "main")
	const funcs = 6
	var commits []string
	version := func(i int) map[string]string {
		const head = "package handlers\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n\n"
		a, b := &strings.Builder{}, &strings.Builder{}
		a.WriteString(head)
		b.WriteString(head)
		for k := 0; k < funcs; k++ {
			f := (k + i) % funcs // the order rotates
			if f == i%funcs {
				continue // deleted in this commit
			}
			w := a
			if (f+i)%3 == 0 {
				w = b // and moves between files
			}
			fmt.Fprintf(w, "// Handler%d serves route %d of the request router.\nfunc Handler%d(request string) string {\n", f, f, f)
			for l := 0; l < 1+(f*7+i*3)%6; l++ {
				fmt.Fprintf(w, "\trequest = request + %q // step %d of commit %d\n", fmt.Sprint(l), l, i)
			}
			fmt.Fprintf(w, "\treturn fmt.Sprint(request)\n}\n\n")
		}
		return map[string]string{"handlers/a.go": a.String(), "handlers/b.go": b.String(), ".gitignore": ".ctxls/\n"}
	}
	for i := 0; i < 20; i++ {
		commits = append(commits, commitFiles(t, root, version(i)))
	}
	git(t, root, "checkout", "-q", commits[0])
	if out, err := exec.Command(bin(t), "index", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("ctxls index: %v\n%s", err, out)
	}
	// What each checkout renders is under test, not how fast: on a loaded
	// machine (CI beside other jobs) the one-second deadline answered some
	// prompts with what was ready before the checkout's files were read.
	if err := os.WriteFile(filepath.Join(root, ".ctxls", "config.yaml"), []byte("hooks:\n  deadline: 20s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := 0; k < funcs; k++ {
		names = append(names, fmt.Sprintf("Handler%d", k))
	}
	prompt := "how do " + strings.Join(names, " and ") + " change the request in the router"
	total := 0
	for i := 1; i < len(commits); i++ {
		git(t, root, "checkout", "-q", commits[i])
		got := promptHook(t, root, fmt.Sprintf("walk-%d", i), prompt, "CTXLS_HOOK_DAEMON=0")
		items := checkInjected(t, fmt.Sprintf("commit %d", i), root, got, fmt.Sprintf("handlers.Handler%d", i%funcs))
		total += len(items)
	}
	if total < 19 {
		t.Errorf("only %d items injected over 19 checkouts: the walk checks little", total)
	}
}
