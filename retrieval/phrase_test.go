package retrieval

import (
	"context"
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
