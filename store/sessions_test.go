package store

import (
	"context"
	"fmt"
	"testing"
	"time"
	"unicode/utf8"
)

// recordPrompt writes a prompt as the collector does, in a transaction of
// its own.
func recordPrompt(t *testing.T, s *Store, p Prompt) {
	t.Helper()
	tx, err := s.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := RecordPrompt(context.Background(), tx, p); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func code(path, qname string) Injection {
	return Injection{Source: "code", ID: path + "#" + qname, Path: path, Section: "Symbol", Relevance: 0.5}
}

// usedOf maps each injection of a session's prompt ordinal to whether it was
// used ("-" for one without a file).
func usedOf(t *testing.T, s *Store, session string) map[string]string {
	t.Helper()
	prompts, err := s.SessionPrompts(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range prompts {
		for _, in := range p.Injected {
			v := "-"
			if in.Used != nil {
				v = fmt.Sprint(*in.Used)
				if *in.Used {
					v += " " + in.UsedBy
				}
			}
			out[fmt.Sprintf("%d %s:%s", p.Ordinal, in.Source, in.ID)] = v
		}
	}
	return out
}

// An injected file is used when a later tool call of the assistant in the
// same session names it; nothing else marks it.
func TestInjectionsUsedByLaterToolCalls(t *testing.T) {
	ctx := context.Background()
	tool := func(session, path, name string) Activity {
		return Activity{Session: session, Origin: "assistant", Type: "tool", Path: path, Text: name}
	}
	for _, tc := range []struct {
		name   string
		before []Activity // recorded before the prompt
		after  []Activity // after it
		want   map[string]string
	}{
		{
			name:  "a read of one file marks that file's entries only",
			after: []Activity{tool("s", "a.go", "Read")},
			want:  map[string]string{"1 code:a.go#A": "true Read", "1 code:a.go#B": "true Read", "1 code:b.go#C": "false", "1 memory:m1": "-"},
		},
		{
			name:   "a read before the prompt does not count",
			before: []Activity{tool("s", "a.go", "Read")},
			want:   map[string]string{"1 code:a.go#A": "false", "1 code:a.go#B": "false", "1 code:b.go#C": "false", "1 memory:m1": "-"},
		},
		{
			name: "other sessions, the editor and prompts do not count",
			after: []Activity{tool("other", "a.go", "Read"), {Session: "s", Origin: "editor", Type: "file_open", Path: "b.go"},
				{Session: "s", Origin: "assistant", Type: "prompt", Path: "a.go"}},
			want: map[string]string{"1 code:a.go#A": "false", "1 code:a.go#B": "false", "1 code:b.go#C": "false", "1 memory:m1": "-"},
		},
		{
			name:  "the first tool is kept",
			after: []Activity{tool("s", "b.go", "Grep"), tool("s", "b.go", "Edit")},
			want:  map[string]string{"1 code:a.go#A": "false", "1 code:a.go#B": "false", "1 code:b.go#C": "true Grep", "1 memory:m1": "-"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			if err := s.RecordActivity(ctx, tc.before...); err != nil {
				t.Fatal(err)
			}
			recordPrompt(t, s, Prompt{Session: "s", Text: "why", Injected: []Injection{
				code("a.go", "A"), code("a.go", "B"), code("b.go", "C"), {Source: "memory", ID: "m1"},
			}})
			if err := s.RecordActivity(ctx, tc.after...); err != nil {
				t.Fatal(err)
			}
			got := usedOf(t, s, "s")
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("used:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// Sessions counts prompts, injections and distinct files per session, a
// file used at any prompt counting once, and leaves out excluded ids and
// sessions idle since before Since.
func TestSessionsSummary(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	now := time.Now()
	recordPrompt(t, s, Prompt{Session: "s1", At: now.Add(-time.Minute), Text: "one", Injected: []Injection{code("a.go", "A"), code("b.go", "B")}})
	if err := s.RecordActivity(ctx, Activity{Session: "s1", Origin: "assistant", Type: "tool", Path: "a.go", Text: "Read"}); err != nil {
		t.Fatal(err)
	}
	recordPrompt(t, s, Prompt{Session: "s1", At: now, Text: "two", Injected: []Injection{code("a.go", "C")}})
	recordPrompt(t, s, Prompt{Session: "s1", At: now, Text: "three"})
	recordPrompt(t, s, Prompt{Session: "probe-1", At: now, Text: "x", Injected: []Injection{code("a.go", "A")}})
	recordPrompt(t, s, Prompt{Session: "old", At: now.Add(-10 * 24 * time.Hour), Text: "x", Injected: []Injection{code("a.go", "A")}})

	list, err := s.Sessions(ctx, SessionFilter{Since: now.Add(-24 * time.Hour), ExcludePrefix: "probe-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "s1" {
		t.Fatalf("sessions: %+v", list)
	}
	got := list[0]
	if got.Prompts != 3 || got.Injections != 3 || got.InjectedFiles != 2 || got.UsedFiles != 1 || got.ShareUsed != 0.5 {
		t.Errorf("summary %+v: want 3 prompts, 3 injections, 2 files, 1 used, share 0.5", got)
	}
	if got.Started.After(now.Add(-time.Minute)) || got.LastActivity.Before(now.Truncate(time.Millisecond)) {
		t.Errorf("started %v, last activity %v", got.Started, got.LastActivity)
	}
	// Prompt by prompt: the second prompt's a.go entry came after the read.
	if u := usedOf(t, s, "s1"); u["1 code:a.go#A"] != "true Read" || u["2 code:a.go#C"] != "false" || u["1 code:b.go#B"] != "false" {
		t.Errorf("per prompt: %v", u)
	}
	prompts, _ := s.SessionPrompts(ctx, "s1")
	if len(prompts) != 3 || prompts[2].Ordinal != 3 || prompts[2].Text != "three" || len(prompts[2].Injected) != 0 {
		t.Errorf("prompts: %+v", prompts)
	}
	if all, _ := s.Sessions(ctx, SessionFilter{}); len(all) != 3 {
		t.Errorf("unfiltered: %d sessions, want 3", len(all))
	}
	if one, _ := s.Sessions(ctx, SessionFilter{Limit: 1}); len(one) != 1 || one[0].ID == "old" {
		t.Errorf("limit 1: %+v", one)
	}
}

// The history keeps PromptRetention and at most maxPrompts prompts, with
// their injections, and prompt text of at most MaxPromptText bytes.
func TestPromptHistoryIsBounded(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	now := time.Now()
	recordPrompt(t, s, Prompt{Session: "old", At: now.Add(-PromptRetention - time.Hour), Text: "old", Injected: []Injection{code("a.go", "A")}})
	long := ""
	for len(long) < 2*MaxPromptText {
		long += "é"
	}
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxPrompts + 10 {
		p := Prompt{Session: fmt.Sprintf("s%d", i%7), At: now, Text: long, Injected: []Injection{code("a.go", "A"), code("b.go", "B")}}
		if err := RecordPrompt(ctx, tx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		var n int
		if err := s.DB().QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM prompts`); n != maxPrompts {
		t.Errorf("%d prompts kept, want %d", n, maxPrompts)
	}
	if n := count(`SELECT count(*) FROM prompt_injections`); n != 2*maxPrompts {
		t.Errorf("%d injections kept, want %d", n, 2*maxPrompts)
	}
	if n := count(`SELECT count(*) FROM prompts WHERE session = 'old'`); n != 0 {
		t.Errorf("a prompt older than the retention was kept")
	}
	if n := count(`SELECT max(length(CAST(text AS BLOB))) FROM prompts`); n > MaxPromptText {
		t.Errorf("prompt text of %d bytes kept", n)
	}
	prompts, err := s.SessionPrompts(ctx, "s0")
	if err != nil || len(prompts) == 0 || !utf8.ValidString(prompts[0].Text) {
		t.Errorf("s0's prompts: %d, %v", len(prompts), err)
	}
}

// A state file of version 2 (no prompt history) gains it in place.
func TestStateVersion2IsUpgradedInPlace(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`DROP TABLE state.prompt_injections; DROP TABLE state.prompts; PRAGMA state.user_version = 2`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTest(t, root)
	recordPrompt(t, s, Prompt{Session: "s", Text: "why", Injected: []Injection{code("a.go", "A")}})
	if list, err := s.Sessions(ctx, SessionFilter{}); err != nil || len(list) != 1 || list[0].Injections != 1 {
		t.Errorf("sessions after the upgrade: %+v, %v", list, err)
	}
	if ws, err := s.WorkingSet(ctx, time.Now().Add(-time.Hour), 5); err != nil || len(ws) != 1 {
		t.Errorf("activity after the upgrade: %v, %v", ws, err)
	}
}

// BenchmarkPromptHistory is what the prompt history adds to the hooks, on a
// history at its bound (maxPrompts prompts of 8 injections): "prompt" is
// one prompt's RecordPrompt with its prune, without the transaction's
// begin and commit (the hook runs it in the collector's transaction);
// "tool" a tool call's activity row (its own transaction, as the hook's),
// which marks injections used, against "editor", the same row that marks
// nothing.
func BenchmarkPromptHistory(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), Options{SingleConnection: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	injected := make([]Injection, 8)
	for i := range injected {
		injected[i] = code(fmt.Sprintf("pkg%d/file%d.go", i%3, i), fmt.Sprintf("F%d", i))
	}
	record := func(session string) error {
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := RecordPrompt(ctx, tx, Prompt{Session: session, Text: "why does the parser reject this input", Injected: injected}); err != nil {
			return err
		}
		return tx.Commit()
	}
	for i := range maxPrompts {
		if err := record(fmt.Sprintf("s%d", i/20)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("prompt", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			// Only RecordPrompt: the transaction is the collector's.
			b.StopTimer()
			tx, err := s.DB().BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			err = RecordPrompt(ctx, tx, Prompt{Session: fmt.Sprintf("bench%d", i/20), Text: "why does the parser reject this input", Injected: injected})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	for _, origin := range []string{"assistant", "editor"} {
		name := map[string]string{"assistant": "tool", "editor": "editor"}[origin]
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				// A session's prompt of 8 injections every 10 calls, so that
				// the tool calls find some not yet used.
				if i%10 == 0 {
					b.StopTimer()
					if err := record(fmt.Sprintf("%s%d", name, i/10)); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				a := Activity{Session: fmt.Sprintf("%s%d", name, i/10), Origin: origin, Type: "tool", Path: injected[i%len(injected)].Path, Text: "Read"}
				if err := s.RecordActivity(ctx, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
