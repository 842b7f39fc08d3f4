package memory

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// FuzzParse: a memory file's parse never panics; a success keeps the path
// and scope it was given, has a slug, a body that is a suffix of the
// (CRLF-normalised) file, no empty tag, link or file, and valid UTF-8 when
// the file is.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nid: auth-login\ntype: decision\ntitle: Login checks bcrypt\ntags: [auth, security]\nlinks: [session-store]\ncreated: 2026-01-02T03:04:05Z\nupdated: 2026-01-03\n---\n# Login\n\nbody\n",
		"---\nslug: other\nscope: global\ntags: a, , b\nfiles:\n  - auth/auth.go\n  - {x: 1}\n---\n",
		"---\n---\n", "---\n---", "---\nid: x\n---", "---\n- a\n---\n", "---\n: [\n---\n", "no frontmatter",
		"\ufeff---\r\nid: crlf\r\n---\r\nbody", "---\nid: \xff\n---\n\xfe", "---\ncreated: 99999-99-99\n---\n",
		"---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n", "---\nid: [1, 2]\ntitle: {a: b}\n---\n",
		"---\nid: x\n---\n---\nnot a second header\n",
	} {
		f.Add([]byte(s), "auth-login.md")
	}
	f.Add([]byte("---\nid: a\n---\n"), "")
	f.Add([]byte("---\nid: a\n---\n"), "dir/.md")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		path := "/m/" + name
		m, err := Parse(data, path, Project, fuzzNow)
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a memory", err)
			}
			return
		}
		if m.Path != path || m.Scope != Project {
			t.Fatalf("path %q scope %q, given %q %q", m.Path, m.Scope, path, Project)
		}
		norm := string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
		if !strings.HasSuffix(norm, m.Content) {
			t.Fatalf("body %q is not a suffix of the file", m.Content)
		}
		for _, l := range [][]string{m.Tags, m.Links, m.Files} {
			for _, s := range l {
				if s == "" {
					t.Fatalf("empty item in %q", l)
				}
			}
		}
		if utf8.Valid(data) && utf8.ValidString(name) {
			for _, s := range append([]string{m.Slug, m.Title, m.Content, string(m.Type), m.Severity}, m.Tags...) {
				if !utf8.ValidString(s) {
					t.Fatalf("%q is not valid UTF-8", s)
				}
			}
		}
	})
}

// FuzzParseGraph: graph.json in either format parses without a panic, and
// a graph that parses saves to a file that parses again, in the same
// format, with the same edges.
func FuzzParseGraph(f *testing.F) {
	for _, s := range []string{
		`{"a":[{"target":"b","label":"relates-to","timestamp":"2026-01-01T00:00:00Z"}],"b":[{"target":"a","label":"relates-to"}]}`,
		`{"nodes":[{"id":"a","title":"A","type":"decision"}],"edges":[{"source":"a","target":"b","relation":"implements"},{"source":"b","target":"a","label":"implemented-by"},{"source":"a","target":"a"}]}`,
		`{"edges":[]}`, `{"nodes":[]}`, `{}`, ``, `  `, `[]`, `null`, `{"a":null}`, `{"a":[]}`, `{"a":5}`,
		`{"edges":[{"target":"b","label":"relates-to"}]}`, `{"nodes":[{"target":"b","label":"x"}]}`,
		`{"a":[{"target":"a","label":"supersedes"}]}`, `{"edges":[{"source":"x"}],"nodes":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGraph(data)
		if err != nil {
			if g != nil {
				t.Fatalf("error %v with a graph", err)
			}
			return
		}
		out, err := g.Marshal(nil)
		if err != nil {
			t.Fatalf("a parsed graph does not save: %v", err)
		}
		g2, err := ParseGraph(out)
		if err != nil {
			t.Fatalf("a saved graph does not parse: %v\n%s", err, out)
		}
		if g2.Format != g.Format {
			t.Fatalf("saved in %s, read back in %s:\n%s", g.Format, g2.Format, out)
		}
		if n1, n2 := edgeCount(g), edgeCount(g2); n1 != n2 {
			t.Fatalf("%d edges saved, %d read back:\n%s", n1, n2, out)
		}
	})
}

func edgeCount(g *Graph) int {
	n := 0
	for _, es := range g.Adj {
		n += len(es)
	}
	return n
}

// FuzzParseIndex: index.json in either format parses without a panic; an
// index that parses is consistent (each entry's slug is its key, it has a
// file) and saves to a file that parses again with the same slugs.
func FuzzParseIndex(f *testing.F) {
	for _, s := range []string{
		`{"version":"1","lastUpdated":"2026-01-01T00:00:00Z","memories":{"a":{"slug":"a","title":"A","type":"decision","filePath":"/m/a.md"}}}`,
		`{"version":"1","memories":[{"id":"a","type":"decision","title":"A","tags":["x"],"updated":"2026-01-01","relativePath":"decisions/a.md"}]}`,
		`{"memories":{}}`, `{"memories":[]}`, `{"memories":null}`, `{}`, `[]`, ``, `{"memories":"x"}`,
		`{"memories":[{"id":"a"}]}`, `{"memories":{"a":{"slug":"b","filePath":"x"}}}`,
		`{"memories":[{"id":"a","relativePath":"../../etc/passwd"},{"id":"a","relativePath":"b.md"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := ParseIndex(data, "/m")
		if err != nil {
			if ix != nil {
				t.Fatalf("error %v with an index", err)
			}
			return
		}
		for k, e := range ix.Memories {
			if e.Slug != k || e.FilePath == "" {
				t.Fatalf("entry %q inconsistent: %+v", k, e)
			}
		}
		out, err := ix.Marshal("/m", Project, fuzzNow)
		if err != nil {
			t.Fatalf("a parsed index does not save: %v", err)
		}
		ix2, err := ParseIndex(out, "/m")
		if err != nil {
			t.Fatalf("a saved index does not parse: %v\n%s", err, out)
		}
		if len(ix2.Memories) != len(ix.Memories) || ix2.Format != ix.Format {
			t.Fatalf("%d entries (%s) saved, %d (%s) read back", len(ix.Memories), ix.Format, len(ix2.Memories), ix2.Format)
		}
		for k := range ix.Memories {
			if _, ok := ix2.Memories[k]; !ok {
				t.Fatalf("entry %q lost on save:\n%s", k, out)
			}
		}
	})
}
