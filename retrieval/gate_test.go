package retrieval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/store"
)

// gateWorkspace is the test workspace plus prose that shares its words.
func gateWorkspace(t *testing.T) *store.Store {
	t.Helper()
	all := map[string]string{
		"CHANGELOG.md": "# Changelog\n\n## Login retries continue the user session\n\nPassword checks now continue after a retry; thanks to everyone, looks good.\n",
	}
	for p, c := range files {
		all[p] = c
	}
	_, st := wstest.Indexed(t, all)
	return st
}

func TestPromptGate(t *testing.T) {
	st := gateWorkspace(t)
	carried := []analyzer.Trigger{{Type: analyzer.TriggerSymbol, Relevance: CarriedRelevance, Query: "AuthService"}}
	cases := []struct {
		name     string
		text     string
		carried  bool // triggers of earlier prompts in the session
		want     bool // context expected
		wantPath string
	}{
		{name: "continuation", text: "yes please continue"},
		{name: "thanks", text: "thanks, that looks good"},
		{name: "ok", text: "ok"},
		{name: "off-topic", text: "write a haiku about autumn"},
		{name: "off-topic mid-session", text: "write a haiku about autumn", carried: true},
		{name: "continuation mid-session", text: "continue", carried: true},
		{name: "punctuation", text: "!!!???..."},
		{name: "emoji", text: "🙂🙂🙂👍"},
		{name: "another language", text: "¿Qué tiempo hace hoy en Madrid?"},
		{name: "code words", text: "the login should check the password hash in the user store", want: true, wantPath: "auth/"},
		{name: "named symbol", text: "why does issueToken prefix the user", want: true, wantPath: "auth/service.go"},
		{name: "one declared word", text: "Login", want: true, wantPath: "auth/service.go"},
		{name: "code prompt mid-session", text: "render the invoice total as PDF bytes", carried: true, want: true, wantPath: "billing/"},
		// Three words declared here, one by one: a general question near
		// the repository's domain, not a request about its code.
		{name: "three scattered code words", text: "how should I hash a password on a login page"},
		{name: "three scattered code words mid-session", text: "how should I hash a password on a login page", carried: true},
		// The same three, two of them spelling UserStore: the code's own
		// compound.
		{name: "three code words, one name spelled", text: "the user store check is slow", want: true, wantPath: "auth/store.go"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := ForPrompt(tc.text, 10)
			if tc.carried {
				req.Triggers = carried
			}
			resp, err := Query(context.Background(), st, req)
			if err != nil {
				t.Fatal(err)
			}
			got := !resp.Abstain && len(resp.Results) > 0
			if got != tc.want {
				t.Fatalf("context given = %v, want %v (reason %q, %d results)", got, tc.want, resp.Reason, len(resp.Results))
			}
			if tc.want {
				found := false
				for _, r := range resp.Results[:min(3, len(resp.Results))] {
					found = found || strings.HasPrefix(r.Entity.Path, tc.wantPath)
				}
				if !found {
					t.Errorf("no result under %s among the first three: %s first", tc.wantPath, resp.Results[0].Entity.Path)
				}
			}
			if !tc.want && resp.Reason == "" {
				t.Error("abstained without a reason")
			}
		})
	}
}

// TestGateEvidence counts the evidence of the code's vocabulary a message
// carries when it names no code: words naming declarations, a spelled
// name, a directory's name.
func TestGateEvidence(t *testing.T) {
	_, st := wstest.Indexed(t, map[string]string{
		"middleware/limiter.ts": "export class Bucket { tokens = 0 }\n\nexport function limitRate(bucket: Bucket): boolean {\n  return bucket.tokens > 0\n}\n",
		"auth/store.go":         files["auth/store.go"],
	})
	ctx := context.Background()
	for _, tc := range []struct {
		text string
		want int
	}{
		{"how do I rate limit a bucket", 3},                 // three scattered words
		{"the middleware should rate limit each bucket", 4}, // and the directory they live in
		{"the user store check is slow", 4},                 // three words, two spelling UserStore
		{"rate limit ignores bucket.tokens", 4},             // three words and an identifier the code holds
		{"write a haiku about autumn", 0},
	} {
		t.Run(tc.text, func(t *testing.T) {
			terms := analyzer.Terms(tc.text)
			df, _, err := st.TermStats(ctx, terms)
			if err != nil {
				t.Fatal(err)
			}
			slices.SortStableFunc(terms, func(a, b string) int { return df[a] - df[b] })
			spells, err := phraseMatches(ctx, st, tc.text, df, func(int64) *cand { return &cand{matched: map[string]float64{}} })
			if err != nil {
				t.Fatal(err)
			}
			got, err := gateEvidence(ctx, st, slices.Compact(terms), df, spells, identTerms(analyzer.Message(tc.text)))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("evidence = %d, want %d", got, tc.want)
			}
			resp, err := Query(ctx, st, ForPrompt(tc.text, 10))
			if err != nil {
				t.Fatal(err)
			}
			if passed := !resp.Abstain; passed != (tc.want >= promptEvidence) {
				t.Errorf("gate passed = %v with evidence %d (reason %q)", passed, got, resp.Reason)
			}
		})
	}
}

func TestPromptLeavesProseOutUnlessAsked(t *testing.T) {
	st := gateWorkspace(t)
	for _, tc := range []struct {
		text      string
		wantProse bool
	}{
		{"login retries should continue the user session after a password check", false},
		{"update the changelog docs: login retries continue the user session after a password check", true},
	} {
		resp, err := Query(context.Background(), st, ForPrompt(tc.text, 10))
		if err != nil {
			t.Fatal(err)
		}
		prose := false
		for _, r := range resp.Results {
			prose = prose || isProse(r.Entity.Path)
		}
		if prose != tc.wantProse {
			t.Errorf("%q: prose among %d results = %v, want %v", tc.text, len(resp.Results), prose, tc.wantProse)
		}
	}
}

func TestFocusDropsDistantFiles(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		want   []string // the focus's files
		brief  []string // the files named in brief
	}{
		{"close scores keep three files", []float64{1, 0.9, 0.8}, []string{"a.go", "b.go", "c.go"}, nil},
		{"a distant third is named in brief", []float64{1, 0.7, 0.5}, []string{"a.go", "b.go"}, []string{"c.go"}},
		{"a distant second ends the focus", []float64{1, 0.3, 0.3, 0.3, 0.3}, []string{"a.go"}, []string{"b.go", "c.go", "d.go"}},
		{"files past the fourth are left out", []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5}, []string{"a.go", "b.go", "c.go"}, []string{"d.go"}},
	}
	// Two candidates in each file: the best file keeps both, the others
	// their best one.
	const perFileCandidates = 2
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []FileResult
			var results []Result
			for i, sc := range tt.scores {
				p := string(rune('a'+i)) + ".go"
				files = append(files, FileResult{Path: p, Score: sc, Relevance: 1})
				for k := range perFileCandidates {
					results = append(results, Result{Entity: store.Entity{ID: int64(10*i + k + 1), Path: p, Name: "F"}, Score: sc})
				}
			}
			got, err := focusOnFiles(context.Background(), nil, results, files, nil, 2)
			if err != nil {
				t.Fatal(err)
			}
			var paths, brief []string
			for _, r := range got {
				if r.Detail == DetailBrief {
					brief = append(brief, r.Entity.Path)
				} else {
					paths = append(paths, r.Entity.Path)
				}
			}
			// The best file's entities come first, both of them.
			want := append([]string{tt.want[0]}, tt.want...)
			if !slices.Equal(paths, want) {
				t.Errorf("focus = %v, want %v", paths, want)
			}
			if !slices.Equal(brief, tt.brief) {
				t.Errorf("named in brief = %v, want %v", brief, tt.brief)
			}
		})
	}
}

// TestItemDetail: an entity in full shows its code and neighbourhood,
// short the first half of its code alone, brief its header alone.
func TestItemDetail(t *testing.T) {
	body := "package greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n"
	for i := range 10 {
		body += fmt.Sprintf("\tname = trim%d(name)\n", i)
	}
	body += "\treturn helper(name)\n}\n\nfunc helper(s string) string { return s }\n\nfunc Use() string { return Greet(\"x\") }\n"
	for i := range 10 {
		body += fmt.Sprintf("\nfunc trim%d(s string) string { return s }\n", i)
	}
	root, st := wstest.Indexed(t, map[string]string{"greet/greet.go": body})
	ctx := context.Background()
	tests := []struct {
		detail    Detail
		want, not []string
	}{
		{DetailFull, []string{"### function `greet.Greet` — greet/greet.go:4", "> Greet says hello.", "name = trim7(name)", "calls: ", "used by: greet.Use"}, nil},
		{DetailShort, []string{"### function `greet.Greet` — greet/greet.go:4", "name = trim3(name)"}, []string{"trim7(name)", "calls: ", "used by: "}},
		{DetailBrief, []string{"### function `greet.Greet` — greet/greet.go:4"}, []string{"func Greet", "Greet says hello", "calls: ", "used by: "}},
	}
	for _, tt := range tests {
		req := Request{Text: "Greet", MinRelevance: -1}
		resp, err := Query(ctx, st, req)
		if err != nil || len(resp.Results) == 0 || resp.Results[0].Entity.Name != "Greet" {
			t.Fatalf("query: %v, %+v", err, resp)
		}
		resp.Results = resp.Results[:1]
		resp.Results[0].Detail = tt.detail
		c, err := Assemble(ctx, st, req, resp, ContextOptions{Root: root, MaxTokens: 4000, MaxSections: 10})
		if err != nil {
			t.Fatal(err)
		}
		checkShown(t, fmt.Sprintf("detail %d", tt.detail), c.Markdown, tt.want, tt.not)
	}
}

// An item says each thing once: a docstring the excerpt shows is not quoted
// above it too (a doc comment outside the span still is), and a caller that
// calls twice is named once. Its calls list the workspace's first.
func TestItemSaysItOnce(t *testing.T) {
	root, st := wstest.Indexed(t, map[string]string{
		"greet/greet.go": "package greet\n\n// Greet says hello to a visitor.\nfunc Greet(name string) string { return name }\n\n" +
			"func Use() string { return Greet(\"a\") + Greet(\"b\") }\n",
		"wave/wave.py": "def wave(name):\n    \"\"\"Waves at a visitor by name.\"\"\"\n    return name\n\n\n" +
			"def welcome():\n    return wave(\"a\") + wave(\"b\")\n",
		"busy/busy.py": "def busy(x):\n    a = len(x)\n    b = str(a)\n    c = repr(b)\n    d = sorted(c)\n    e = list(d)\n" +
			"    f = tuple(e)\n    g = min(f)\n    h = max(f)\n    i = abs(g)\n    return helper(i)\n\n\ndef helper(v):\n    return v\n",
	})
	ctx := context.Background()
	tests := []struct {
		query, name, once string
		want, not         []string
	}{
		{"Greet", "Greet", "Greet says hello to a visitor.", []string{"> Greet says hello to a visitor.", "used by: greet.Use\n"}, []string{"greet.Use, greet.Use"}},
		{"wave", "wave", "Waves at a visitor by name.", []string{`"""Waves at a visitor by name."""`, "used by: welcome\n"}, []string{"> Waves at", "welcome, welcome"}},
		// The workspace's helper first, though nine builtins come before it.
		{"busy", "busy", "def busy(x):", []string{"calls: helper, len, "}, nil},
	}
	for _, tt := range tests {
		req := Request{Text: tt.query, MinRelevance: -1}
		resp, err := Query(ctx, st, req)
		if err != nil || len(resp.Results) == 0 || resp.Results[0].Entity.Name != tt.name {
			t.Fatalf("query %q: %v, %+v", tt.query, err, resp)
		}
		resp.Results = resp.Results[:1]
		c, err := Assemble(ctx, st, req, resp, ContextOptions{Root: root, MaxTokens: 4000, MaxSections: 10})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(c.Markdown, tt.once); n != 1 {
			t.Errorf("%s: %q appears %d times:\n%s", tt.name, tt.once, n, c.Markdown)
		}
		checkShown(t, tt.name, c.Markdown, tt.want, tt.not)
	}
}

// checkShown checks that markdown holds every string of want and none of
// not.
func checkShown(t *testing.T, what, markdown string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(markdown, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, markdown)
		}
	}
	for _, n := range not {
		if strings.Contains(markdown, n) {
			t.Errorf("%s shows %q:\n%s", what, n, markdown)
		}
	}
}

// A ranked file with no candidate stands in by its declaration that best
// matches the message, not by an outline that names only its class.
func TestFileStandIn(t *testing.T) {
	src := `package org.example;

/** An attribute of an element. */
public class Attribute {
    private String key;
    private String value;

    /** Returns the key. */
    public String getKey() { return key; }

    /** Writes the value, escaping quotes and angle brackets. */
    void escapeValue(StringBuilder out) {
        for (char c : value.toCharArray()) {
            if (c == '<') out.append("&lt;"); else out.append(c);
        }
    }
}
`
	other := strings.ReplaceAll(strings.ReplaceAll(src, "Attribute", "Property"), "escapeValue", "quoteValue")
	_, st := wstest.Indexed(t, map[string]string{
		"src/main/java/org/example/Attribute.java": src,
		"src/main/java/org/example/Property.java":  other,
	})
	ctx := context.Background()
	f := FileResult{Path: "src/main/java/org/example/Attribute.java", Score: 2, Relevance: 0.4}
	terms := analyzer.Terms("escape the value when serializing")
	tests := []struct {
		best     bool
		terms    []string
		wantKind string
		wantName string
	}{
		{true, terms, "method", "escapeValue"},
		{false, terms, "file", "Attribute.java"},
		{true, analyzer.Terms("nothing here matches"), "file", "Attribute.java"},
	}
	for _, tt := range tests {
		r, ok, err := fileStandIn(ctx, st, f, tt.terms, tt.best)
		if err != nil || !ok {
			t.Fatalf("fileStandIn(%v, %v) = %v, %v", tt.terms, tt.best, ok, err)
		}
		if r.Entity.Kind != tt.wantKind || r.Entity.Name != tt.wantName {
			t.Errorf("fileStandIn(%v, best file %v) = %s %s, want %s %s", tt.terms, tt.best, r.Entity.Kind, r.Entity.Name, tt.wantKind, tt.wantName)
		}
		if r.Score != f.Score || r.Relevance != f.Relevance {
			t.Errorf("stand-in scored %v / %v, want the file's %v / %v", r.Score, r.Relevance, f.Score, f.Relevance)
		}
	}
	// In the focus, the best file stands in by its code, the next by its
	// outline.
	files := []FileResult{f, {Path: "src/main/java/org/example/Property.java", Score: 1.9, Relevance: 0.4}}
	got, err := focusOnFiles(ctx, st, nil, files, terms, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, r := range got {
		shown = append(shown, r.Entity.Kind+" "+r.Entity.Name)
	}
	if want := []string{"method escapeValue", "file Property.java"}; !slices.Equal(shown, want) {
		t.Errorf("focus = %v, want %v", shown, want)
	}
}
