package analyzer

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestMessage(t *testing.T) {
	type want struct {
		typ   TriggerType
		query string
		line  int
	}
	tests := []struct {
		name string
		msg  string
		want []want
		not  []string
	}{
		{"camel and pascal", "why does parseConfig fail in AuthService?", []want{{TriggerSymbol, "parseConfig", 0}, {TriggerSymbol, "AuthService", 0}}, []string{"why", "fail"}},
		{"snake", "rename max_retry_count", []want{{TriggerSymbol, "max_retry_count", 0}}, nil},
		{"qualified", "does http.Server.Serve close l? and Foo::bar()", []want{{TriggerSymbol, "http.Server.Serve", 0}, {TriggerSymbol, "Foo::bar", 0}}, nil},
		{"call", "what does obj.method() return", []want{{TriggerSymbol, "obj.method", 0}}, nil},
		{"path", "look at server/handler.go and ./src/app.ts", []want{{TriggerPath, "server/handler.go", 0}, {TriggerPath, "./src/app.ts", 0}}, nil},
		{"go location", "./store/read.go:12:3: undefined: foo", []want{{TriggerErrorLoc, "./store/read.go", 12}}, nil},
		{"python traceback", "Traceback (most recent call last):\n  File \"app/models.py\", line 42, in save\n", []want{{TriggerErrorLoc, "app/models.py", 42}, {TriggerSymbol, "save", 0}}, nil},
		{"js stack", "TypeError: x is undefined\n    at renderItem (src/list.tsx:10:5)", []want{{TriggerErrorLoc, "src/list.tsx", 10}, {TriggerSymbol, "renderItem", 0}}, nil},
		{"go panic", "panic: runtime error\n\ngoroutine 1 [running]:\nmain.(*Server).handle(0x0)\n\t/home/u/app/server.go:88 +0x1d", []want{{TriggerSymbol, "handle", 0}, {TriggerErrorLoc, "/home/u/app/server.go", 88}}, nil},
		{"implicit", "how does the retry budget work", []want{{TriggerImplicit, "retry budget work", 0}}, nil},
		{"implicit, it", "how does it retry a request", []want{{TriggerImplicit, "it retry a request", 0}}, nil},
		{"how-to", "how do I undo the last commit", nil, []string{"I undo the last"}},
		{"how-to, we", "How can we deploy the service", nil, []string{"we deploy the service"}},
		{"how-to, you", "how would you test the router", nil, []string{"you test the router"}},
		{"how-to, one", "why does one need the cache", nil, []string{"one need the cache"}},
		{"ticked", "the `limit` flag is ignored", []want{{TriggerSymbol, "limit", 0}}, nil},
		{"url is not a path", "see https://example.com/docs/page.html", nil, []string{"example.com/docs/page.html"}},
		{"link to a file", "see https://github.com/o/r/blob/b2571883/core/collection/timingwheel.go#L75-L96 here", []want{{TriggerErrorLoc, "core/collection/timingwheel.go", 75}}, nil},
		{"link to a directory", "it is in https://gitlab.com/g/r/-/tree/main/core/logx.", []want{{TriggerPath, "core/logx", 0}}, nil},
		{"image", "![QQ](https://user-images.githubusercontent.com/1/188590444-fafa374d.png)", nil, []string{"user-images.githubusercontent.com", "188590444-fafa374d.png", "fafa374d.png"}},
		{"plain english", "The weather is nice. Thanks!", nil, []string{"The", "Thanks", "weather"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Message(tt.msg)
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					if g.Type == w.typ && g.Query == w.query && g.Line == w.line {
						found = true
						if g.Relevance != DefaultWeights[w.typ] {
							t.Errorf("%q relevance %v, want %v", w.query, g.Relevance, DefaultWeights[w.typ])
						}
					}
				}
				if !found {
					t.Errorf("missing %v %q line %d in %+v", w.typ, w.query, w.line, got)
				}
			}
			for _, n := range tt.not {
				for _, g := range got {
					if g.Query == n {
						t.Errorf("unexpected trigger %+v", g)
					}
				}
			}
		})
	}
}

// tickedRE is the pattern tickedSpans implements.
var tickedRE = regexp.MustCompile("`([^`\n]{1,120})`")

func tickedByRegexp(text string) []string {
	var out []string
	for _, m := range tickedRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestTickedSpans(t *testing.T) {
	long := strings.Repeat("x", maxTicked)
	for _, text := range []string{
		"", "`", "``", "```", "`a`", "call `Foo` and `bar.Baz()`", "``a`", "`a``b`",
		"`" + long + "`", "`" + long + "y`", "`" + long + "y`z`", "`a\nb` `c`",
		"`" + strings.Repeat("é", maxTicked) + "`", "`" + strings.Repeat("é", maxTicked+1) + "`x`",
		"`\xff\xfe`", "`" + strings.Repeat("\xff", maxTicked+1) + "`ok`", "end `open",
	} {
		if got, want := tickedSpans(text), tickedByRegexp(text); !reflect.DeepEqual(got, want) {
			t.Errorf("tickedSpans(%q) = %q, regexp gives %q", text, got, want)
		}
	}
}

func FuzzTickedSpans(f *testing.F) {
	f.Add("use `http.Server` here")
	f.Add("``x` `" + strings.Repeat("ab", 70) + "`")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := tickedSpans(text), tickedByRegexp(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("tickedSpans(%q) = %q, regexp gives %q", text, got, want)
		}
	})
}
