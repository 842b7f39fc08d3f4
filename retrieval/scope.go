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
// long body mentions much else.
func subjectWords(text string) map[string]bool {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if len(line) > maxSubjectBytes {
		line = line[:maxSubjectBytes]
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(line, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 2 && unicode.IsLetter([]rune(w)[0]) {
			words[strings.ToLower(w)] = true
		}
	}
	return words
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
