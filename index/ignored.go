package index

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/internal/wspath"
)

// rule is one ignore pattern and where it was written.
type rule struct {
	where   string // "config", ".gitignore:153", …
	text    string
	pattern gitignore.Pattern
}

// IgnoreRules explains an index that found nothing to read: the ignore
// rules at the root that exclude most of the root's entries, most first,
// as ".gitignore:153: /* excludes 27 of 28 entries at the root". It reads
// the rules the walk reads at the root, in its order (configured patterns,
// .git/info/exclude, .gitignore, .ctxlsignore), and gives each excluded
// entry to the last rule that matches it, as gitignore does. Nested ignore
// files are not read: a tree emptied by a rule is emptied at its top.
func IgnoreRules(root string, exclude []string) ([]string, error) {
	var rules []rule
	for i, p := range exclude {
		rules = append(rules, rule{where: fmt.Sprintf("config index.exclude[%d]", i), text: p, pattern: gitignore.ParsePattern(p, nil)})
	}
	for _, name := range []string{filepath.Join(".git", "info", "exclude"), ".gitignore", ".ctxlsignore"} {
		rs, err := readRules(root, name)
		if err != nil {
			return nil, err
		}
		rules = append(rules, rs...)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	counts := map[int]int{}
	total := 0
	for _, e := range entries {
		if alwaysSkipped[e.Name()] {
			continue
		}
		total++
		path := []string{e.Name()}
		dir := e.IsDir()
		decided := -1
		for i, r := range rules {
			switch r.pattern.Match(path, dir) {
			case gitignore.Exclude:
				decided = i
			case gitignore.Include:
				decided = -1
			}
		}
		if decided >= 0 {
			counts[decided]++
		}
	}
	order := make([]int, 0, len(counts))
	for i := range counts {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool {
		if counts[order[a]] != counts[order[b]] {
			return counts[order[a]] > counts[order[b]]
		}
		return order[a] < order[b]
	})
	var out []string
	for _, i := range order[:min(len(order), 3)] {
		out = append(out, fmt.Sprintf("%s: %s excludes %d of %d entries at the root", rules[i].where, rules[i].text, counts[i], total))
	}
	return out, nil
}

// readRules reads one ignore file at the root; a missing file has none.
func readRules(root, name string) ([]rule, error) {
	f, err := wspath.Open(root, name)
	if err != nil {
		// Missing, unreadable, or a link out of the workspace: the walk
		// reads no rules from it either.
		return nil, nil
	}
	defer f.Close()
	var out []rule
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, rule{where: fmt.Sprintf("%s:%d", filepath.ToSlash(name), n), text: line, pattern: gitignore.ParsePattern(line, nil)})
	}
	return out, sc.Err()
}
