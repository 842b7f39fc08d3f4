package think

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
)

// fakeCLI writes an executable script named name into dir: it saves its
// arguments and stdin beside itself and then runs body.
func fakeCLI(t *testing.T, dir, name, body string) {
	t.Helper()
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"" + filepath.Join(dir, name+".args") + "\"\ncat > \"" +
		filepath.Join(dir, name+".stdin") + "\"\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestProviderCalls(t *testing.T) {
	ctx := context.Background()
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	fakeCLI(t, bin, "claude", "echo 'Claude says: cache at the edge.'")
	fakeCLI(t, bin, "codex", "printf '[2026-01-24T22:00:00] OpenAI Codex v0.36\\n[2026-01-24T22:00:00] workdir: /tmp\\n\\nCodex says: shard it.\\n[not a header] kept\\n'")
	fakeCLI(t, bin, "gemini", "printf 'Loading extension: conductor\\n[Gemini] session ready\\nGemini says: measure first.\\n'")
	cases := []struct {
		provider string
		o        CallOptions
		want     string
		args     []string
	}{
		{"claude", CallOptions{Model: "haiku", Agent: "security-expert", StylePrompt: "Be a devil's advocate.", Session: "s-1"},
			"Claude says: cache at the edge.", []string{"--print", "--no-session-persistence", "--model", "haiku", "--agent", "security-expert", "--append-system-prompt", "Be a devil's advocate."}},
		{"codex", CallOptions{Model: "gpt-5-codex", OSS: true}, "Codex says: shard it.\n[not a header] kept",
			[]string{"exec", "--model", "gpt-5-codex", "--oss", "-"}},
		{"gemini", CallOptions{}, "Gemini says: measure first.", []string{"-o", "text"}},
	}
	for _, c := range cases {
		t.Run(c.provider, func(t *testing.T) {
			s, _ := newStore(t)
			if _, err := s.Create(ctx, memory.Project, "How to cache sessions?", nil); err != nil {
				t.Fatal(err)
			}
			s.Add(ctx, memory.Project, "", Thought, "An earlier thought.", "", nil)
			p, err := LookupProvider(c.provider)
			if err != nil {
				t.Fatal(err)
			}
			d, e, err := s.Call(ctx, memory.Project, "", Counter, "What could go wrong?", p, c.o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if e.Text != c.want || e.Kind != Counter || e.Prompt != "What could go wrong?" {
				t.Errorf("entry %+v", e)
			}
			if want := Attribution(c.provider, c.o.Model, c.o.Session); e.By != want || len(d.Thoughts) != 2 {
				t.Errorf("by %q want %q; %d thoughts", e.By, want, len(d.Thoughts))
			}
			args, _ := os.ReadFile(filepath.Join(bin, c.provider+".args"))
			if got := strings.Split(strings.TrimSuffix(string(args), "\n"), "\n"); strings.Join(got, "|") != strings.Join(c.args, "|") {
				t.Errorf("args %q, want %q", got, c.args)
			}
			stdin, _ := os.ReadFile(filepath.Join(bin, c.provider+".stdin"))
			for _, want := range []string{"How to cache sessions?", "An earlier thought.", "What could go wrong?", "counter-argument"} {
				if !strings.Contains(string(stdin), want) {
					t.Errorf("prompt lacks %q:\n%s", want, stdin)
				}
			}
		})
	}
	if got := Attribution("claude", "sonnet", "abc"); got != "model:sonnet provider:claude [abc]" {
		t.Errorf("attribution %q", got)
	}
}

func TestProviderFailures(t *testing.T) {
	ctx := context.Background()
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cases := []struct {
		name, body string
		timeout    time.Duration
		want       string
	}{
		{"non-zero exit", "echo 'rate limited' >&2; exit 3", 0, "rate limited"},
		{"timeout", "sleep 30 & wait", 300 * time.Millisecond, "did not answer within"},
		// A helper that leaves the process group keeps stdout open: the
		// call still ends soon after the deadline (WaitDelay).
		{"escaped child", "setsid sleep 5 & sleep 30", 300 * time.Millisecond, "did not answer within"},
		{"empty", "echo '   '", 0, "empty answer"},
		{"headers only", "echo '[2026] codex'", 0, "empty answer"},
		{"not UTF-8", "printf 'caf\\351\\n'", 0, "not valid UTF-8"},
		{"50 MB", "head -c 52428800 /dev/zero | tr '\\000' a", 0, "more than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newStore(t)
			d, err := s.Create(ctx, memory.Project, "topic", nil)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(d.Path)
			fakeCLI(t, bin, "codex", c.body)
			p, _ := LookupProvider("codex")
			start := time.Now()
			_, _, err = s.Call(ctx, memory.Project, "", Thought, "go", p, CallOptions{Timeout: c.timeout}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrProvider) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if el := time.Since(start); el > 4*time.Second {
				t.Errorf("took %s", el)
			}
			if after, _ := os.ReadFile(d.Path); string(after) != string(before) {
				t.Error("document changed")
			}
		})
	}
	t.Run("missing CLI", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		s, _ := newStore(t)
		s.Create(ctx, memory.Project, "topic", nil)
		p, _ := LookupProvider("gemini")
		_, _, err := s.Call(ctx, memory.Project, "", Thought, "go", p, CallOptions{}, nil)
		if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "gemini") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("flags a provider does not support", func(t *testing.T) {
		for _, c := range []struct {
			provider string
			o        CallOptions
		}{{"codex", CallOptions{Agent: "a"}}, {"gemini", CallOptions{StylePrompt: "s"}}, {"claude", CallOptions{OSS: true}}} {
			p, _ := LookupProvider(c.provider)
			if _, err := p.CommandArgs(c.o); err == nil {
				t.Errorf("%s accepted %+v", c.provider, c.o)
			}
		}
	})
}

func TestProviderCircuitBreaker(t *testing.T) {
	ctx := context.Background()
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s, _ := newStore(t)
	root := s.Memory().Root()
	s.Create(ctx, memory.Project, "topic", nil)
	now := time.Date(2026, 1, 24, 22, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	p, _ := LookupProvider("claude")
	call := func() error {
		br, err := NewBreakers(root, "sess-1", clock) // a new process each time
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.Call(ctx, memory.Project, "", Thought, "go", p, CallOptions{}, br)
		return err
	}
	fakeCLI(t, bin, "claude", "exit 1")
	for i := 0; i < BreakerThreshold; i++ {
		if err := call(); !errors.Is(err, ErrProvider) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// Open: the CLI is not run (a working one would answer).
	fakeCLI(t, bin, "claude", "echo answer")
	os.Remove(filepath.Join(bin, "claude.args"))
	if err := call(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("fourth call: %v", err)
	}
	if _, err := os.Stat(filepath.Join(bin, "claude.args")); err == nil {
		t.Error("the CLI ran with the circuit open")
	}
	// Another session is not affected; codex has its own circuit.
	if br, _ := NewBreakers(root, "sess-2", clock); br != nil {
		if _, ok := br.Allow("claude"); !ok {
			t.Error("open in another session")
		}
	}
	// After the cooldown one trial runs; its success closes the circuit.
	now = now.Add(BreakerCooldown)
	if err := call(); err != nil {
		t.Fatal(err)
	}
	br, _ := NewBreakers(root, "sess-1", clock)
	if st, ok := br.Allow("claude"); !ok || st.IsOpen || st.ConsecutiveFailures != 0 || st.SessionID != "sess-1" {
		t.Errorf("after success: %+v %v", st, ok)
	}
	// A corrupt state file is all closed.
	os.WriteFile(filepath.Join(root, ".claude", "session-state", "sess-1", "circuits.json"), []byte("{nope"), 0o644)
	if _, ok := br.Allow("claude"); !ok {
		t.Error("corrupt state blocks calls")
	}
	if _, err := NewBreakers(root, "../x", nil); err == nil {
		t.Error("session id escaping the state directory accepted")
	}
}
