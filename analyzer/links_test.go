package analyzer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWithoutLinks(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"no link", "retry with backoff", "retry with backoff"},
		{"image", "as shown: ![QQ截图](https://user-images.githubusercontent.com/17900775/188590444-fafa374d-9b89.png)\nthen", "as shown: ![QQ截图]( )\nthen"},
		{"markdown link keeps its text", "see [middleware](https://go-zero.dev/en/middleware.html?h=middleware)", "see [middleware]( )"},
		{"pull request", "after https://github.com/zeromicro/go-zero/pull/2028 it hangs", "after   it hangs"},
		{"file with lines", "https://github.com/o/r/blob/b2571883cae/core/collection/timingwheel.go#L75-L96", " core/collection/timingwheel.go:75 "},
		{"file, sentence end", "look at https://github.com/o/r/blob/main/a/b.go.", "look at  a/b.go ."},
		{"gitlab file", "https://gitlab.com/g/sub/r/-/blob/v1.2/src/app.ts#L3", " src/app.ts:3 "},
		{"escaped path", "https://github.com/o/r/blob/main/docs/a%2Bb.md", " docs/a+b.md "},
		{"repository root", "https://github.com/o/r/tree/main", " "},
		{"www", "mirror at www.example.org/x/y today", "mirror at   today"},
		{"www in capitals", "mirror at WWW.Example.org/x today", "mirror at   today"},
		{"a w at the end", "draw", "draw"},
		{"not a link", "the www directory and http.Server", "the www directory and http.Server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithoutLinks(tt.text); got != tt.want {
				t.Errorf("WithoutLinks(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestLinkWordsAreNotTerms: the analysed message keeps the writer's words
// and loses the address's.
func TestLinkWordsAreNotTerms(t *testing.T) {
	got := strings.Join(Terms(WithoutLinks("jaeger traces ![shot](https://user-images.githubusercontent.com/17900775/188590444-fafa374d.png)")), " ")
	for _, junk := range []string{"githubusercont", "png", "fafa374d", "17900775"} {
		if strings.Contains(got, junk) {
			t.Errorf("terms %q contain %q", got, junk)
		}
	}
	if !strings.Contains(got, "jaeger") || !strings.Contains(got, "shot") {
		t.Errorf("terms %q lost the message's words", got)
	}
}

// FuzzWithoutLinks: any text comes back without an http(s) address, as
// valid UTF-8 when it was, and a second pass changes nothing.
func FuzzWithoutLinks(f *testing.F) {
	for _, s := range []string{"see https://github.com/o/r/blob/main/a.go#L3", "![x](http://h/1.png)", "www.", "https://%zz", "https://github.com/o/r/blob/r/%E2%82", "ftp://a/b/raw/c/d e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		once := WithoutLinks(text)
		if twice := WithoutLinks(once); twice != once {
			t.Errorf("not idempotent: %q → %q → %q", text, once, twice)
		}
		if linkPattern().MatchString(once) && strings.Contains(strings.ToLower(once), "://") {
			t.Errorf("an address is left in %q", once)
		}
		if utf8.ValidString(text) && !utf8.ValidString(once) {
			t.Errorf("invalid UTF-8 from %q: %q", text, once)
		}
	})
}
