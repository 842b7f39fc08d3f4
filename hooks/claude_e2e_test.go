package hooks

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClaudeCodeRunsHooks drives the real Claude Code CLI offline against a
// local fake Messages API (../shared/tools/claude-code-fake-api.py): the
// project's hooks are installed with `ctxls init`, and the context ctxls
// returns must appear in the requests the CLI sends to the model.
func TestClaudeCodeRunsHooks(t *testing.T) {
	claude := os.Getenv("CTXLS_CLAUDE_BIN")
	fake := os.Getenv("CTXLS_FAKE_API")
	bin := bin(t)
	if claude == "" || fake == "" {
		t.Skip("CTXLS_CLAUDE_BIN and CTXLS_FAKE_API not set (make test sets them when npm and shared/ are there)")
	}
	if _, err := os.Stat(fake); err != nil {
		t.Skipf("fake API script: %v", err)
	}
	root := testWorkspace(t)
	// As a person runs it: the thin client installed on PATH (bin is ctxls,
	// and init runs in ctxls-core beside it), and the project's shared
	// settings naming ctxls, not this machine's path (decision 0098).
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	initCmd := exec.Command(bin, "init", "--root", root, "--no-index")
	initCmd.Env = append(os.Environ(), "PATH="+path)
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("ctxls init: %v %s", err, out)
	}
	settings, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	if !bytes.Contains(settings, []byte(`"command": "ctxls"`)) {
		t.Errorf("ctxls init did not install ctxls from PATH:\n%s", settings)
	}

	// The fake API on a free loopback port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	scratch := t.TempDir()
	apiLog := filepath.Join(scratch, "api.jsonl")
	api := exec.Command("python3", fake, fmt.Sprint(port), apiLog)
	api.Env = append(os.Environ(), "FAKE_READ_PATH="+filepath.Join(root, "auth", "handler.go"))
	if err := api.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { api.Process.Kill(); api.Wait() }()
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "READTOOL Why does AuthService.Login reject valid passwords?",
		"--output-format", "stream-json", "--verbose", "--include-hook-events")
	cmd.Dir = root
	// The hooks start the workspace's daemon; its socket must be where the
	// workspace's cleanup (quietDir) stops it and waits for it, not under
	// the scratch TMPDIR: a daemon left running wrote into .ctxls while the
	// workspace was removed ("directory not empty", seen under load).
	runtime := os.Getenv("XDG_RUNTIME_DIR")
	if runtime == "" {
		runtime = os.TempDir()
	}
	cmd.Env = []string{
		"PATH=" + path, "HOME=" + scratch, "TMPDIR=" + scratch, "XDG_RUNTIME_DIR=" + runtime,
		"ANTHROPIC_API_KEY=sk-ant-dummy", fmt.Sprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", port),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, tail(out))
	}
	data, err := os.ReadFile(apiLog)
	if err != nil {
		t.Fatalf("fake API log: %v", err)
	}
	// UserPromptSubmit: ctxls's retrieval for the prompt reached the model.
	if !strings.Contains(string(data), "auth.AuthService.Login") {
		t.Errorf("the model never received ctxls's context for the prompt; claude output:\n%s", tail(out))
	}
	// PostToolUse on the Read: the read file's neighbours reached the model.
	if !strings.Contains(string(data), "Related to auth/handler.go") {
		t.Errorf("the model never received ctxls's post-tool-use context")
	}
	// The hooks ran through the binary and logged their answers.
	log, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log"))
	events := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(log)))
	for sc.Scan() {
		for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"} {
			if strings.Contains(sc.Text(), `"event":"`+ev+`"`) {
				events[ev] = true
			}
		}
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse"} {
		if !events[ev] {
			t.Errorf("no %s hook call in ctxls.log", ev)
		}
	}
}

func tail(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}
