package index

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// Reasons a file is tracked but not parsed.
const (
	SkipTooLarge   = "too large"
	SkipBinary     = "binary (NUL bytes)"
	SkipGenerated  = store.SkipGenerated
	SkipMinified   = "minified"
	SkipUnreadable = "unreadable"
	// A symbolic link whose real path is outside the workspace: never
	// followed nor read (decision 0090).
	SkipLinkOutside = "symlink outside workspace"
	// A symbolic link to a file or directory of the workspace, which is
	// indexed at its own path (if at all), once.
	SkipLinkInside = "symlink (target indexed at its own path)"
)

// Notes recorded on parsed files.
const (
	NoteSyntaxErrors = "syntax errors (partial parse)"
	NoteRepairedUTF8 = "invalid UTF-8 repaired"
)

// screen decides whether a file's content should be parsed. It returns the
// content to parse (repaired when its encoding was invalid), a skip reason
// when it should not be parsed, and a note.
func screen(path string, src []byte) (out []byte, skip, note string) {
	if bytes.IndexByte(src, 0) >= 0 {
		return nil, SkipBinary, ""
	}
	if strings.HasSuffix(path, ".min.js") || strings.HasSuffix(path, ".min.css") || strings.HasSuffix(path, ".min.mjs") {
		return nil, SkipMinified, ""
	}
	if workspace.IsGenerated(src) {
		return nil, SkipGenerated, ""
	}
	if looksMinified(path, src) {
		return nil, SkipMinified, ""
	}
	if !utf8.Valid(src) {
		return bytes.ToValidUTF8(src, []byte("\uFFFD")), "", NoteRepairedUTF8
	}
	return src, "", ""
}

// looksMinified flags script files whose lines are far longer than any
// person writes.
func looksMinified(path string, src []byte) bool {
	if !(strings.HasSuffix(path, ".js") || strings.HasSuffix(path, ".mjs") || strings.HasSuffix(path, ".cjs") || strings.HasSuffix(path, ".css")) {
		return false
	}
	if len(src) < 4096 {
		return false
	}
	lines := bytes.Count(src, []byte("\n")) + 1
	return len(src)/lines > 500
}
