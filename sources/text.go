package sources

import (
	"sort"
	"strings"

	"github.com/ctxls/ctxls/analyzer"
)

// termSet returns the distinct analyzed (stemmed) terms of text.
func termSet(text string) map[string]bool {
	out := map[string]bool{}
	for _, t := range analyzer.Terms(text) {
		out[t] = true
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }

// cut returns s shortened to at most n bytes, at a paragraph, line or word
// boundary when one is near, never inside a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	head := s[:n]
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(head, sep); i > n/2 {
			return strings.TrimRight(head[:i], " \n")
		}
	}
	return head
}

// oneLine collapses whitespace and cuts s to n bytes with an ellipsis.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return cut(s, n) + "…"
}
