package retrieval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wstest"
)

var files = map[string]string{
	"auth/service.go": `package auth

// AuthService checks credentials against the user store.
type AuthService struct{ users UserStore }

// Login verifies a password and returns a session token.
func (a *AuthService) Login(user, password string) (string, error) {
	if !a.users.Check(user, password) {
		return "", ErrDenied
	}
	return issueToken(user), nil
}

func issueToken(user string) string { return "t-" + user }
`,
	"auth/store.go": `package auth

// UserStore keeps password hashes.
type UserStore struct{ hashes map[string]string }

// Check compares a password with the stored hash.
func (s UserStore) Check(user, password string) bool { return s.hashes[user] == hash(password) }

func hash(p string) string { return p }
`,
	"billing/invoice.go": `package billing

// Invoice is a bill sent to a customer each month.
type Invoice struct{ Total int }

// Render formats an invoice as PDF bytes for the customer.
func (i Invoice) Render() []byte { return nil }
`,
	"billing/invoice_test.go": `package billing

import "testing"

func TestRender(t *testing.T) { Invoice{}.Render() }
`,
}

func TestQueryRanking(t *testing.T) {
	_, st := wstest.Indexed(t, files)
	tests := []struct {
		name, text string
		active     []string
		wantFile   string
		wantEntity string
	}{
		{"qualified symbol", "why does AuthService.Login fail?", nil, "auth/service.go", "auth.AuthService.Login"},
		{"natural language", "how are invoices rendered as pdf for customers", nil, "billing/invoice.go", "billing.Invoice.Render"},
		{"path", "look at auth/store.go please", nil, "auth/store.go", ""},
		{"error location", "auth/store.go:7: invalid operation", nil, "auth/store.go", "auth.UserStore.Check"},
		{"graph: callee of a named symbol", "the password check in Login", nil, "auth/service.go", ""},
		{"active file breaks a tie", "hash", []string{"auth/store.go"}, "auth/store.go", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Query(context.Background(), st, Request{Text: tt.text, ActiveFiles: tt.active, Limit: 5, MinRelevance: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Files) == 0 || resp.Files[0].Path != tt.wantFile {
				t.Fatalf("files = %+v, want %s first", resp.Files, tt.wantFile)
			}
			if tt.wantEntity != "" && (len(resp.Results) == 0 || resp.Results[0].Entity.QName != tt.wantEntity) {
				var got []string
				for _, r := range resp.Results {
					got = append(got, r.Entity.QName)
				}
				t.Fatalf("results = %v, want %s first", got, tt.wantEntity)
			}
			for i := 1; i < len(resp.Files); i++ {
				if resp.Files[i].Score > resp.Files[i-1].Score {
					t.Fatalf("files not sorted: %+v", resp.Files)
				}
			}
		})
	}
}

func TestTestsRankBelowCodeUnlessAsked(t *testing.T) {
	_, st := wstest.Indexed(t, files)
	resp, _ := Query(context.Background(), st, Request{Text: "Invoice Render", Limit: 5, MinRelevance: -1})
	if resp.Files[0].Path != "billing/invoice.go" {
		t.Fatalf("files = %+v", resp.Files)
	}
	resp, _ = Query(context.Background(), st, Request{Text: "the TestRender test of Invoice Render", Limit: 5, MinRelevance: -1})
	if resp.Files[0].Path != "billing/invoice_test.go" {
		t.Fatalf("a question about the test: files = %+v", resp.Files)
	}
}

func TestAbstain(t *testing.T) {
	_, st := wstest.Indexed(t, files)
	for _, text := range []string{
		"write a short poem about autumn leaves",
		"what is the capital of France",
		"thanks, that looks great!",
	} {
		resp, err := Query(context.Background(), st, Request{Text: text, MinRelevance: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Abstain || len(resp.Files) != 0 || len(resp.Results) != 0 {
			t.Errorf("%q: not abstained: %+v", text, resp.Files)
		}
	}
	resp, _ := Query(context.Background(), st, Request{Text: "AuthService Login", MinRelevance: 0.5})
	if resp.Abstain {
		t.Errorf("a query naming code abstained: %s", resp.Reason)
	}
	// An open file ranks results but does not make small talk relevant.
	for _, text := range []string{"hi", "write a short poem about autumn leaves"} {
		resp, _ = Query(context.Background(), st, Request{Text: text, ActiveFiles: []string{"auth/service.go"}, MinRelevance: 0.5})
		if !resp.Abstain {
			t.Errorf("%q with an active file: not abstained: %+v", text, resp.Files)
		}
	}
}

func TestAssembleBudget(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	req := Request{Text: "AuthService Login password check token", Limit: 30, MinRelevance: -1}
	resp, err := Query(context.Background(), st, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{60, 200, 4000} {
		c, err := Assemble(context.Background(), st, req, resp, ContextOptions{Root: root, MaxTokens: budget, MaxSections: 10})
		if err != nil {
			t.Fatal(err)
		}
		if c.Tokens > budget {
			t.Errorf("budget %d: %d tokens", budget, c.Tokens)
		}
		if !strings.HasPrefix(c.Markdown, "<auto-context>\n") || !strings.HasSuffix(c.Markdown, "</auto-context>\n") {
			t.Errorf("not wrapped: %q", c.Markdown)
		}
		seen := map[string]bool{}
		for _, s := range c.Sections {
			for _, it := range s.Items {
				key := it.Path + "#" + it.QName
				if seen[key] {
					t.Errorf("duplicate item %s", key)
				}
				seen[key] = true
				src := files[it.Path]
				for _, line := range strings.Split(it.Excerpt, "\n") {
					if line != "" && !strings.Contains(src, strings.TrimRight(line, "…")) {
						t.Errorf("excerpt line %q not a whole source line", line)
					}
				}
			}
		}
		if budget == 4000 && !strings.Contains(c.Markdown, "func (a *AuthService) Login") {
			t.Errorf("large budget lacks Login's excerpt:\n%s", c.Markdown)
		}
	}
}

func TestEmptyAndHostileQueries(t *testing.T) {
	_, st := wstest.Indexed(t, files)
	for _, text := range []string{"", "   ", "\xff\xfe\x00garbage", strings.Repeat("AuthService ", 5000)} {
		if _, err := Query(context.Background(), st, Request{Text: text, MinRelevance: 0.5}); err != nil {
			t.Errorf("Query(%.20q): %v", text, err)
		}
	}
}

func TestAsksAbout(t *testing.T) {
	tests := []struct {
		text string
		want asks
	}{
		{"fix TestParse on windows", asks{tests: true}},
		{"the tests for the parser are flaky", asks{tests: true}},
		{"bump to the latest release", asks{}}, // "latest" is not "test"
		{"protest against contested locks", asks{}},
		{"update the README and the docs", asks{docs: true}},
		{"add an example of retries", asks{docs: true}},
		{"the docker image fails to build", asks{build: true}}, // "docker" is not "doc"
		{"add chardet to the install requirements", asks{build: true}},
		{"the package requires a dependency", asks{}},
		{"the webpack bundle is too large", asks{build: true}},
		{"Include the system name and version in the default user agent", asks{}},
	}
	for _, tt := range tests {
		if got := asksAbout(tt.text); got != tt.want {
			t.Errorf("asksAbout(%q) = %+v, want %+v", tt.text, got, tt.want)
		}
	}
}

// A build script names the project's modules and dependencies; a change to
// what they do belongs in them, not in the script, unless the message is
// about building.
func TestBuildScriptRanksBelowSourceUnlessAsked(t *testing.T) {
	_, st := wstest.Indexed(t, map[string]string{
		"setup.py": `from setuptools import setup

requires = ["chardet>=3.0.2", "urllib3>=1.21.1", "certifi"]

setup(
    name="requests",
    packages=["requests"],
    install_requires=requires,
    extras_require={"security": ["pyOpenSSL>=0.14"], "socks": ["PySocks>=1.5.6"]},
)
`,
		"requests/packages.py": `import sys

# This code exists for backwards compatibility reasons.
for package in ("urllib3", "idna", "chardet"):
    locals()[package] = __import__(package)
    for mod in list(sys.modules):
        if mod == package or mod.startswith(package + "."):
            sys.modules["requests.packages." + mod] = sys.modules[mod]
`,
		"requests/api.py": `def request(method, url, **kwargs):
    return method, url
`,
	})
	for _, tt := range []struct {
		text, want string
		demotion   float64 // of setup.py
	}{
		{"map every chardet package to requests.packages.chardet", "requests/packages.py", fileDocDemotion},
		{"add chardet to what setup installs", "setup.py", 1},
	} {
		resp, err := Query(context.Background(), st, Request{Text: tt.text, Limit: 5, MinRelevance: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Files) == 0 || resp.Files[0].Path != tt.want {
			t.Errorf("%q: files = %+v, want %s first", tt.text, resp.Files, tt.want)
		}
		i := slices.IndexFunc(resp.Files, func(f FileResult) bool { return f.Path == "setup.py" })
		if i < 0 || resp.Files[i].Signals == nil || resp.Files[i].Signals.Demotion != tt.demotion {
			t.Errorf("%q: setup.py not among the files or not demoted by %v: %+v", tt.text, tt.demotion, resp.Files)
		}
	}
}

// A message that describes behaviour in words the code uses throughout one
// file ranks that file first, above a file with a single declaration named
// by one of the words; the file's signals explain the score.
func TestFilesRankedByWholeFileEvidence(t *testing.T) {
	_, st := wstest.Indexed(t, files)
	resp, err := Query(context.Background(), st, Request{Text: "the password of a user is compared with a stored hash", Limit: 5, MinRelevance: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Files) == 0 || resp.Files[0].Path != "auth/store.go" {
		t.Fatalf("files = %+v, want auth/store.go first", resp.Files)
	}
	s := resp.Files[0].Signals
	if s == nil || s.Whole != 1 || s.Demotion != 1 {
		t.Fatalf("signals of the best file = %+v, want whole-file evidence 1 and no demotion", s)
	}
	if got := fileScore(*s); got != resp.Files[0].Score {
		t.Fatalf("score %v is not the fusion of its signals (%v)", resp.Files[0].Score, got)
	}
}

// Whole-file evidence is measured within a corpus: a test that repeats the
// message's words more than any source file does not set the scale for the
// source (its statistics are kept apart), yet it is still listed, demoted,
// when the message is not about tests.
func TestWholeFileEvidenceMeasuredWithinCorpus(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	test := "package auth\n\nimport \"testing\"\n\n// Each password is compared, compared again and compared once more with its stored hash.\nfunc TestCheck(t *testing.T) { UserStore{}.Check(\"user\", \"password\") }\n"
	if err := os.WriteFile(filepath.Join(root, "auth/store_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	// Unrelated code, so that the message's words are not common among
	// the index's declarations (the whole-file query skips those).
	os.MkdirAll(filepath.Join(root, "misc"), 0o755)
	for i := range 12 {
		src := fmt.Sprintf("package misc\n\n// Shape%[1]d draws shape number %[1]d.\nfunc Shape%[1]d() {}\n\n// Color%[1]d paints it.\nfunc Color%[1]d() {}\n", i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("misc/shape%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if _, err := index.Run(ctx, st, index.Options{Root: root, Config: config.Default()}); err != nil {
		t.Fatal(err)
	}
	resp, err := Query(ctx, st, Request{Text: "the password of a user is compared with a stored hash", Limit: 5, MinRelevance: -1})
	if err != nil {
		t.Fatal(err)
	}
	var testFile *FileResult
	for i := range resp.Files {
		if resp.Files[i].Path == "auth/store_test.go" {
			testFile = &resp.Files[i]
		}
	}
	if len(resp.Files) == 0 || resp.Files[0].Path != "auth/store.go" || resp.Files[0].Signals.Whole != 1 {
		t.Fatalf("files = %+v, want auth/store.go first with whole-file evidence 1", resp.Files)
	}
	if testFile == nil || testFile.Signals.Demotion != fileTestDemotion || testFile.Signals.Whole != 1 {
		t.Fatalf("the test: %+v %+v, want it listed, best of its corpus and demoted", testFile, testFile.Signals)
	}
}

// A JavaScript library's declaration file repeats its whole API in types;
// a change to a behaviour belongs in the implementation.
func TestDeclarationFileRanksBelowItsImplementation(t *testing.T) {
	_, st := wstest.Indexed(t, map[string]string{
		"index.d.ts": `export interface AxiosResponse<T = any> {
  data: T;
  status: number;
}
export interface AxiosInterceptorManager<V> {
  use(onFulfilled?: (value: V) => V, onRejected?: (error: any) => any): number;
  eject(id: number): void;
}
export class Axios {
  interceptors: {
    request: AxiosInterceptorManager<AxiosRequestConfig>;
    response: AxiosInterceptorManager<AxiosResponse>;
  };
  request<T = any, R = AxiosResponse<T>>(config: AxiosRequestConfig): Promise<R>;
}
export interface AxiosRequestConfig {
  url?: string;
}
`,
		"lib/core/Axios.js": `function Axios(instanceConfig) {
  this.defaults = instanceConfig;
  this.interceptors = {
    request: new InterceptorManager(),
    response: new InterceptorManager()
  };
}

Axios.prototype.request = function request(config) {
  var chain = [dispatchRequest, undefined];
  var promise = Promise.resolve(config);
  this.interceptors.request.forEach(function unshiftRequestInterceptors(interceptor) {
    chain.unshift(interceptor.fulfilled, interceptor.rejected);
  });
  while (chain.length) {
    promise = promise.then(chain.shift(), chain.shift());
  }
  return promise;
};
`,
		"lib/core/InterceptorManager.js": `function InterceptorManager() {
  this.handlers = [];
}

InterceptorManager.prototype.use = function use(fulfilled, rejected) {
  this.handlers.push({fulfilled: fulfilled, rejected: rejected});
  return this.handlers.length - 1;
};
`,
	})
	resp, err := Query(context.Background(), st, Request{Text: "Correctly add response interceptors to interceptor chain", Limit: 5, MinRelevance: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Files) == 0 || resp.Files[0].Path != "lib/core/Axios.js" {
		t.Fatalf("files = %+v, want the implementation first", resp.Files)
	}
	for _, f := range resp.Files {
		if f.Path == "index.d.ts" && (f.Signals == nil || f.Signals.Demotion != fileDocDemotion) {
			t.Fatalf("index.d.ts signals %+v, want demotion %v (documentation)", f.Signals, fileDocDemotion)
		}
	}
	if !slices.ContainsFunc(resp.Files, func(f FileResult) bool { return f.Path == "index.d.ts" }) {
		t.Fatalf("files = %+v, want the declaration file among them", resp.Files)
	}
}
