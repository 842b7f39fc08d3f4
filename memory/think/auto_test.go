package think

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/sources/discover"
)

func catalog() Catalog {
	it := func(t discover.Type, name, desc string) discover.Item {
		return discover.Parse([]byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n"), "/x/"+name+".md", name,
			discover.Dir{Type: t, Scope: discover.Local})
	}
	return Catalog{
		Agents: []discover.Item{it(discover.Agent, "security-expert", "Security review of authentication and tokens"),
			it(discover.Agent, "db-expert", "PostgreSQL schema and query tuning")},
		Styles: []discover.Item{it(discover.OutputStyle, "Architect", "Frame the problem"),
			it(discover.OutputStyle, "Devils-Advocate", "Challenge assumptions"),
			it(discover.OutputStyle, "Simplifier", "Find the simpler path")},
	}
}

// fakeOllama answers /api/generate with the given model response, or with
// status, or sleeps.
func fakeOllama(t *testing.T, response string, status int, delay time.Duration, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model, Prompt, Format string
			Stream                bool
		}
		if r.URL.Path != "/api/generate" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Stream || req.Format != "json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if !strings.Contains(req.Prompt, "security-expert") || !strings.Contains(req.Prompt, "Devils-Advocate") {
			http.Error(w, "prompt lacks the catalog", http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		if status != http.StatusOK {
			http.Error(w, "model not found", status)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "response": response, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSelect(t *testing.T) {
	ctx := context.Background()
	cat := catalog()
	req := SelectRequest{Topic: "Session tokens", Thought: "What could an attacker do with leaked auth tokens?", Kind: Counter}
	good := `{"agent":"security-expert","style":"devils-advocate","model":"opus","reasoning":"token theft is a security question"}`
	cases := []struct {
		name     string
		response string
		status   int
		source   string
		note     string
	}{
		{"ollama answers", good, 200, FromOllama, ""},
		{"agent not discovered", `{"agent":"hacker","style":"Architect","model":"opus","reasoning":"x"}`, 200, FromHeuristics, `agent "hacker" is not discovered`},
		{"style not discovered", `{"style":"Poet","reasoning":"x"}`, 200, FromHeuristics, `output style "Poet" is not discovered`},
		{"unknown model", `{"model":"gpt-5","reasoning":"x"}`, 200, FromHeuristics, "not one of haiku"},
		{"no reasoning", `{"model":"opus"}`, 200, FromHeuristics, "no reasoning"},
		{"not JSON", `I think Architect`, 200, FromHeuristics, "not the JSON"},
		{"error status", good, 404, FromHeuristics, "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := fakeOllama(t, c.response, c.status, 0, &calls)
			sel, note := Select(ctx, req, cat, &Ollama{Endpoint: srv.URL, Model: "gemma3:4b"}, nil)
			if sel.Source != c.source || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
				t.Fatalf("selection %+v note %q", sel, note)
			}
			if err := sel.Validate(cat); err != nil {
				t.Errorf("returned an invalid selection: %v", err)
			}
			if c.source == FromOllama && (sel.Style != "Devils-Advocate" || sel.Label() != "(via ollama)") {
				t.Errorf("ollama selection %+v %s", sel, sel.Label())
			}
		})
	}
	hs := Heuristics(req, cat)
	if hs.Agent != "security-expert" || hs.Style != "Devils-Advocate" || hs.Model != "opus" ||
		hs.Label() != "(via heuristics - ollama unavailable)" || !strings.Contains(hs.Reasoning, "security") {
		t.Errorf("heuristics %+v", hs)
	}
	// A style already used gives way to another that fits.
	if h := Heuristics(SelectRequest{Topic: "x", Thought: "simplify", Kind: Thought, UsedStyles: []string{"Simplifier"}}, cat); h.Style != "Architect" {
		t.Errorf("used style chosen again: %+v", h)
	}
	// Nothing discovered: only a model, never an invented name.
	if h := Heuristics(req, Catalog{}); h.Agent != "" || h.Style != "" || h.Model == "" {
		t.Errorf("empty catalog: %+v", h)
	}
}

func TestSelectBreakerAndTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 15 s Ollama timeout")
	}
	ctx := context.Background()
	cat := catalog()
	req := SelectRequest{Topic: "t", Thought: "security of tokens", Kind: Thought}
	root := t.TempDir()
	var calls atomic.Int32
	srv := fakeOllama(t, "", 500, 0, &calls)
	o := &Ollama{Endpoint: srv.URL, Model: "m"}
	for i := 0; i < BreakerThreshold; i++ {
		br, _ := NewBreakers(root, "s", nil)
		if sel, note := Select(ctx, req, cat, o, br); sel.Source != FromHeuristics || !strings.Contains(note, "500") {
			t.Fatalf("failure %d: %+v %q", i, sel, note)
		}
	}
	br, _ := NewBreakers(root, "s", nil)
	if _, note := Select(ctx, req, cat, o, br); !strings.Contains(note, "circuit open") || calls.Load() != BreakerThreshold {
		t.Fatalf("after %d failures: %q, %d calls", BreakerThreshold, note, calls.Load())
	}
	// A hanging endpoint is given up after OllamaTimeout.
	var slowCalls atomic.Int32
	slow := fakeOllama(t, "", 200, time.Minute, &slowCalls)
	start := time.Now()
	sel, note := Select(ctx, req, cat, &Ollama{Endpoint: slow.URL, Model: "m"}, nil)
	if el := time.Since(start); el < OllamaTimeout || el > OllamaTimeout+5*time.Second || sel.Source != FromHeuristics || note == "" {
		t.Errorf("slow ollama: %s, %+v, %q", el, sel, note)
	}
}

func TestOllamaConfig(t *testing.T) {
	root := t.TempDir()
	if o, err := OllamaConfig(root); o != nil || err != nil {
		t.Errorf("no file: %+v %v", o, err)
	}
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	p := filepath.Join(root, ".claude", "memory.local.md")
	os.WriteFile(p, []byte("---\nollama_host: http://192.168.1.100:11434/\n---\n"), 0o644)
	if o, err := OllamaConfig(root); err != nil || o.Endpoint != "http://192.168.1.100:11434" || o.Model != DefaultChatModel {
		t.Errorf("configured: %+v %v", o, err)
	}
	os.WriteFile(p, []byte("---\nollama_host: file:///etc\n---\n"), 0o644)
	if _, err := OllamaConfig(root); err == nil {
		t.Error("file URL accepted")
	}
}
