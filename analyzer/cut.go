package analyzer

import "unicode/utf8"

// MaxMessageBytes bounds a message (a prompt, a query, pasted error
// output) before it is analysed: a longer one costs more than it adds,
// and its head names what it is about (docs/decisions/0105).
const MaxMessageBytes = 32 << 10

// CutMessage returns message cut to MaxMessageBytes, never inside a UTF-8
// sequence. Every reader of a message (the hooks, query and context, the
// MCP tools, the editor's engine) cuts it here.
func CutMessage(message string) string { return Truncate(message, MaxMessageBytes) }

// Truncate returns s cut to at most n bytes, never inside a UTF-8
// sequence.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
