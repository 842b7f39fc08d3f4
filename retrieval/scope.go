package retrieval

import (
	"context"
	"math"
	"strings"
	"unicode"

	"github.com/ctxls/ctxls/store"
)

// maxSubjectBytes bounds a message's subject: its first line, as long as a
// commit subject or an issue title runs.
const maxSubjectBytes = 100

// subjectWords are the words of a message's subject (its first line, at
// most maxSubjectBytes), lowercased: a letter, then letters or digits. A
// subject names the area of a change ("fix(logx): …", "goctl: …"), while a
// long body mentions much else. The words that say what kind of change it is
// ("fix", "bug", "feat") name no area, whatever directory happens to share
// the name (go-zero's goctl bug command, hono's jsx/dom/feat), unless the
// subject puts them in parentheses, where a conventional commit names its
// scope ("fix(bug): …").
func subjectWords(text string) map[string]bool {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if len(line) > maxSubjectBytes {
		line = line[:maxSubjectBytes]
	}
	words := map[string]bool{}
	depth := 0
	var word []rune
	flush := func() {
		if len(word) >= 2 && unicode.IsLetter(word[0]) {
			w := strings.ToLower(string(word))
			if depth > 0 || !changeKinds[w] {
				words[w] = true
			}
		}
		word = word[:0]
	}
	for _, r := range line {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = append(word, r)
			continue
		}
		flush()
		switch r {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		}
	}
	flush()
	return words
}

// changeKinds are the words of a commit subject or an issue title that say
// what kind of change it is, not where: Conventional Commits' fix and feat
// and their kin. A directory may share the name; the word still does not
// point at it.
var changeKinds = map[string]bool{
	"fix": true, "fixes": true, "fixed": true, "bug": true, "bugs": true, "bugfix": true, "hotfix": true,
	"issue": true, "issues": true, "feat": true, "feature": true,
}

// scopes scores files by the directories a message's subject names
// (decision 0076).
type scopes struct {
	st      *store.Store
	subject map[string]bool
	total   int            // parsed files; 0 until first needed
	under   map[string]int // directory → parsed files under it
}

// of is the scope signal of a file: for the directories on its path whose
// name is a word of the subject, the most specific one's share of the
// workspace in IDF form, log(N / files under it) / log(N), in [0, 1]. A
// directory holding most of the workspace says little; a package of a few
// files, much.
func (s *scopes) of(ctx context.Context, p string) (float64, error) {
	if len(s.subject) == 0 {
		return 0, nil
	}
	var best float64
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		dir := p[:i]
		name := dir[strings.LastIndexByte(dir, '/')+1:]
		if !s.subject[strings.ToLower(name)] {
			continue
		}
		if s.total == 0 {
			n, err := s.st.ParsedFiles(ctx)
			if err != nil {
				return 0, err
			}
			s.total, s.under = n, map[string]int{}
		}
		n, ok := s.under[dir]
		if !ok {
			var err error
			if n, err = s.st.ParsedFilesUnder(ctx, dir); err != nil {
				return 0, err
			}
			s.under[dir] = n
		}
		if n > 0 && s.total > 1 && n <= s.total {
			best = math.Max(best, math.Log(float64(s.total)/float64(n))/math.Log(float64(s.total)))
		}
	}
	return best, nil
}
