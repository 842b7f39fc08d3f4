package discover

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/sources/frontmatter"
)

// item returns the parsed item of one file, from the cache when the file
// is unchanged. fallback is the name to use when the frontmatter has none.
func (d *Discoverer) item(path, fallback string, dir Dir, an func() *analyzer.Analyzer) (Item, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return Item{}, false
	}
	if it, ok := d.cache.Get(path, info.ModTime(), info.Size()); ok {
		return it, true
	}
	head, err := readHead(path)
	if err != nil {
		return Item{}, false
	}
	it := parse(head, path, fallback, dir, an())
	d.cache.Set(path, it, info.ModTime(), info.Size())
	return it, true
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(maxHeadBytes)
	if info, err := f.Stat(); err == nil && info.Size() < size {
		size = info.Size()
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf[:n], nil
}

// Parse builds an item from the head of its file. Frontmatter that is
// missing or malformed leaves the name to the file name and the description
// empty.
func Parse(head []byte, path, fallback string, dir Dir) Item {
	return parse(head, path, fallback, dir, analyzer.New())
}

func parse(head []byte, path, fallback string, dir Dir, a *analyzer.Analyzer) Item {
	it := Item{Path: path, Type: dir.Type, Scope: dir.Scope, Plugin: dir.Plugin}
	meta, _, err := frontmatter.Parse(head)
	if err != nil {
		meta = frontmatter.Meta{}
	}
	it.Name = strings.TrimSpace(meta.Name)
	if dir.Type == Command || it.Name == "" {
		// Commands are invoked by their file name.
		it.Name = fallback
	}
	if dir.Scope == Plugin && dir.Plugin != "" && (dir.Type == Command || dir.Type == Agent) {
		it.Name = dir.Plugin + ":" + it.Name
	}
	it.Name = clip(it.Name, maxName)
	it.Description = clip(strings.Join(strings.Fields(meta.Description), " "), maxDescription)
	switch {
	case len(meta.Keywords) > 0:
		it.Keywords, it.KeywordSource = meta.Keywords, FromKeywords
	case it.Description != "":
		it.Keywords, it.KeywordSource = words(it.Description+" "+meta.WhenToUse), FromDescription
	default:
		it.Keywords, it.KeywordSource = words(strings.NewReplacer("-", " ", "_", " ", ":", " ").Replace(fallback)), FromFilename
	}
	if len(it.Keywords) > maxKeywords {
		it.Keywords = it.Keywords[:maxKeywords]
	}
	it.analyze(a)
	return it
}

// analyze computes the item's distinct analyzed keyword and name terms.
func (it *Item) analyze(a *analyzer.Analyzer) {
	name := it.Name
	if it.Plugin != "" {
		name = strings.TrimPrefix(name, it.Plugin+":") // the namespace is not the name
	}
	it.nameTerms = distinct(a.Terms(strings.NewReplacer(":", " ", "-", " ", "_", " ").Replace(name)))
	it.terms = distinct(a.Terms(strings.Join(it.Keywords, " ")))
}

func distinct(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// words returns the distinct lower-case words of s, in order.
func words(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 || r == '-' || r == '_')
	}) {
		w = strings.Trim(w, "-_")
		if len(w) > 1 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
