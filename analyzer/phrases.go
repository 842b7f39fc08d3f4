package analyzer

import (
	"strings"
	"unicode/utf8"
)

// Phrase is a run of a message's plain words that may spell the parts of
// one identifier in order: "pick the next task" may mean
// pick_next_task_fair, "value parser" ValueParser, "anonymous page"
// do_anonymous_page. An entity's name field holds its identifier's parts
// as terms in order, so the terms are searched there as a phrase.
type Phrase struct {
	// Terms are the words' terms, in order.
	Terms []string
}

// maxPhraseWords is the longest run taken: two and three words.
const maxPhraseWords = 3

// String is the phrase's terms separated by spaces.
func (p Phrase) String() string { return strings.Join(p.Terms, " ") }

// Phrases returns the runs of two and three adjacent plain words of text
// (stop words between them do not break a run; punctuation does), in
// order of appearance, without repeats, at most limit. A plain word is
// letters only, lower-case, capitalised or an acronym: an identifier
// (ArgMatches, load_module) is matched as written by Message's triggers.
func Phrases(text string, limit int) []Phrase {
	var out []Phrase
	seen := map[string]bool{}
	var run []string // the current clause's plain words, lower-cased
	flush := func() { run = run[:0] }
	add := func(word string) {
		run = append(run, word)
		for n := 2; n <= maxPhraseWords && n <= len(run) && len(out) < limit; n++ {
			if p, ok := phraseOf(run[len(run)-n:]); ok && !seen[p.String()] {
				seen[p.String()] = true
				out = append(out, p)
			}
		}
	}
	start := -1
	for i := 0; i <= len(text) && len(out) < limit; {
		c := byte(' ')
		size := 1
		if i < len(text) {
			c = text[i]
			if c >= utf8.RuneSelf {
				_, size = utf8.DecodeRuneInString(text[i:])
			}
		}
		if i < len(text) && c < utf8.RuneSelf && wordByte[c] {
			if start < 0 {
				start = i
			}
			i += size
			continue
		}
		if start >= 0 {
			word := text[start:i]
			start = -1
			switch w, plain := plainWord(word); {
			case IsStopWord(strings.ToLower(word)):
				// "pick the next task": the words around it still run on.
			case plain:
				add(w)
			default:
				flush()
			}
		}
		if c != ' ' && c != '\t' {
			flush() // punctuation, a line break, a non-ASCII letter
		}
		i += size
	}
	return out
}

// plainWord returns word lower-cased and whether it is a plain word:
// ASCII letters, all lower-case, capitalised, or all upper-case (an
// acronym: UDP, CFS).
func plainWord(word string) (string, bool) {
	if len(word) < 2 || len(word) > maxTermLen {
		return "", false
	}
	lower, upper := 0, 0
	for i := 0; i < len(word); i++ {
		switch c := word[i]; {
		case isLower(c):
			lower++
		case isUpper(c):
			upper++
		default:
			return "", false
		}
	}
	if upper > 1 && lower > 0 || upper == 1 && !isUpper(word[0]) {
		return "", false // camelCase, PascalCase: an identifier
	}
	return strings.ToLower(word), true
}

// phraseOf makes a Phrase of words (lower-cased plain words).
func phraseOf(words []string) (Phrase, bool) {
	p := Phrase{Terms: make([]string, 0, len(words))}
	for _, w := range words {
		t, ok := Term(w)
		if !ok {
			return Phrase{}, false
		}
		p.Terms = append(p.Terms, t)
	}
	return p, true
}
