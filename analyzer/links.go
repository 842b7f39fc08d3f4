package analyzer

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// linkPattern matches a web address as people paste it: a scheme or a
// leading "www.", up to white space or a closing bracket or quote.
var linkPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:(?:https?|ftp)://|www\.)[^\s<>()\[\]{}"'` + "`" + `]+`)
})

// fileLinkMarkers are the path segments after which a forge's address
// names a revision and then a file of the repository: GitHub's and
// Gitea's blob/tree/blame/raw, GitLab's the same after "/-/".
var fileLinkMarkers = map[string]bool{"blob": true, "tree": true, "blame": true, "raw": true}

// WithoutLinks returns text with every web address in it replaced by the
// repository path it links to, or removed.
//
// An address is written for a browser: its host, ids and hashes
// ("user-images.githubusercontent.com/17900775/188590444-fafa374d…png")
// are the rarest words of a message and would lead every search, though
// the code never contains them. A link to a file of a repository
// (".../blob/<rev>/core/timingwheel.go#L75-L96") names that file, and
// keeps it: "core/timingwheel.go:75", a path Message reads as a place.
// The text of a Markdown link ("[middleware](https://…)") is the writer's
// and stays.
func WithoutLinks(text string) string {
	if !mayHoldLink(text) {
		return text
	}
	return linkPattern().ReplaceAllStringFunc(text, func(link string) string {
		// Sentence punctuation after an address is not part of it.
		trimmed := strings.TrimRight(link, ".,;:!?")
		rest := link[len(trimmed):]
		if p := linkedPath(trimmed); p != "" {
			return " " + p + " " + rest
		}
		return " " + rest
	})
}

// mayHoldLink is WithoutLinks' first look, true when text holds "://" or
// "www." in any case, as linkPattern needs. It runs for every prompt
// (twice on the hook path: Message and Query each clean their text), so it
// does not lower-case a copy of the whole message.
func mayHoldLink(text string) bool {
	if strings.Contains(text, "://") {
		return true
	}
	for i := strings.IndexAny(text, "wW"); i >= 0 && i+4 <= len(text); {
		if strings.EqualFold(text[i:i+4], "www.") {
			return true
		}
		j := strings.IndexAny(text[i+1:], "wW")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// linkedPath returns the repository path a forge's file link names, with
// ":line" when it names a line, or "" for any other address.
func linkedPath(link string) string {
	if !strings.Contains(link, "://") {
		link = "https://" + link
	}
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i, s := range segs {
		// owner/repo/blob/<rev>/<path...>: at least one path segment.
		if i < 2 || !fileLinkMarkers[s] || i+2 >= len(segs) {
			continue
		}
		p, err := url.PathUnescape(strings.Join(segs[i+2:], "/"))
		if err != nil || !utf8.ValidString(p) || strings.ContainsAny(p, " \t\n") {
			return ""
		}
		if line := fragmentLine(u.Fragment); line != "" {
			p += ":" + line
		}
		return p
	}
	return ""
}

// fragmentLine returns the first line a forge's fragment names ("L75",
// "L75-L96", "L75C3"), or "".
func fragmentLine(frag string) string {
	if !strings.HasPrefix(frag, "L") {
		return ""
	}
	n := 1
	for n < len(frag) && frag[n] >= '0' && frag[n] <= '9' {
		n++
	}
	return frag[1:n]
}
