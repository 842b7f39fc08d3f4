package index

import (
	"bytes"
	"path"
	"regexp"
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

// bundledLibrary recognises a script or style sheet copied from a
// library's release into the workspace (a Python project's jQuery, a
// site's Bootstrap), which workspace.IsThirdParty cannot tell by its
// directory: a release file named with its version (jquery-3.5.1.js,
// underscore.1.8.3.css), or one that opens with the banner a distributed
// build keeps ("/*!", or "@license" in its first comment) naming a release
// ("/*! jQuery v3.5.1", " * Bootstrap v4.6.0"). Such files topped the
// ranking of questions about a Python project's own code (issue 18). The
// banner alone is not enough: many Node.js projects open every source
// file with one ("/*!\n * express\n * Copyright(c) 2009-2013 TJ
// Holowaychuk"), and all of express's lib/ was taken for a copy. It lives
// here, not beside the other classes in workspace, so that the thin
// client, which links workspace, does not link regexp.
func bundledLibrary(p string, src []byte) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".mjs", ".cjs", ".css":
	default:
		return false
	}
	if releaseName.MatchString(path.Base(p)) {
		return true
	}
	head := bytes.TrimLeft(src, " \t\r\n\ufeff")
	if !bytes.HasPrefix(head, []byte("/*")) && !bytes.HasPrefix(head, []byte("//")) {
		return false
	}
	first := head[:min(len(head), 1024)]
	if end := bytes.Index(first, []byte("*/")); end >= 0 && bytes.HasPrefix(head, []byte("/*")) {
		first = first[:end]
	}
	banner := bytes.HasPrefix(head, []byte("/*!")) || bytes.Contains(first, []byte("@license"))
	return banner && releaseVersion.Match(first)
}

// releaseVersion matches a release's version in a banner: v and at least
// major.minor, or major.minor.patch (not a year, not "License 2.0").
var releaseVersion = regexp.MustCompile(`\bv\d+\.\d+|\b\d+\.\d+\.\d+\b`)

// releaseName matches a file named with a release version: a name, a dash
// or dot, then at least major.minor (jquery-3.5.1.js, d3.v7.js excepted:
// it has no minor).
var releaseName = regexp.MustCompile(`^[A-Za-z][\w.]*?[-.]v?\d+\.\d+(\.\d+)?([-.][\w]+)*\.(js|mjs|cjs|css)$`)
