package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/store"
)

// TestWholeFileScoresSmallCorpus: in a workspace of a few files, words found
// in most of them still count. With FTS5's IDF (floored at zero above half
// of the corpus) the one file holding only the message's rarest word would
// outrank the file that holds three of its four words.
func TestWholeFileScoresSmallCorpus(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	// session, cookie and redirect are each in three of the five files.
	src := map[string]string{
		"sessions.py": "def merge_cookies(session, cookie, redirect):\n    return session.cookie.redirect\n",
		"cookies.py":  "def extract_cookie(session, cookie):\n    return session.cookie\n",
		"hooks.py":    "def dispatch(session, redirect):\n    return session.redirect\n",
		"adapters.py": "def send(cookie, redirect):\n    return cookie.redirect\n",
		"status.py":   "def proxy_bypass(jar, host, port, scheme):\n    return host + port + scheme\n",
	}
	for p, c := range src {
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(ctx, st, index.Options{Root: root, Config: config.Default()}); err != nil {
		t.Fatal(err)
	}
	terms := []string{"session", "cookie", "redirect", "jar"}
	ids := map[string]int64{}
	for p := range src {
		f, ok, err := st.FileByPath(ctx, p)
		if err != nil || !ok {
			t.Fatalf("file %s: %v", p, err)
		}
		ids[p] = f.ID
	}
	scores, err := wholeFileScores(ctx, st, store.CorpusSource, terms, map[string]int{"session": 3, "cookie": 3, "redirect": 3, "jar": 1}, 10, maxExactPostings)
	if err != nil {
		t.Fatal(err)
	}
	if scores[ids["sessions.py"]] <= scores[ids["status.py"]] {
		t.Errorf("sessions.py %g <= status.py %g", scores[ids["sessions.py"]], scores[ids["status.py"]])
	}
	// FTS5's bm25(), the ranking beyond the budget, orders them the other
	// way (what the exact score is for).
	fts, err := wholeFileScores(ctx, st, store.CorpusSource, terms, map[string]int{"session": 3, "cookie": 3, "redirect": 3, "jar": 1}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fts[ids["sessions.py"]] >= fts[ids["status.py"]] {
		t.Errorf("bm25(): sessions.py %g >= status.py %g", fts[ids["sessions.py"]], fts[ids["status.py"]])
	}
}

func TestSizePrior(t *testing.T) {
	tests := []struct {
		bytes int64
		want  float64
	}{
		{0, 0},
		{-1, 0},
		{1<<20 - 1, 1},
		{1 << 30, 1},
	}
	for _, tc := range tests {
		if got := sizePrior(tc.bytes); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("sizePrior(%d) = %g, want %g", tc.bytes, got, tc.want)
		}
	}
	if small, large := sizePrior(2_000), sizePrior(60_000); !(0 < small && small < large && large < 1) {
		t.Errorf("sizePrior(2 kB) = %g, sizePrior(60 kB) = %g: want 0 < small < large < 1", small, large)
	}
}

// TestAsideRankedOnlyWhereItCanShow: a focused request that is not about
// tests or docs leaves the aside corpus (tests, docs, third-party code)
// unranked, since no demoted file can reach its focus, unless the source
// corpus matched nothing; every other request ranks it as before.
func TestAsideRankedOnlyWhereItCanShow(t *testing.T) {
	root := t.TempDir()
	all := map[string]string{
		"auth/service_test.go": `package auth

import "testing"

// lockoutClock counts the failed password logins of a user in the store.
func lockoutClock(user string) int { return 0 }

func retryBudget(user string) int { return 3 }

func TestLoginLockout(t *testing.T) { lockoutClock("a"); retryBudget("a") }
`,
		// Tests that share no word with the prompts: FTS5's IDF, which
		// ranks the aside corpus, is zero for a word in half of it.
		"billing/render_test.go": "package billing\n\nfunc TestRenderPDF(t *testing.T) {}\n",
		"billing/total_test.go":  "package billing\n\nfunc TestMonthlyTotal(t *testing.T) {}\n",
	}
	for p, c := range files {
		all[p] = c
	}
	wstest.Write(t, root, all)
	st := wstest.Open(t, root)
	const testFile = "auth/service_test.go"
	const prompt = "the login should check the password hash in the user store"
	tests := []struct {
		name      string
		req       Request
		wantAside bool // the test file has a whole-file score
	}{
		{"prompt not about tests", ForPrompt(prompt, 10), false},
		{"query", Request{Text: prompt, Limit: 10, MinRelevance: -1}, true},
		{"prompt about tests", ForPrompt("the login tests should check the password hash in the user store", 10), true},
		{"prompt only the aside corpus matches", ForPrompt("lockout clock retry budget", 10), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Query(context.Background(), st, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var sig *FileSignals
			for _, f := range resp.Files {
				if f.Path == testFile {
					sig = f.Signals
				}
			}
			if sig == nil {
				t.Fatalf("%s is not among the files %+v (abstained %v: %s)", testFile, resp.Files, resp.Abstain, resp.Reason)
			}
			if got := sig.Whole > 0; got != tt.wantAside {
				t.Errorf("%s: whole-file score %g, want one: %v", testFile, sig.Whole, tt.wantAside)
			}
		})
	}
}

func TestHidesAside(t *testing.T) {
	ceiling := asideCeiling()
	tests := []struct {
		name  string
		files []FileResult
		want  bool
	}{
		{"none", nil, false},
		// The best source file's whole-file signal with a middling size
		// prior must keep every demoted file out of the focus, or the
		// shortcut rarely applies. (The whole-file signal alone no longer
		// does since recency raised the ceiling to 0.665; on the 815 dev
		// cases the best file never scored below ceiling/focusScoreShare.)
		{"a file with the best whole-file score", []FileResult{{Path: "a.go", Score: fwWhole + 0.5*fwSize}}, true},
		{"a demoted file first", []FileResult{{Path: "a_test.go", Score: ceiling}}, false},
		{"just below the share", []FileResult{{Path: "a.go", Score: ceiling / focusScoreShare}}, false},
		{"just above the share", []FileResult{{Path: "a.go", Score: ceiling/focusScoreShare + 1e-9}}, true},
		{"prose is passed over", []FileResult{{Path: "README.md", Score: 10}, {Path: "a.go", Score: ceiling}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hidesAside(tt.files); got != tt.want {
				t.Errorf("hidesAside = %v, want %v (ceiling %g)", got, tt.want, ceiling)
			}
		})
	}
}
