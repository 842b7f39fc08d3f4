package analyzer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

func TestSplitIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"parseHTTPRequest", []string{"parse", "HTTP", "Request"}},
		{"snake_case_name", []string{"snake", "case", "name"}},
		{"kebab-case", []string{"kebab", "case"}},
		{"http.Server.Serve", []string{"http", "Server", "Serve"}},
		{"ListenAndServe", []string{"Listen", "And", "Serve"}},
		{"utf8Decode", []string{"utf8", "Decode"}},
		{"X", []string{"X"}},
		{"__init__", []string{"init"}},
		{"logx能否支持field功能", []string{"logx", "能否支持", "field", "功能"}},
		{"検索 works", []string{"検索 works"}},
		{"café_crème", []string{"café", "crème"}},
		// An acronym's plural "s" or version "v" ends the acronym.
		{"URLs", []string{"URLs"}},
		{"getURLsForHost", []string{"get", "URLs", "For", "Host"}},
		{"ParseIPv4Mapped", []string{"Parse", "IPv4", "Mapped"}},
		{"TLSv1_2", []string{"TLSv1", "2"}},
		{"HTTPSession", []string{"HTTP", "Session"}},
		{"CASet", []string{"CA", "Set"}},
		{"ÉTATs", []string{"ÉTATs"}},
	}
	for _, tt := range tests {
		if got := SplitIdentifier(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ListenAndServe", []string{"listenandserve", "listen", "serv"}},
		{"the servers are running", []string{"server", "run"}},
		{"func (srv *Server) Serve(l net.Listener) error", []string{"srv", "server", "serv", "netlistener", "net", "listen", "error"}},
		{"", nil},
		{"a 123 0x1f", nil},
		{"検索 works", []string{"検索", "work"}},
		{"fetch URLs and IDs", []string{"fetch", "url", "id"}},
		{"getURLs", []string{"geturls", "get", "url"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTermsSameForDocumentAndQuery(t *testing.T) {
	// A query naming an identifier must produce the document's whole term.
	doc := Terms("func parseConfigFile()")
	query := Terms("where is parseConfigFile")
	found := false
	for _, d := range doc {
		for _, q := range query {
			if d == q && d == "parseconfigfile" {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("doc %q and query %q share no whole-identifier term", doc, query)
	}
}

func FuzzTerms(f *testing.F) {
	f.Add("parseHTTPRequest_v2 \xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range Terms(s) {
			if term == "" || len(term) > 4*maxTermLen {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
	})
}

func TestDerivedNounsShareTheVerbsTerm(t *testing.T) {
	tests := []struct{ noun, verb string }{
		{"notification", "notify"},
		{"notifications", "notified"},
		{"verification", "verifier"},
		{"retransmission", "retransmit"},
		{"permission", "permitted"},
		{"committer", "commit"},
		{"emitter", "emit"},
		{"consumption", "consume"},
		{"decision", "decide"},
		{"division", "divide"},
		{"inclusion", "include"},
		{"intrusion", "intrude"},
		{"explosion", "explode"},
	}
	for _, tt := range tests {
		n, _ := Term(tt.noun)
		v, _ := Term(tt.verb)
		if n != v {
			t.Errorf("Term(%q) = %q, Term(%q) = %q: want one term", tt.noun, n, tt.verb, v)
		}
	}
	// Words that merely end like a derivation keep their own term.
	for _, w := range []string{"miss", "vis", "missing", "visit", "client", "trust"} {
		got, _ := Term(w)
		if want := english.Stem(w, false); got != want {
			t.Errorf("Term(%q) = %q, want the stem %q", w, got, want)
		}
	}
}

func TestCompound(t *testing.T) {
	for _, tc := range []struct {
		word  string
		whole string
		ok    bool
	}{
		{"no_proxy", "noproxy", true},
		{"r.content", "rcontent", true},
		{"HTTPError", "httperror", true},
		{"urlparse", "", false},                           // one part
		{"1_000", "", false},                              // a whole that is a number
		{strings.Repeat("long_", 10) + "name", "", false}, // a whole too long for a term
	} {
		whole, ok := Compound(tc.word)
		if whole != tc.whole || ok != tc.ok {
			t.Errorf("Compound(%q) = %q, %v; want %q, %v", tc.word, whole, ok, tc.whole, tc.ok)
		}
		// It is the first of the word's terms, as the index holds it.
		if terms := Terms(tc.word); ok && (len(terms) == 0 || terms[0] != whole) {
			t.Errorf("Compound(%q) = %q, but its terms are %v", tc.word, whole, terms)
		}
	}
}
