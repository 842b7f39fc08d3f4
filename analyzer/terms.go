// Package analyzer turns text into search terms and turns what a person says
// or does into retrieval triggers.
//
// Terms applies one analysis to documents and queries alike: identifiers are
// split at camelCase, snake_case, kebab-case and dotted boundaries, parts are
// lower-cased, stop words dropped and the rest reduced with the Snowball
// English stemmer. A compound identifier also yields its whole lower-cased
// form, so that an exact identifier match scores above a match of its parts.
package analyzer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Version identifies the analysis. Indexes written with another version are
// re-analyzed in full, because query terms must be analyzed like documents.
// It also changes when what the index writes from the analysis changes
// (3: whole-file documents carry term frequencies; 4: their cap went 10 → 30;
// 5: tests, docs and third-party code get a whole-file corpus of their own;
// 6: references resolve only within a language family, so old cross-language
// edges must go; 7: identifiers split where Chinese or Japanese text runs into
// them; 8: Go references resolve by package scope, selectors on typed locals
// by their type, and functions used as values are references; 9: Go
// selectors are typed by fields and declared results, and one on an operand
// of unknown type is not bound to a guessed method; 10: Python and JS/TS
// imports record the names they import, and those languages' references
// resolve by what each file imports, decision 0111; 11: a bundled copy of a
// library's script or style sheet is third-party code, index.bundledLibrary;
// code under test-support directories is test code, workspace.IsTest; 12:
// benchmarks, Jest's and Gradle's test directories, end-to-end suites and
// pytest's conftest.py are test code too; 13: JavaScript and TypeScript
// under dist/ is build output, workspace.IsBuildOutput).
const Version = "13"

// maxTermLen bounds a single term; longer runs (hashes, base64, minified
// code) carry no retrieval value and bloat the index.
const maxTermLen = 40

// Terms returns the analyzed terms of text in order of appearance, with
// repetitions (term frequency matters to BM25).
func Terms(text string) []string {
	var out []string
	New().Each(text, func(term string) { out = append(out, term) })
	return out
}

// Analyzer analyzes text with a cache of stemmed words; stemming dominates
// the cost of analysis and source text repeats its words endlessly. An
// Analyzer is not safe for concurrent use: give each goroutine its own.
type Analyzer struct {
	stems map[string]string
	// words caches each word's terms in order: source text repeats its
	// identifiers far more than their parts, so a repeated word costs one
	// lookup instead of a split, a lower-casing and a lookup per part.
	words map[string][]string
}

// maxCache bounds the stem cache; past it the cache is reset, which keeps
// memory flat on unbounded input at the cost of re-stemming.
const maxCache = 1 << 17

// New returns an Analyzer with an empty cache. The caches start small and
// grow: most analyzers see one prompt or one file name, and in a short-lived
// process every byte of a pre-sized table is a page fault (two 1,024-entry
// tables were ~175 KB, a third of a query process's Go heap).
func New() *Analyzer {
	return &Analyzer{stems: map[string]string{}, words: map[string][]string{}}
}

// Terms is Terms with the Analyzer's cache.
func (a *Analyzer) Terms(text string) []string {
	var out []string
	a.Each(text, func(term string) { out = append(out, term) })
	return out
}

// Each calls fn for every analyzed term of text, in order.
func (a *Analyzer) Each(text string, fn func(term string)) {
	forEachWord(text, func(word string) {
		terms, ok := a.words[word]
		if !ok {
			terms = a.analyzeWord(word)
			if len(a.words) >= maxCache {
				clear(a.words)
			}
			// Clone: word may alias the caller's buffer.
			a.words[strings.Clone(word)] = terms
		}
		for _, t := range terms {
			fn(t)
		}
	})
}

// analyzeWord returns the terms of one word: its whole lower-cased form when
// it is a compound, then the term of each part. The strings are owned.
func (a *Analyzer) analyzeWord(word string) []string {
	var terms []string
	parts := splitIdentifier(word)
	if len(parts) > 1 {
		whole := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' || r == '$' {
				return -1
			}
			return r
		}, strings.ToLower(word))
		if len(whole) <= maxTermLen && !isNumber(whole) {
			// ToLower and Map return their input when nothing changes.
			terms = append(terms, strings.Clone(whole))
		}
	}
	for _, p := range parts {
		if t, ok := a.term(p); ok {
			terms = append(terms, t)
		}
	}
	return terms
}

func (a *Analyzer) term(part string) (string, bool) {
	if t, ok := a.stems[part]; ok {
		return t, t != ""
	}
	t, ok := Term(part)
	if len(a.stems) >= maxCache {
		clear(a.stems)
	}
	// Clone both: part and t may alias the caller's buffer.
	t = strings.Clone(t)
	a.stems[strings.Clone(part)] = t
	return t, ok
}

// Term normalises one word part (already split) into a term: lower-cased and
// stemmed. ok is false for stop words, numbers and single letters.
func Term(part string) (term string, ok bool) {
	if len(part) < 2 || len(part) > maxTermLen {
		return "", false
	}
	p := strings.ToLower(part)
	if isNumber(p) || IsStopWord(p) {
		return "", false
	}
	if !isASCII(p) {
		// Snowball English only applies to Latin text; keep other scripts
		// whole (they still match exactly).
		return p, true
	}
	return english.Stem(p, false), true
}

// IsStopWord reports whether w (lower-case) carries no retrieval value: an
// English function word or a keyword common to most programming languages.
func IsStopWord(w string) bool {
	if _, ok := codeStopWords[w]; ok {
		return true
	}
	return english.IsStopWord(w)
}

// codeStopWords are language keywords and boilerplate identifiers so common
// in source text that they only add noise to ranking.
var codeStopWords = map[string]struct{}{
	"func": {}, "function": {}, "def": {}, "return": {}, "var": {}, "let": {},
	"const": {}, "nil": {}, "null": {}, "none": {}, "true": {}, "false": {},
	"self": {}, "this": {}, "int": {}, "string": {}, "bool": {}, "err": {},
	"else": {}, "elif": {}, "import": {}, "package": {}, "public": {},
	"private": {}, "static": {}, "void": {}, "new": {}, "class": {}, "struct": {},
	"type": {}, "interface": {}, "go": {}, "pass": {}, "begin": {}, "end": {},
	"todo": {}, "www": {}, "com": {},
	// Conversational fillers: a prompt made of them asks for no code.
	"hi": {}, "hello": {}, "hey": {}, "thanks": {}, "thank": {}, "thx": {},
	"ok": {}, "okay": {}, "yes": {}, "yeah": {}, "nope": {}, "please": {},
	"pls": {}, "cool": {}, "sorry": {}, "lol": {},
}

// forEachWord yields maximal runs of identifier characters (letters, digits,
// '_', and '.', '-', '$' when they join identifier characters).
func forEachWord(text string, fn func(string)) {
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		size := 1
		var inWord bool
		if c < utf8.RuneSelf {
			inWord = wordByte[c]
			if !inWord && start >= 0 && (c == '.' || c == '-' || c == '$') && i+1 < len(text) {
				inWord = startsWithWordChar(text[i+1:])
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if inWord {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(text[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(text[start:])
	}
}

// wordByte[c] says the ASCII byte c is an identifier character: a letter, a
// digit or '_'.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return t
}()

// startsWithWordChar reports whether s begins with an identifier character.
func startsWithWordChar(s string) bool {
	if s[0] < utf8.RuneSelf {
		return wordByte[s[0]]
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// SplitIdentifier splits an identifier into its word parts, keeping their
// case: "parseHTTPRequest_v2" → ["parse", "HTTP", "Request", "v2"];
// "net/http.Server" style separators ('.', '-', '_', '$') also split.
func SplitIdentifier(id string) []string { return splitIdentifier(id) }

func splitIdentifier(id string) []string {
	if isASCII(id) {
		return splitASCII(id)
	}
	var parts []string
	runes := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(runes[start:end]))
		}
		start = end
	}
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if r == '_' || r == '-' || r == '.' || r == '$' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			// fooBar → foo|Bar
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			// HTTPServer → HTTP|Server
			flush(i)
		case isUnspaced(r) != isUnspaced(prev) && isAlnum(r) && isAlnum(prev):
			// logx能否支持field → logx|能否支持|field: text in a script
			// written without spaces runs into the identifiers it names.
			flush(i)
		}
	}
	flush(len(runes))
	return parts
}

// isUnspaced reports a letter of a script written without spaces between
// words (Chinese, Japanese).
func isUnspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// splitASCII is splitIdentifier for ASCII text, without converting to runes:
// the parts are substrings of id.
func splitASCII(id string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '_' || c == '-' || c == '.' || c == '$' {
			if i > start {
				parts = append(parts, id[start:i])
			}
			start = i + 1
			continue
		}
		if i == start || !isUpper(c) {
			continue
		}
		prev := id[i-1]
		// fooBar → foo|Bar; HTTPServer → HTTP|Server
		if isLower(prev) || isDigit(prev) || isUpper(prev) && i+1 < len(id) && isLower(id[i+1]) {
			parts = append(parts, id[start:i])
			start = i
		}
	}
	if len(id) > start {
		parts = append(parts, id[start:])
	}
	return parts
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != 'x' && !(r >= 'a' && r <= 'f') {
			return false
		}
	}
	// pure hex-looking words like "beef" are words; only treat as a number
	// when it starts with a digit.
	return len(s) > 0 && s[0] >= '0' && s[0] <= '9'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
