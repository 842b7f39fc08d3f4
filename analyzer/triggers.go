package analyzer

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TriggerType says what produced a trigger.
type TriggerType string

// Trigger types. Message analysis yields symbol, path, implicit and error
// triggers; editor activity yields the file and selection ones.
const (
	TriggerSymbol    TriggerType = "symbol_mention"
	TriggerPath      TriggerType = "file_path"
	TriggerImplicit  TriggerType = "message"
	TriggerErrorLoc  TriggerType = "error_location"
	TriggerFileOpen  TriggerType = "file_open"
	TriggerFileEdit  TriggerType = "file_edit"
	TriggerHover     TriggerType = "symbol_hover"
	TriggerSelection TriggerType = "selection"
)

// Default relevance weights (the seed's, extended to error output and
// hover/selection).
var DefaultWeights = map[TriggerType]float64{
	TriggerPath:      0.95,
	TriggerSymbol:    0.9,
	TriggerImplicit:  0.7,
	TriggerErrorLoc:  0.95,
	TriggerFileOpen:  0.8,
	TriggerFileEdit:  0.95,
	TriggerHover:     0.85,
	TriggerSelection: 0.85,
}

// Trigger is one reason to retrieve context.
type Trigger struct {
	Type      TriggerType `json:"type"`
	Relevance float64     `json:"relevance"`
	// Query is a symbol name, a path or a phrase, depending on Type.
	Query string `json:"query"`
	// Line is set for error locations and activity positions (1-based).
	Line int `json:"line,omitempty"`
}

// messageRegexps are the patterns of Message, compiled on first use: a hook
// or command that analyzes no message (most of them) does not pay for
// compiling them at start-up.
type messageRegexps struct {
	// Qualified names: pkg.Name, Type::method, obj.method(), a.b.c.
	qualSep, qualified *regexp.Regexp
	// Plain identifiers, filtered below by shape.
	ident *regexp.Regexp
	// Paths with an extension (and optional :line:col), or with a slash.
	path, dirPath *regexp.Regexp
	// Python traceback: File "x.py", line 12, in func
	pyFrame *regexp.Regexp
	// JS/TS stack: at fn (path:12:3) or at path:12:3
	jsFrame *regexp.Regexp
	// Go panic frames: pkg/path.Func(...) then \t/path/file.go:123 +0x..
	goFunc *regexp.Regexp
	// Implicit questions: how, what, where, why.
	questions []*regexp.Regexp
}

var messagePatterns = sync.OnceValue(func() *messageRegexps {
	return &messageRegexps{
		qualSep:   regexp.MustCompile(`\.|::|->|#`),
		qualified: regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->|#)[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?`),
		ident:     regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\(\))?`),
		path:      regexp.MustCompile(`(?:^|[\s"'(\[<=,])((?:[A-Za-z]:)?(?:\.{0,2}/)?[\w@.+-]+(?:/[\w@.+-]+)*\.[A-Za-z][A-Za-z0-9]{0,9})(?::(\d+))?(?::\d+)?`),
		dirPath:   regexp.MustCompile(`(?:^|[\s"'(\[<])((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+)/?(?:$|[\s"')\]>,.:;])`),
		pyFrame:   regexp.MustCompile(`File "([^"]+)", line (\d+)(?:, in ([\w<>]+))?`),
		jsFrame:   regexp.MustCompile(`\bat (?:(?:async )?([\w$.<>]+) )?\(?((?:[A-Za-z]:)?[^\s():]+\.[cm]?[jt]sx?):(\d+):\d+\)?`),
		goFunc:    regexp.MustCompile(`(?m)^([\w./-]+)\.(\(?\*?[\w]+\)?\.)?([\w]+)\(`),
		questions: []*regexp.Regexp{
			regexp.MustCompile(`(?i)\bhow (?:does|do|is|are|can|could|should|would) (?:the |a |an )?([\w.:-]+(?:\s+[\w.:-]+){0,3})`),
			regexp.MustCompile(`(?i)\bwhat (?:is|are|does) (?:the |a |an )?([\w.:-]+(?:\s+[\w.:-]+){0,3})`),
			regexp.MustCompile(`(?i)\bwhere (?:is|are|do|does) (?:the |a |an )?([\w.:-]+(?:\s+[\w.:-]+){0,3})`),
			regexp.MustCompile(`(?i)\bwhy (?:does|do|is|are|did) (?:the |a |an )?([\w.:-]+(?:\s+[\w.:-]+){0,3})`),
		},
	}
})

// commonWords are capitalised or identifier-shaped words that are English,
// not code.
var commonWords = map[string]bool{
	"The": true, "This": true, "That": true, "What": true, "When": true, "Where": true,
	"How": true, "Why": true, "Who": true, "Which": true, "Can": true, "Could": true,
	"Should": true, "Would": true, "Please": true, "Thanks": true, "Also": true,
	"Now": true, "Then": true, "Add": true, "Fix": true, "Make": true, "Use": true,
	"Let": true, "If": true, "In": true, "On": true, "It": true, "Is": true, "Are": true,
	"And": true, "Or": true, "But": true, "Not": true, "Do": true, "Does": true,
	"We": true, "You": true, "My": true, "Our": true, "Is it": true, "There": true,
	"Here": true, "Some": true, "All": true, "Any": true, "For": true, "With": true,
	"From": true, "To": true, "After": true, "Before": true, "OK": true, "Ok": true,
	"Yes": true, "No": true, "Hi": true, "Hello": true, "Error": true, "Warning": true,
	"Traceback": true, "File": true, "Line": true, "TODO": true, "README": true,
	"I": true, "A": true, "An": true, "So": true, "Just": true, "Maybe": true,
	"Update": true, "Remove": true, "Change": true, "Write": true, "Create": true,
	"Implement": true, "Refactor": true, "Support": true, "Check": true, "Ensure": true,
	"Allow": true, "Avoid": true, "Move": true, "Rename": true, "Improve": true,
	"Delete": true, "Return": true, "Handle": true, "Get": true, "Set": true, "See": true,
}

// Message analyzes a message (a prompt, an issue, pasted error output) and
// returns its triggers, strongest first, without duplicates. Web addresses
// count only for the repository files they link to (WithoutLinks).
func Message(text string) []Trigger {
	text = WithoutLinks(text)
	re := messagePatterns()
	var out []Trigger
	seen := map[string]bool{}
	add := func(t TriggerType, q string, line int) {
		q = strings.TrimSpace(q)
		if q == "" || len(q) > 200 {
			return
		}
		key := string(t) + "\x00" + q + "\x00" + strconv.Itoa(line)
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, Trigger{Type: t, Relevance: DefaultWeights[t], Query: q, Line: line})
	}

	// Error output first: it names exact places.
	for _, m := range re.pyFrame.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		add(TriggerErrorLoc, m[1], n)
		if m[3] != "" && !strings.HasPrefix(m[3], "<") {
			add(TriggerSymbol, m[3], 0)
		}
	}
	for _, m := range re.jsFrame.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[3])
		if !strings.Contains(m[2], "node_modules") && !strings.HasPrefix(m[2], "node:") {
			add(TriggerErrorLoc, m[2], n)
			if m[1] != "" {
				add(TriggerSymbol, lastPart(m[1]), 0)
			}
		}
	}
	for _, m := range re.goFunc.FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "/") || m[2] != "" {
			add(TriggerSymbol, m[3], 0)
		}
	}
	paths := map[string]bool{}
	for _, m := range re.path.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if isURLish(text, p) || !looksLikePath(p) {
			continue
		}
		line := 0
		if m[2] != "" {
			line, _ = strconv.Atoi(m[2])
		}
		paths[p] = true
		if line > 0 {
			add(TriggerErrorLoc, p, line)
		} else {
			add(TriggerPath, p, 0)
		}
	}
	for _, m := range re.dirPath.FindAllStringSubmatch(text, -1) {
		if !paths[m[1]] && !isURLish(text, m[1]) && strings.Count(m[1], "/") >= 1 && !strings.Contains(m[1], "//") {
			add(TriggerPath, m[1], 0)
		}
	}

	// Symbols.
	for _, span := range tickedSpans(text) {
		for _, id := range re.ident.FindAllString(span, -1) {
			id = strings.TrimSuffix(id, "()")
			if len(id) > 1 && !commonWords[id] && !IsStopWord(strings.ToLower(id)) {
				add(TriggerSymbol, id, 0)
			}
		}
	}
	// Components of a qualified name are not mentions of their own:
	// "AuthService.Login" is about Login, not about every AuthService.
	component := map[string]bool{}
	for _, q := range re.qualified.FindAllString(text, -1) {
		q = strings.TrimSuffix(q, "()")
		if looksLikePath(q) || isURLish(text, q) || isSentenceDot(q) {
			continue
		}
		add(TriggerSymbol, q, 0)
		for _, p := range re.qualSep.Split(q, -1) {
			component[p] = true
		}
	}
	for _, id := range re.ident.FindAllString(text, -1) {
		call := strings.HasSuffix(id, "()")
		id = strings.TrimSuffix(id, "()")
		if commonWords[id] || component[id] || (!call && !isCodeShaped(id)) {
			continue
		}
		add(TriggerSymbol, id, 0)
	}

	// Implicit questions.
	for _, q := range re.questions {
		for _, m := range q.FindAllStringSubmatch(text, -1) {
			phrase := strings.TrimRight(m[1], ".:-")
			if informative(phrase) && !personal(phrase) {
				add(TriggerImplicit, phrase, 0)
			}
		}
	}
	return out
}

// maxTicked is the longest backticked span, in characters, that counts as
// a code mention.
const maxTicked = 120

// tickedSpans returns the contents of backticked code spans (intentional
// mentions whatever their shape): what the capture of "`([^`\n]{1,120})`"
// matches, in order. It is written out because that counted repetition
// compiles to 120 copies of the class, a quarter of the analyzer's regexp
// compilation in every process that reads a message.
func tickedSpans(text string) []string {
	var out []string
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			return out
		}
		start := i + j + 1
		k, n := start, 0
		for k < len(text) && text[k] != '`' && text[k] != '\n' && n <= maxTicked {
			_, size := utf8.DecodeRuneInString(text[k:])
			k += size
			n++
		}
		if k < len(text) && text[k] == '`' && n >= 1 && n <= maxTicked {
			out = append(out, text[start:k])
			i = k + 1
			continue
		}
		// No span opens here; the next backtick may open one.
		i = start
	}
}

// isCodeShaped reports identifiers that are unlikely to be English words:
// camelCase, PascalCase with an inner capital, snake_case, or ALL_CAPS with
// an underscore or digit.
func isCodeShaped(id string) bool {
	if len(id) < 3 {
		return false
	}
	if strings.Contains(strings.Trim(id, "_"), "_") {
		return true
	}
	upper, lower, inner := 0, 0, false
	for i, r := range id {
		switch {
		case unicode.IsUpper(r):
			upper++
			if i > 0 {
				inner = true
			}
		case unicode.IsLower(r):
			lower++
		}
	}
	return inner && lower > 0
}

// personal reports whether a question's phrase has a person for its
// subject ("how do I undo the last commit", "how can we deploy it"): the
// asker wants to know how to do something, and what follows names an
// action, not the subject in the code the question is about ("how does the
// scheduler pick the next task"). Its words still count as the message's.
func personal(phrase string) bool {
	first, _, _ := strings.Cut(phrase, " ")
	switch strings.ToLower(first) {
	case "i", "we", "you", "one":
		return true
	}
	return false
}

func informative(phrase string) bool {
	for _, w := range strings.Fields(phrase) {
		if !IsStopWord(strings.ToLower(w)) && len(w) > 2 {
			return true
		}
	}
	return false
}

var knownExt = map[string]bool{
	"go": true, "py": true, "js": true, "jsx": true, "ts": true, "tsx": true, "mjs": true, "cjs": true,
	"rs": true, "java": true, "c": true, "h": true, "cc": true, "cpp": true, "hpp": true, "cs": true,
	"rb": true, "php": true, "md": true, "json": true, "yaml": true, "yml": true, "toml": true,
	"kt": true, "swift": true, "sh": true, "sql": true, "proto": true, "mod": true, "txt": true,
	"html": true, "css": true, "scss": true, "vue": true, "svelte": true, "cxx": true, "hh": true,
}

// looksLikePath accepts a string with a slash, or a name with a known file
// extension (so "fmt.Println" is a symbol and "main.go" a path).
func looksLikePath(p string) bool {
	ext := p[strings.LastIndexByte(p, '.')+1:]
	return knownExt[strings.ToLower(ext)]
}

// isSentenceDot rejects "word.Word" produced by a missing space after a
// full stop.
func isSentenceDot(q string) bool {
	parts := strings.Split(q, ".")
	if len(parts) != 2 || strings.Contains(q, "::") {
		return false
	}
	return len(parts[0]) > 0 && unicode.IsLower(rune(parts[0][0])) && len(parts[1]) > 0 && unicode.IsUpper(rune(parts[1][0])) && !isCodeShaped(parts[0]) && len(parts[0]) > 3 && IsStopWord(strings.ToLower(parts[0]))
}

func isURLish(text, p string) bool {
	i := strings.Index(text, p)
	if i < 0 {
		return false
	}
	before := text[max(0, i-12):i]
	return strings.Contains(before, "://") || strings.HasSuffix(before, "www.")
}

func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		return s[i+1:]
	}
	return s
}
