package store_test

import (
	"context"
	"testing"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/wstest"
)

// TestNamesDirectory checks which terms name a directory of the code: a
// directory's whole name, analyzed as a path segment is, does; a file's
// name, a part of a directory's name, and a directory of tests only do not.
func TestNamesDirectory(t *testing.T) {
	_, st := wstest.Indexed(t, map[string]string{
		"src/cookies/jar.go":             "package cookies\n\nfunc Keep() {}\n",
		"validator/check.go":             "package validator\n\nfunc Check() {}\n",
		"configcenter/subscriber/etc.go": "package subscriber\n\nfunc Watch() {}\n",
		"tests/fixtures/sample_test.go":  "package fixtures\n\nfunc TestSample() {}\n",
	})
	for _, tc := range []struct {
		word string
		want bool
	}{
		{"cookies", true},
		{"validator", true},
		{"validation", true}, // the same term as validator
		{"subscriber", true}, // a directory below another
		{"jar", false},       // a file's name
		{"config", false},    // part of configcenter
		{"fixtures", false},  // only tests under it
		{"zebra", false},
	} {
		term, ok := analyzer.Term(tc.word)
		if !ok {
			t.Fatalf("%q has no term", tc.word)
		}
		got, err := st.NamesDirectory(context.Background(), term, analyzer.Terms)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("NamesDirectory(%q → %q) = %v, want %v", tc.word, term, got, tc.want)
		}
	}
}
