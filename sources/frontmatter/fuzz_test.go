package frontmatter

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: Parse never panics; on success the body is a suffix of the
// input (the header is split off, never rewritten into the body), and every
// list field holds no empty item; on an error nothing is returned.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nglobs: **/*.go\nalwaysApply: false\n---\nUse gofmt.\n",
		"---\ndescription: \"Go style\"\nglobs: [\"*.go\", \"cmd/**\"]\n---\nbody",
		"---\napplyTo: '**/*.ts,**/*.tsx'\n---\nTS rules",
		"---\npaths:\n  - src/**\n  - \"lib/*.js\"\n---\n",
		"---\nname: x\nkeywords: a, b,, c\nwhen_to_use: always\n---\n# Title\n",
		"no header at all\n", "---\n---\n", "---\nunclosed: true\n", "---\r\nname: crlf\r\n---\r\nbody\r\n",
		"---\n: bad\n---\n", "---\nname: {a: [\n---\n", "---\n- a\n- b\n---\n", "---\nglobs: *alias\n---\n",
		"---\na: &a [x]\nb: [*a, *a, *a]\n---\n", "---\nname: \xff\xfe\n---\n\xff", "\ufeff---\nname: bom\n---\n",
		"...\n", "---\ndescription: |\n  multi\n  line\n...\nbody",
		"---\n" + strings.Repeat("k: v\n", 200) + "---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, body, err := Parse(data)
		if err != nil {
			if body != "" || m.Name != "" || len(m.Globs) > 0 {
				t.Fatalf("error %v with a result %+v %q", err, m, body)
			}
			return
		}
		if !strings.HasSuffix(string(data), body) {
			t.Fatalf("body %q is not a suffix of the input", body)
		}
		for _, l := range [][]string{m.Globs, m.ApplyTo, m.Paths, m.Keywords} {
			for _, g := range l {
				if strings.TrimSpace(g) == "" {
					t.Fatalf("empty list item in %q", l)
				}
			}
		}
		if utf8.Valid(data) {
			for _, s := range append([]string{m.Name, m.Description, m.WhenToUse, body}, m.Globs...) {
				if !utf8.ValidString(s) {
					t.Fatalf("%q is not valid UTF-8 though the input is", s)
				}
			}
		}
	})
}
