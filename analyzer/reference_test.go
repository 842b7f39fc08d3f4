package analyzer

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The functions below are the straightforward analysis (rune by rune, no
// caches) that the optimised Analyzer must reproduce term for term.

func referenceTerms(text string) []string {
	var out []string
	referenceWords(text, func(word string) {
		parts := referenceSplit(word)
		if len(parts) > 1 {
			whole := strings.Map(func(r rune) rune {
				if r == '_' || r == '-' || r == '.' || r == '$' {
					return -1
				}
				return r
			}, strings.ToLower(word))
			if len(whole) <= maxTermLen && !isNumber(whole) {
				out = append(out, whole)
			}
		}
		for _, p := range parts {
			if t, ok := Term(p); ok {
				out = append(out, t)
			}
		}
	})
	return out
}

func referenceWords(text string, fn func(string)) {
	start := -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
		if !inWord && start >= 0 && (r == '.' || r == '-' || r == '$') && i+size < len(text) {
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			inWord = unicode.IsLetter(next) || unicode.IsDigit(next) || next == '_'
		}
		if inWord {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(text[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(text[start:])
	}
}

func referenceSplit(id string) []string {
	var parts []string
	runes := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(runes[start:end]))
		}
		start = end
	}
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if r == '_' || r == '-' || r == '.' || r == '$' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			// Not when the lower-case letters end the acronym: URLs, IPv4.
			tail := string(runes[i+1:])
			plural := strings.HasPrefix(tail, "s") && (len(tail) == 1 || !unicode.IsLower([]rune(tail)[1]))
			version := strings.HasPrefix(tail, "v") && len(tail) > 1 && unicode.IsDigit([]rune(tail)[1])
			if !plural && !version {
				flush(i)
			}
		case (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) != unicode.In(prev, unicode.Han, unicode.Hiragana, unicode.Katakana)) &&
			(unicode.IsLetter(r) || unicode.IsDigit(r)) && (unicode.IsLetter(prev) || unicode.IsDigit(prev)):
			flush(i)
		}
	}
	flush(len(runes))
	return parts
}

var referenceCases = []string{
	"parseHTTPRequest_v2 \xff\xfe", "ListenAndServe", "http.Server.Serve", "a.b", "a.", ".a", "x-", "-x", "$y",
	"foo.$bar", "x..y", "HTTPServer", "getX", "X1Y2z", "ÀbcDéf", "検索 works", "ǅungla", "naïveCafé_42",
	"ALLCAPS", "a_b-c.d$e", "utf8Decode", "123abc", "0x1fBeef", "__init__", "fooBAR", "FOObar", "ΑβγΔε",
	"URLs", "getURLsFor", "IDs_seen", "IPv4Mapped", "TLSv1", "HTTPServe", "ASet", "CAs", "ABsolute", "ÀÉs", "ÀÉv2x",
	"tab\tsep\nnew", "a.\xffb", "é.é", "_", "__", "a_", "x\u00a0y", "İstanbul", "ﬁle",
}

func TestAnalyzerMatchesReference(t *testing.T) {
	an := New()
	check := func(s string) {
		t.Helper()
		var got []string
		an.Each(s, func(term string) { got = append(got, term) })
		if want := referenceTerms(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("terms of %q:\n got %q\nwant %q", s, got, want)
		}
	}
	for _, s := range referenceCases {
		check(s)
		check(s) // the second time from the cache
	}
	// Real text: Go sources and docs from GOROOT, when it is there.
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	for _, dir := range []string{"net/http", "unicode", "strings", "html/template", "go/doc/comment/testdata", "cmd/go/testdata/script"} {
		paths, _ := filepath.Glob(filepath.Join(root, dir, "*"))
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err == nil {
				check(string(src))
			}
		}
	}
}

func TestSplitMatchesReference(t *testing.T) {
	for _, s := range referenceCases {
		if got, want := SplitIdentifier(s), referenceSplit(s); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzAnalyzerMatchesReference(f *testing.F) {
	for _, s := range referenceCases {
		f.Add(s)
	}
	an := New()
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		an.Each(s, func(term string) { got = append(got, term) })
		if want := referenceTerms(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("terms of %q:\n got %q\nwant %q", s, got, want)
		}
		if got, want := SplitIdentifier(s), referenceSplit(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("SplitIdentifier(%q) = %q, want %q", s, got, want)
		}
	})
}

func BenchmarkAnalyzerNetHTTP(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip(err)
	}
	paths, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "*.go"))
	var text []string
	var n int64
	for _, p := range paths {
		src, _ := os.ReadFile(p)
		text = append(text, string(src))
		n += int64(len(src))
	}
	an := New()
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range text {
			an.Each(s, func(string) {})
		}
	}
}
