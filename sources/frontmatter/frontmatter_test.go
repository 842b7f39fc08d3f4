package frontmatter

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Meta
		body    string
		wantErr bool
	}{
		{"no header", "# Title\ntext\n", Meta{}, "# Title\ntext\n", false},
		{"quoted glob", "---\ndescription: Go style\nglobs: \"**/*.go\"\n---\nUse gofmt.\n",
			Meta{Description: "Go style", Globs: List{"**/*.go"}}, "Use gofmt.\n", false},
		{"glob list", "---\npaths:\n  - \"src/**/*.ts\"\n  - lib/*.ts\n---\nbody",
			Meta{Paths: List{"src/**/*.ts", "lib/*.ts"}}, "body", false},
		{"comma string", "---\napplyTo: \"**/*.py, **/*.pyi\"\n---\nx\n",
			Meta{ApplyTo: List{"**/*.py", "**/*.pyi"}}, "x\n", false},
		{"cursor unquoted globs (lenient)", "---\ndescription:\nglobs: **/*.go, *.mod\nalwaysApply: false\n---\nrule\n",
			Meta{Globs: List{"**/*.go", "*.mod"}}, "rule\n", false},
		{"always apply, CRLF, BOM", "\ufeff---\r\nalwaysApply: true\r\n---\r\nAlways.\r\n",
			Meta{AlwaysApply: true}, "Always.\r\n", false},
		{"keywords", "---\nname: curator\nkeywords: [memory, graph]\n---\n",
			Meta{Name: "curator", Keywords: List{"memory", "graph"}}, "", false},
		{"unclosed", "---\nglobs: a\nbody without end\n", Meta{}, "", true},
		{"bad yaml, not flat", "---\nglobs:\n  - a\n   b: [\n---\nx\n", Meta{}, "", true},
		{"wrong type", "---\npaths:\n  a: b\n---\nx\n", Meta{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, body, err := Parse([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if !reflect.DeepEqual(m, tt.want) {
				t.Errorf("meta = %+v, want %+v", m, tt.want)
			}
			if body != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
		})
	}
}

func TestUnclosedIsNamed(t *testing.T) {
	_, _, err := Parse([]byte("---\nname: x\n"))
	if !errors.Is(err, ErrUnclosed) {
		t.Fatalf("err = %v", err)
	}
	if _, _, err := Parse([]byte("---\npaths: {a: b}\n---\n")); err == nil || !strings.Contains(err.Error(), "frontmatter") {
		t.Fatalf("wrong-type error = %v", err)
	}
}
