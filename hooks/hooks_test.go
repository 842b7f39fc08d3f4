package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wstest"

	"github.com/gofrs/flock"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/damage"
	"github.com/ctxls/ctxls/store"
)

const authGo = `package auth

// AuthService checks credentials against the user store.
type AuthService struct{ users map[string]string }

// Login verifies a password and returns a session token.
func (a *AuthService) Login(user, password string) (string, error) {
	if a.users[user] != password {
		return "", ErrDenied
	}
	return issueToken(user), nil
}

func issueToken(user string) string { return "t-" + user }
`

const handlerGo = `package auth

// HandleLogin is the HTTP entry point for logins.
func HandleLogin(svc *AuthService, user, pw string) string {
	tok, _ := svc.Login(user, pw)
	return tok
}
`

// testWorkspace returns an indexed temporary workspace.
func testWorkspace(t *testing.T) string {
	t.Helper()
	root := quietDir(t)
	wstest.Write(t, root, map[string]string{
		"auth/auth.go":    authGo,
		"auth/handler.go": handlerGo,
		"auth/errors.go":  "package auth\n\nimport \"errors\"\n\n// ErrDenied is returned for a wrong password.\nvar ErrDenied = errors.New(\"denied\")\n",
	})
	wstest.Index(t, root)
	return root
}

func bin(t *testing.T) string {
	b := os.Getenv("CTXLS_BIN")
	if b == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	return b
}

// hook runs the built binary as Claude Code does: JSON on stdin.
func hook(t *testing.T, event string, stdin []byte) (stdout string, code int) {
	t.Helper()
	r := runHook(bin(t), t.TempDir(), event, stdin)
	if r.err != nil {
		t.Fatalf("run hook: %v", r.err)
	}
	checkStderr(t, event, r)
	return r.stdout, r.code
}

// hookRun is what one hook process did.
type hookRun struct {
	stdout, stderr string
	code           int
	err            error // the process could not run
}

// runHook runs exe's hook command for event in dir. It calls no method of
// testing.T, so that goroutines may call it (t.Skip and t.Fatal must run
// on the test's own goroutine).
func runHook(exe, dir, event string, stdin []byte) hookRun {
	cmd := exec.Command(exe, "hook", event)
	// Input without a cwd falls back to the process's: never the
	// repository (indexed in a developer's tree, it would get a daemon).
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String(), code: cmd.ProcessState.ExitCode()}
	if err != nil && r.code == -1 {
		r.err = err
	}
	return r
}

// checkStderr fails the test when a hook of a known event wrote to stderr.
func checkStderr(t *testing.T, event string, r hookRun) {
	t.Helper()
	if _, known := hookevent.FromArg(event); known && r.stderr != "" {
		t.Errorf("hook wrote to stderr: %s", r.stderr)
	}
}

func input(fields map[string]any) []byte {
	b, _ := json.Marshal(fields)
	return b
}

// context returns the additionalContext of a hook's output, checking the
// output is exactly the documented JSON shape.
func contextOf(t *testing.T, event, out string) string {
	t.Helper()
	if strings.TrimSpace(out) == "" {
		return ""
	}
	var o struct {
		HookSpecificOutput *struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		// Shown to the person, not the model: the session-start notice
		// of a workspace without an index.
		SystemMessage string `json:"systemMessage"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("invalid hook JSON %q: %v", out, err)
	}
	if o.HookSpecificOutput == nil {
		if o.SystemMessage == "" {
			t.Errorf("hook JSON %q holds neither context nor a message", out)
		}
		return ""
	}
	if name, _ := hookevent.FromArg(event); o.HookSpecificOutput.HookEventName != name {
		t.Errorf("hookEventName %q for %s", o.HookSpecificOutput.HookEventName, event)
	}
	if len(o.HookSpecificOutput.AdditionalContext) > DefaultBudget {
		t.Errorf("additionalContext of %d chars exceeds the budget", len(o.HookSpecificOutput.AdditionalContext))
	}
	return o.HookSpecificOutput.AdditionalContext
}

func TestEventsThroughBinary(t *testing.T) {
	root := testWorkspace(t)
	sess := "sess-1"
	authPath := filepath.Join(root, "auth", "auth.go")

	// A prompt about the code gets the code.
	out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": sess, "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": "Why does AuthService.Login reject valid passwords?"}))
	ctx := contextOf(t, "user-prompt-submit", out)
	if code != 0 || !strings.Contains(ctx, "AuthService.Login") {
		t.Fatalf("user-prompt-submit: code %d context %q", code, ctx)
	}
	// The same prompt again: everything was already injected this session.
	out, _ = hook(t, "user-prompt-submit", input(map[string]any{"session_id": sess, "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
	if c := contextOf(t, "user-prompt-submit", out); c != "" {
		t.Errorf("repeat prompt injected again: %q", c)
	}
	// camelCase keys (VS Code's agent) work alike, in a new session.
	out, _ = hook(t, "user-prompt-submit", input(map[string]any{"sessionId": "sess-2", "cwd": root, "hookEventName": "UserPromptSubmit", "prompt": "how does issueToken build tokens"}))
	if c := contextOf(t, "user-prompt-submit", out); !strings.Contains(c, "issueToken") {
		t.Errorf("camelCase input: %q", c)
	}
	// Relevance gate: nothing about the code, nothing injected.
	out, code = hook(t, "user-prompt-submit", input(map[string]any{"session_id": "sess-3", "cwd": root, "prompt": "write a short poem about autumn leaves"}))
	if out != "" || code != 0 {
		t.Errorf("unrelated prompt: code %d output %q", code, out)
	}

	// Before an edit: the file's outline and the callers of what changes.
	out, _ = hook(t, "pre-tool-use", input(map[string]any{"session_id": sess, "cwd": root, "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": authPath, "old_string": "if a.users[user] != password {", "new_string": "if !check(a, user, password) {"}}))
	c := contextOf(t, "pre-tool-use", out)
	if !strings.Contains(c, "auth/auth.go") || !strings.Contains(c, "auth.HandleLogin") {
		t.Errorf("pre-tool-use context lacks the file or the caller HandleLogin: %q", c)
	}
	// Not for a Read.
	out, _ = hook(t, "pre-tool-use", input(map[string]any{"session_id": sess, "cwd": root, "tool_name": "Read", "tool_input": map[string]any{"file_path": authPath}}))
	if out != "" {
		t.Errorf("pre-tool-use on Read injected %q", out)
	}

	// After a Write: the file is re-indexed at once.
	newFile := filepath.Join(root, "auth", "audit.go")
	os.WriteFile(newFile, []byte("package auth\n\n// AuditTrail records logins.\nfunc AuditTrail(user string) { issueToken(user) }\n"), 0o644)
	out, code = hook(t, "post-tool-use", input(map[string]any{"session_id": sess, "cwd": root, "tool_name": "Write",
		"tool_input": map[string]any{"file_path": newFile, "content": "..."}, "tool_response": map[string]any{"success": true}}))
	if code != 0 {
		t.Fatalf("post-tool-use exit %d", code)
	}
	if c := contextOf(t, "post-tool-use", out); !strings.Contains(c, "issueToken") {
		t.Errorf("post-tool-use context %q lacks the written file's neighbour issueToken", c)
	}
	st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := st.EntitiesByName(context.Background(), "AuditTrail", 5); len(ents) != 1 {
		t.Errorf("written file not re-indexed by post-tool-use")
	}
	st.Close()

	// Session start brings back the working set recorded by the tools.
	out, _ = hook(t, "session-start", input(map[string]any{"session_id": "sess-next", "cwd": root, "source": "startup"}))
	if c := contextOf(t, "session-start", out); !strings.Contains(c, "auth/audit.go") {
		t.Errorf("session-start context lacks the working set: %q", c)
	}
	// Pre-compact answers nothing (it cannot inject) and clears dedup, so
	// that a compact session start restores context.
	if out, code := hook(t, "pre-compact", input(map[string]any{"session_id": sess, "cwd": root, "trigger": "auto"})); out != "" || code != 0 {
		t.Errorf("pre-compact: %d %q", code, out)
	}
	out, _ = hook(t, "user-prompt-submit", input(map[string]any{"session_id": sess, "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
	if c := contextOf(t, "user-prompt-submit", out); !strings.Contains(c, "AuthService.Login") {
		t.Errorf("after compaction the context was not offered again: %q", c)
	}
	// post-tool-batch handles several calls.
	out, code = hook(t, "post-tool-batch", input(map[string]any{"session_id": "sess-b", "cwd": root, "tool_calls": []any{
		map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(root, "auth", "handler.go")}},
	}}))
	if code != 0 {
		t.Errorf("post-tool-batch exit %d", code)
	}
	contextOf(t, "post-tool-batch", out)
}

func TestFailOpen(t *testing.T) {
	root := testWorkspace(t)
	big := bytes.Repeat([]byte("a"), 10<<20)
	cases := map[string][]byte{
		"empty":      nil,
		"malformed":  []byte(`{"session_id": "x", "prompt": `),
		"not object": []byte(`[1,2,3]`),
		"huge":       append(append([]byte(`{"cwd":"`+root+`","prompt":"`), big...), []byte(`"}`)...),
		"non-utf8":   []byte("{\"cwd\":\"" + root + "\",\"prompt\":\"AuthService \xff\xfe Login\"}"),
		"no index":   input(map[string]any{"cwd": t.TempDir(), "prompt": "AuthService"}),
		"bad types":  []byte(`{"cwd": 12, "prompt": {"a": 1}}`),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			for _, ev := range []string{"user-prompt-submit", "post-tool-use", "session-start"} {
				out, code := hook(t, ev, in)
				if code != 0 {
					t.Errorf("%s: exit %d", ev, code)
				}
				contextOf(t, ev, out) // empty or valid JSON
			}
		})
	}
	// A wrong installation (unknown event, stray flag) must not block the
	// session either: exit 0, nothing on stdout.
	out, code := hook(t, "no-such-event", nil)
	if code != 0 || out != "" {
		t.Errorf("unknown event: code %d out %q", code, out)
	}
	for _, args := range [][]string{{"hook", "--no-such-flag", "user-prompt-submit"}, {"hook", "--budget", "lots", "user-prompt-submit"}} {
		cmd := exec.Command(bin(t), args...)
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(`{"prompt": "x"}`)
		if o, err := cmd.Output(); err != nil || len(o) != 0 {
			t.Errorf("%v: %v %q", args, err, o)
		}
	}
	// The budget from the workspace's configuration applies.
	os.WriteFile(filepath.Join(root, ".ctxls", "config.yaml"), []byte("hooks:\n  budget: 300\n"), 0o644)
	out, _ = hook(t, "user-prompt-submit", input(map[string]any{"session_id": "budget", "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
	if c := contextOf(t, "user-prompt-submit", out); len(c) > 300 {
		t.Errorf("configured budget ignored: %d chars", len(c))
	}
	os.Remove(filepath.Join(root, ".ctxls", "config.yaml"))
	// A corrupt index: still exit 0, nothing printed.
	os.WriteFile(store.Path(root), []byte("garbage"), 0o644)
	out, code = hook(t, "user-prompt-submit", input(map[string]any{"cwd": root, "prompt": "AuthService"}))
	if code != 0 || out != "" {
		t.Errorf("corrupt index: code %d out %q", code, out)
	}
}

// TestConcurrentHooks runs 20 hook processes of one session at once: no
// duplicate injection and no "database is locked" failure.
func TestConcurrentHooks(t *testing.T) {
	exe, root := bin(t), testWorkspace(t)
	runs := make([]hookRun, 20)
	dirs := make([]string, len(runs))
	for i := range dirs {
		dirs[i] = t.TempDir()
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runs[i] = runHook(exe, dirs[i], "user-prompt-submit", input(map[string]any{"session_id": "same", "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
		}(i)
	}
	wg.Wait()
	seen := map[string]int{}
	for i, r := range runs {
		if r.err != nil {
			t.Fatalf("process %d: %v", i, r.err)
		}
		checkStderr(t, "user-prompt-submit", r)
		if r.code != 0 {
			t.Errorf("process %d exit %d", i, r.code)
		}
		for _, part := range strings.Split(contextOf(t, "user-prompt-submit", r.stdout), "\n\n---\n\n") {
			if part != "" {
				seen[firstLine(part)]++
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no process injected anything")
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%q injected %d times", k, n)
		}
	}
	log, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log"))
	if bytes.Contains(log, []byte("database is locked")) {
		t.Errorf("lock errors in the log:\n%s", log)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func TestParseInputKeys(t *testing.T) {
	in, err := ParseInput([]byte(`{"sessionId":"a","hookEventName":"PreToolUse","toolName":"Edit","toolInput":{"filePath":"/x/y.go","oldString":"a"}}`))
	if err != nil {
		t.Fatal(err)
	}
	ti := Tool(in.ToolInput)
	if in.SessionID != "a" || in.ToolName != "Edit" || ti.FilePath != "/x/y.go" || ti.OldStr != "a" {
		t.Fatalf("camelCase not normalised: %+v %+v", in, ti)
	}
	if _, err := ParseInput([]byte("   ")); err == nil {
		t.Fatal("empty input accepted")
	}
	_ = time.Second
}

// A state file damaged inside its pages (Open reads only its header) costs
// one answer: that call fails open and moves the file aside, the next one
// answers from a new state file with the index intact.
func TestDamagedStateFileIsMovedAside(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	root := testWorkspace(t)
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := st.RecordActivity(context.Background(), store.Activity{Origin: "editor", Type: "file_open", Path: fmt.Sprintf("f%d.go", i), Text: strings.Repeat("x", 500)}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if err := damage.Pages(store.StatePath(root), 0); err != nil {
		t.Fatal(err)
	}

	prompt := func(session string) string {
		out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": session, "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
		return contextOf(t, "user-prompt-submit", out)
	}
	if c := prompt("s1"); c != "" {
		t.Errorf("answered from a damaged state file: %q", c)
	}
	if aside, _ := filepath.Glob(store.StatePath(root) + ".corrupt-*"); len(aside) != 1 {
		t.Fatalf("damaged state file not moved aside: %v", aside)
	}
	if c := prompt("s2"); !strings.Contains(c, "AuthService.Login") {
		t.Errorf("after the repair: %q", c)
	}
}

// Damaged pages of the index cost one answer too: the call that meets them
// fails open, moves the index aside (the state file stays) and rebuilds it
// in the background, so that the calls after it answer again.
func TestDamagedIndexPagesAreMovedAside(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	root := testWorkspace(t)
	if err := damage.GoFiles(filepath.Join(root, "auth"), "auth", 300); err != nil {
		t.Fatal(err)
	}
	wstest.Index(t, root)
	if err := damage.Pages(store.Path(root), 1.0/3); err != nil {
		t.Fatal(err)
	}
	out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": "s1", "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
	if code != 0 || out != "" {
		t.Errorf("on damaged pages: exit %d, output %q; want nothing, exit 0", code, out)
	}
	if aside, _ := filepath.Glob(store.Path(root) + ".corrupt-*"); len(aside) != 1 {
		t.Fatalf("damaged index not moved aside: %v", aside)
	}
	if aside, _ := filepath.Glob(store.StatePath(root) + ".corrupt-*"); len(aside) != 0 {
		t.Errorf("the sound state file was moved aside too: %v", aside)
	}
	for i, deadline := 2, time.Now().Add(60*time.Second); ; i++ {
		out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": fmt.Sprintf("s%d", i), "cwd": root, "prompt": "Why does AuthService.Login reject valid passwords?"}))
		if code != 0 {
			t.Fatalf("after the repair: exit %d", code)
		}
		if strings.Contains(out, "AuthService") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hooks answered nothing for a minute after the damaged index was moved aside")
		}
		time.Sleep(200 * time.Millisecond)
	}
	waitIndexers(t, root)
}

// waitIndexers waits until no `index --root root` process runs, so that
// none writes into the test's directory while it is removed.
func waitIndexers(t *testing.T, root string) {
	t.Helper()
	marker := []byte("index\x00--root\x00" + root + "\x00")
	for deadline := time.Now().Add(60 * time.Second); ; {
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		running := false
		for _, p := range cmdlines {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, marker) {
				running = true
				break
			}
		}
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("an indexer of the workspace is still running")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An index that a hook finds damaged on open (moved aside for an empty
// one), or left partial by a killed index run, is rebuilt in the background
// by the first hook process or daemon that finds it, once however many
// calls find it, and the hooks answer from it again.
func TestIndexHealsInTheBackground(t *testing.T) {
	const ask = "Why does AuthService.Login reject valid passwords?"
	cases := []struct {
		name string
		// daemon: calls go through a workspace daemon that runs before the
		// index is spoiled, so that it, not a hook process, finds it.
		daemon bool
		spoil  func(t *testing.T, root string)
		// state is what `ctxls stats` says of the spoiled index.
		state string
	}{
		{"first page overwritten", false, firstPage, ""},
		{"partial, in process", false, partial, "partial"},
		{"partial, daemon", true, partial, ""}, // the daemon may be at work already
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.daemon {
				t.Setenv("CTXLS_HOOK_DAEMON", "0")
			}
			root := testWorkspace(t)
			prompt := func(session string) string {
				out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": session, "cwd": root, "prompt": ask}))
				if code != 0 {
					t.Fatalf("exit %d", code)
				}
				return contextOf(t, "user-prompt-submit", out)
			}
			if c.daemon {
				prompt("start") // answered in process; starts the daemon
				waitDaemon(t, root)
			}
			c.spoil(t, root)
			if c.state != "" {
				if s := stats(t, root); !strings.Contains(s, "state:      "+c.state) {
					t.Errorf("stats of the spoiled index:\n%s", s)
				}
			}
			// Many calls at once after the first: one rebuild.
			prompt("first")
			var wg sync.WaitGroup
			for i := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					prompt(fmt.Sprintf("burst%d", i))
				}()
			}
			wg.Wait()
			for i, deadline := 0, time.Now().Add(60*time.Second); ; i++ {
				if strings.Contains(prompt(fmt.Sprintf("s%d", i)), "AuthService.Login") && strings.Contains(stats(t, root), "state:      complete") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("not rebuilt a minute after it was spoiled:\n%s", stats(t, root))
				}
				time.Sleep(200 * time.Millisecond)
			}
			waitIndexers(t, root)
			if s := stats(t, root); !strings.Contains(s, "files:      3 ") {
				t.Errorf("rebuilt index:\n%s", s)
			}
			log, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log"))
			if n := bytes.Count(log, []byte(`"msg":"rebuilding the index in the background"`)); n != 1 {
				t.Errorf("%d background rebuilds started, want 1:\n%s", n, log)
			}
			if c.daemon && !bytes.Contains(log, []byte(`"reason":"the index is partial`)) {
				t.Errorf("the daemon did not find the index partial:\n%s", log)
			}
		})
	}
}

// firstPage overwrites the index's first page, as the reported failure
// did: Open moves it aside for an empty one.
func firstPage(t *testing.T, root string) {
	t.Helper()
	if err := damage.FirstPage(store.Path(root)); err != nil {
		t.Fatal(err)
	}
}

// partial leaves the index as an index run killed in its last phase
// does: entities written, the file rows (written last) of some files not,
// and the run's dirty mark set.
func partial(t *testing.T, root string) {
	t.Helper()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.DB().Exec(`DELETE FROM files WHERE path <> 'auth/errors.go'`); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMeta(context.Background(), "dirty", "1"); err != nil {
		t.Fatal(err)
	}
}

// stats is what `ctxls stats` prints for root.
func stats(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command(bin(t), "stats", "--root", root).CombinedOutput()
	if err != nil {
		t.Fatalf("ctxls stats: %v\n%s", err, out)
	}
	return string(out)
}

// waitDaemon waits until a daemon serves root.
func waitDaemon(t *testing.T, root string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); hookcall.Ping(context.Background(), root) != nil; {
		if time.Now().After(deadline) {
			t.Fatal("no daemon serves the workspace 10 s after a hook call")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quietDir is t.TempDir, symlinks resolved, for a workspace the test's hook calls may start a
// daemon or a background rebuild for: before the directory is removed, the
// daemon is stopped and waited for, background rebuilds are waited for,
// and until it is removed no daemon can start (its lock is held), so that
// none writes into the directory while it is removed, or outlives it.
func quietDir(t *testing.T) string {
	t.Helper()
	return quietDirFor(t, ".")
}

// quietDirFor is quietDir for the workspace at sub, a relative path in the
// directory it returns: the workspace need not exist yet.
func quietDirFor(t *testing.T, sub string) string {
	t.Helper()
	var release func()
	t.Cleanup(func() { // after the removal
		if release != nil {
			release()
		}
	})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, sub)
	t.Cleanup(func() { // before the removal
		sock, err := hookcall.SocketPath(root)
		if err != nil {
			t.Error(err)
			return
		}
		// A daemon that a call started may still be starting when the
		// first Stop is sent (it is not listening yet): ask again until its
		// lock is free.
		lock := flock.New(hookcall.LockPath(sock))
		deadline := time.Now().Add(20 * time.Second)
		for {
			if err := hookcall.Stop(context.Background(), root); err != nil {
				t.Errorf("stop the workspace's daemon: %v", err)
			}
			lctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			ok, err := lock.TryLockContext(lctx, 10*time.Millisecond)
			cancel()
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the workspace's daemon did not stop: %v", err)
				return
			}
		}
		release = func() { lock.Unlock(); os.Remove(hookcall.LockPath(sock)) }
		waitIndexers(t, root)
		waitStill(filepath.Join(root, ".ctxls"))
	})
	return dir
}

// waitStill waits, at most 5 s, until dir's listing is the same for 200 ms:
// a daemon frees its lock before its last files (the SQLite -wal and -shm it
// removes on close, the log) settle, and the directory's removal must not
// race them.
func waitStill(dir string) {
	list := func() string {
		ents, _ := os.ReadDir(dir)
		var b strings.Builder
		for _, e := range ents {
			b.WriteString(e.Name() + "\n")
		}
		return b.String()
	}
	deadline := time.Now().Add(5 * time.Second)
	last, since := list(), time.Now()
	for time.Now().Before(deadline) && time.Since(since) < 200*time.Millisecond {
		time.Sleep(20 * time.Millisecond)
		if now := list(); now != last {
			last, since = now, time.Now()
		}
	}
}

// Under umask 022, everything ctxls leaves in .ctxls after an index run,
// hook calls (in process and through the daemon) and queries is private to
// the user: the directories 0700, the files 0600.
func TestStateIsPrivateThroughBinary(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := testWorkspace(t)
	authPath := filepath.Join(root, "auth", "auth.go")
	calls := []struct {
		event string
		in    map[string]any
	}{
		{"session-start", map[string]any{"source": "startup"}},
		{"user-prompt-submit", map[string]any{"prompt": "Why does AuthService.Login reject valid passwords?"}},
		{"pre-tool-use", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": authPath}}},
		{"post-tool-use", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": authPath}}},
	}
	for i := range 2 { // in process, then through the daemon it started
		for _, c := range calls {
			c.in["session_id"], c.in["cwd"] = fmt.Sprintf("s%d", i), root
			if _, code := hook(t, c.event, input(c.in)); code != 0 {
				t.Fatalf("%s: exit %d", c.event, code)
			}
		}
		if i == 0 {
			waitDaemon(t, root)
		}
	}
	for _, args := range [][]string{{"index"}, {"query", "AuthService"}, {"context", "AuthService"}, {"stats"}} {
		if out, err := exec.Command(bin(t), append(args, "--root", root)...).CombinedOutput(); err != nil {
			t.Fatalf("ctxls %v: %v\n%s", args, err, out)
		}
	}
	var bad []string
	filepath.WalkDir(workspace.Dir(root), func(p string, d fs.DirEntry, err error) error {
		info, ierr := d.Info()
		if err != nil || ierr != nil {
			return nil // a temporary file, gone
		}
		want := workspace.FilePerm
		if d.IsDir() {
			want = workspace.DirPerm
		}
		if info.Mode().Perm() != want {
			bad = append(bad, fmt.Sprintf("%s %v", p, info.Mode()))
		}
		return nil
	})
	if len(bad) > 0 {
		t.Errorf("not private:\n%s", strings.Join(bad, "\n"))
	}
	for _, f := range []string{"ctxls.log", "index.db", "index.db-wal", "state.db"} {
		if _, err := os.Stat(filepath.Join(workspace.Dir(root), f)); err != nil {
			t.Errorf("expected %s: %v", f, err)
		}
	}
}

// A hook whose stdin stays open answers nothing within the hook's
// deadline, exit 0, and logs why: in the thin client and in ctxls-core.
func TestStdinThatNeverEnds(t *testing.T) {
	if InputWait := hookcall.InputWait; InputWait != DefaultDeadline {
		t.Fatalf("hookcall.InputWait %v, hooks.DefaultDeadline %v", InputWait, DefaultDeadline)
	}
	root := testWorkspace(t)
	for _, exe := range []string{bin(t), filepath.Join(filepath.Dir(bin(t)), "ctxls-core")} {
		t.Run(filepath.Base(exe), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close() // held open, as by `sleep 8 | ctxls hook ...`
			w.WriteString(`{"session_id": "open", "prompt": "AuthService`)
			cmd := exec.Command(exe, "hook", "user-prompt-submit")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR=")
			cmd.Stdin = r
			var out bytes.Buffer
			cmd.Stdout = &out
			start := time.Now()
			err = cmd.Run()
			r.Close()
			took := time.Since(start)
			if err != nil || out.Len() != 0 {
				t.Errorf("err %v, output %q; want exit 0 and nothing", err, out.String())
			}
			if took > DefaultDeadline+time.Second {
				t.Errorf("answered after %v; the deadline is %v", took, DefaultDeadline)
			}
			log, _ := os.ReadFile(filepath.Join(workspace.Dir(root), "ctxls.log"))
			if !bytes.Contains(log, []byte("hook input not complete within the hook's deadline")) {
				t.Errorf("not logged:\n%s", log)
			}
			os.Remove(filepath.Join(workspace.Dir(root), "ctxls.log"))
		})
	}
}
