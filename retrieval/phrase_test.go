package retrieval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

// Words of the message that spell a declaration's name in order find it,
// though no one word is rarer there than elsewhere (decision 0120); a
// phrase inside a long name counts for little.
func TestPhraseSpellsAName(t *testing.T) {
	_, st := wstest.Indexed(t, map[string]string{
		"sched/fair.go": `package sched

// PickNextTaskFair chooses what runs.
func PickNextTaskFair(q *Queue) *Task { return q.first }
`,
		"sched/queue.go": `package sched

// Queue holds the next task of each class; the next task runs first.
type Queue struct{ first *Task }

// Task is a unit of work: the next task, a pick of the scheduler.
type Task struct{ next *Task }

// Next returns the task after t: pick it when the scheduler asks.
func (t *Task) Next() *Task { return t.next }
`,
		"sched/fair_test.go": `package sched

func TestTheSchedulerMustAlwaysPickTheNextTaskOfTheQueueEvenWhenEmpty() {}
`,
	})
	resp, err := Query(context.Background(), st, Request{Text: "how does the scheduler pick the next task", Limit: 5, MinRelevance: -1})
	if err != nil {
		t.Fatal(err)
	}
	pick := slices.IndexFunc(resp.Results, func(r Result) bool { return r.Entity.Name == "PickNextTaskFair" })
	long := slices.IndexFunc(resp.Results, func(r Result) bool { return strings.HasPrefix(r.Entity.Name, "TestTheScheduler") })
	if pick < 0 || long >= 0 && long < pick {
		t.Fatalf("results %v: want PickNextTaskFair, above the test named by a sentence", names(resp.Results))
	}
	r := resp.Results[pick]
	if !slices.ContainsFunc(r.Why, func(w string) bool { return strings.HasPrefix(w, "phrase ") }) || r.Signals.Exact <= 0 {
		t.Errorf("PickNextTaskFair: why %q, exact %.2f: want a phrase's credit", r.Why, r.Signals.Exact)
	}
	if long >= 0 && resp.Results[long].Signals.Exact >= r.Signals.Exact/2 {
		t.Errorf("the test named by a sentence got exact %.2f, the function %.2f", resp.Results[long].Signals.Exact, r.Signals.Exact)
	}
}

func names(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Entity.Name)
	}
	return out
}

// A long function whose name the message spells is rarely in its words'
// top lists, which favour short documents: it is scored on those words
// like the lexical candidates (completeNamed), not by its name alone.
func TestNamedFunctionScoredOnTheWords(t *testing.T) {
	var body strings.Builder
	body.WriteString("package ptrace\n\n// ptraceAttach attaches the tracer to a running process.\nfunc ptraceAttach(task int) int {\n")
	for i := range 60 {
		fmt.Fprintf(&body, "\tcheckStep%d(task) // the process must be running\n", i)
	}
	body.WriteString("\treturn task\n}\n")
	files := map[string]string{"ptrace/attach.go": body.String()}
	var b strings.Builder
	for _, word := range []string{"ptraceStop", "attachDevice", "runningProcess"} {
		b.Reset()
		b.WriteString("package many\n\n")
		for i := range 300 {
			fmt.Fprintf(&b, "func %s%d() {}\n", word, i)
		}
		files["many/"+word+".go"] = b.String()
	}
	addFiller(files, 4, 1000)
	_, st := wstest.Indexed(t, files)
	resp, err := Query(context.Background(), st, Request{Text: "ptrace attach to a running process", Limit: 5, MinRelevance: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Entity.Name != "ptraceAttach" {
		t.Fatalf("results %v, want ptraceAttach first", names(resp.Results))
	}
	if s := resp.Results[0].Signals; s.Lexical <= 0 || s.Coverage < 1 {
		t.Errorf("ptraceAttach: lexical %.2f, coverage %.2f: want the words it holds counted", s.Lexical, s.Coverage)
	}
}
