package retrieval

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

func TestSubjectWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"fix(logx): garbled output\n\nthe auth package too", []string{"logx", "garbled", "output"}},
		{"fix: bug on form data with slices", []string{"on", "form", "data", "with", "slices"}},
		{"feat(jsx): Fixed issues", []string{"jsx"}},
		{"fix(bug): report the Go version", []string{"bug", "report", "the", "go", "version"}}, // a scope
		{"  goctl: x 2fa v2\n", []string{"goctl", "v2"}},
		{"", nil},
	}
	for _, tc := range tests {
		got := subjectWords(tc.text)
		want := map[string]bool{}
		for _, w := range tc.want {
			want[w] = true
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("subjectWords(%q) = %v, want %v", tc.text, got, want)
		}
	}
	long := "x " + string(make([]byte, 200)) + " logx"
	if subjectWords(long)["logx"] {
		t.Error("a word beyond the subject's first 100 bytes counted")
	}
}

func TestScopes(t *testing.T) {
	_, st := wstest.Indexed(t, files) // auth/service.go, auth/store.go, billing/invoice.go, billing/invoice_test.go
	ctx := context.Background()
	tests := []struct {
		text, path string
		want       float64
	}{
		{"Auth: reject empty passwords\nbilling is fine", "auth/service.go", math.Log(2) / math.Log(4)},
		{"Auth: reject empty passwords\nbilling is fine", "billing/invoice.go", 0}, // named in the body only
		{"reject empty passwords", "auth/service.go", 0},
		{"service.go is slow", "auth/service.go", 0}, // a file's own name is not a directory
	}
	for _, tc := range tests {
		s := &scopes{st: st, subject: subjectWords(tc.text)}
		got, err := s.of(ctx, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%q, %s: scope %g, want %g", tc.text, tc.path, got, tc.want)
		}
	}
}
