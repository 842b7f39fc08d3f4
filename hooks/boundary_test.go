package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tester's reproduction of issue 23 item 1, through the built binary:
// a workspace with passwd.go -> /etc/passwd, etclink -> /etc and outdir ->
// a directory of credentials (fakes outside the workspace) is indexed with
// `ctxls index`, and a prompt about the credentials must not bring the
// secret into the assistant's context.
func TestPromptNeverInjectsFilesOutsideWorkspace(t *testing.T) {
	b := bin(t)
	base := quietDirFor(t, "ws") // its hook starts the workspace's daemon
	const secret = "zqxFakeSecretKey0123"
	outside := filepath.Join(base, "outside")
	root := filepath.Join(base, "ws")
	for p, c := range map[string]string{
		"outside/tmp/creds.py": "import os\n\n\ndef load_credentials():\n    \"\"\"Returns the AWS secret access key.\"\"\"\n" +
			"    AWS_SECRET_ACCESS_KEY = \"" + secret + "\"\n    return AWS_SECRET_ACCESS_KEY\n",
		"outside/etc/passwd":      "root:x:0:0:" + secret + ":/root:/bin/sh\n",
		"outside/etc/aws/keys.go": "package aws\n\n// SecretAccessKey is the AWS secret access key.\nconst SecretAccessKey = \"" + secret + "\"\n",
		"ws/app.py": "from creds import load_credentials\n\n\ndef connect():\n    \"\"\"Connects with the AWS secret access key from load_credentials.\"\"\"\n" +
			"    return load_credentials()\n",
	} {
		abs := filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"passwd.go": filepath.Join(outside, "etc", "passwd"),
		"etclink":   filepath.Join(outside, "etc"),
		"outdir":    filepath.Join(outside, "tmp"),
		"creds.py":  filepath.Join(outside, "tmp", "creds.py"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ctxls := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(b, args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ctxls %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	ctxls("index", "--root", root)
	stats := ctxls("stats", "--root", root)
	if !strings.Contains(stats, "symlink outside workspace") || !strings.Contains(stats, " 4\n") {
		t.Errorf("ctxls stats does not show the 4 links outside:\n%s", stats)
	}

	// The reproduction's prompt, with the workspace's own function named
	// so that the prompt gate (decision 0091) lets it through.
	prompt := "where does connect() in app.py get the AWS secret access key from load_credentials"
	out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": "s1", "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": prompt}))
	got := contextOf(t, "user-prompt-submit", out)
	if code != 0 {
		t.Fatalf("hook exit %d: %s", code, out)
	}
	if strings.Contains(got, secret) || strings.Contains(got, "root:x:0:0") || strings.Contains(got, "SecretAccessKey") {
		t.Fatalf("the prompt hook injected a file outside the workspace:\n%s", got)
	}
	// The workspace's own code is still found: the test is not passing
	// by injecting nothing at all.
	if !strings.Contains(got, "connect") {
		t.Errorf("the prompt hook did not inject app.py's connect:\n%s", got)
	}
	// A query too, through the same binary.
	if q := ctxls("query", "--root", root, prompt); strings.Contains(q, secret) {
		t.Errorf("ctxls query answered with the secret:\n%s", q)
	}
}
