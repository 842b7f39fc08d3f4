package hooks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/sources"
)

// orderSource returns one entry of normal priority after a delay.
type orderSource struct {
	name  string
	delay time.Duration
}

func (s orderSource) Name() string { return s.name }

func (s orderSource) Collect(ctx context.Context, ev *sources.Event) ([]collect.Entry, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return []collect.Entry{{Source: s.name, ID: s.name, Content: "from " + s.name, Priority: collect.Normal}}, nil
}

// Entries of equal priority are injected in the order of the sources, not
// in the order the sources finished: the same call injects the same text.
func TestEntriesKeepTheSourcesOrder(t *testing.T) {
	root := testWorkspace(t)
	tests := []struct {
		name   string
		delays [2]time.Duration
	}{
		{"first source slower", [2]time.Duration{80 * time.Millisecond, 0}},
		{"second source slower", [2]time.Duration{0, 80 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srcs := []sources.Source{orderSource{"alpha", tc.delays[0]}, orderSource{"beta", tc.delays[1]}}
			in, _ := json.Marshal(map[string]any{"session_id": "order-" + tc.name, "cwd": root, "hook_event_name": "SessionStart", "source": "startup"})
			out, err := Run(context.Background(), "session-start", in, Options{Root: root, Sources: srcs})
			if err != nil {
				t.Fatal(err)
			}
			text := string(out)
			a, b := strings.Index(text, "from alpha"), strings.Index(text, "from beta")
			if a < 0 || b < 0 || a > b {
				t.Errorf("want alpha's entry before beta's:\n%s", text)
			}
		})
	}
}
