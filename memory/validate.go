package memory

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits from the seed's data model.
const (
	MaxTitle   = 200
	MaxTag     = 50
	MaxLabel   = 50
	MaxContent = 50000
)

// slugPattern is the seed's slug rule; it admits no dots or slashes, so a
// valid slug is also a safe file name.
var slugPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// ValidSlug reports whether s is a valid slug (also used for tags and edge
// labels, which follow the same lowercase-hyphenated rule).
func ValidSlug(s string) bool { return slugPattern().MatchString(s) }

// ValidationError lists every rule a memory breaks.
type ValidationError []string

func (e ValidationError) Error() string {
	if len(e) == 1 {
		return "invalid memory: " + e[0]
	}
	return "invalid memory:\n  - " + strings.Join(e, "\n  - ")
}

// ErrInvalidSlug is the error CheckSlug wraps.
var ErrInvalidSlug = errors.New("invalid slug")

// CheckSlug returns an error wrapping ErrInvalidSlug when s is not a valid
// slug.
func CheckSlug(s string) error {
	if !ValidSlug(s) {
		return fmt.Errorf("%w %q: use lowercase letters, digits and single hyphens (%s)", ErrInvalidSlug, s, slugPattern())
	}
	return nil
}

// Validate checks a memory against the seed's rules: slug pattern, type,
// title length, non-empty lowercase-hyphenated tags, timestamps present,
// not in the future and updated ≥ created, content length, and a gotcha's
// severity. Links to missing memories are checked on read (Health), not
// here.
func Validate(m *Memory, now time.Time) error {
	var errs ValidationError
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if !ValidSlug(m.Slug) {
		add("slug %q must match %s", m.Slug, slugPattern())
	}
	if !m.Type.Valid() {
		add("type %q must be one of decision, learning, artifact, gotcha, breadcrumb, hub", m.Type)
	}
	switch n := utf8.RuneCountInString(m.Title); {
	case strings.TrimSpace(m.Title) == "":
		add("title is required")
	case n > MaxTitle:
		add("title has %d characters, at most %d allowed", n, MaxTitle)
	}
	if len(m.Tags) == 0 {
		add("tags must not be empty")
	}
	for _, t := range m.Tags {
		if !ValidSlug(t) || len(t) > MaxTag {
			add("tag %q must be lowercase and hyphenated, 1-%d characters", t, MaxTag)
		}
	}
	switch {
	case m.Created.IsZero():
		add("created timestamp is required")
	case m.Created.After(now):
		add("created %s is in the future", FormatTime(m.Created))
	}
	switch {
	case m.Updated.IsZero():
		add("updated timestamp is required")
	case m.Updated.After(now):
		add("updated %s is in the future", FormatTime(m.Updated))
	case !m.Created.IsZero() && m.Updated.Before(m.Created):
		add("updated %s is before created %s", FormatTime(m.Updated), FormatTime(m.Created))
	}
	if n := utf8.RuneCountInString(m.Content); n > MaxContent {
		add("content has %d characters, at most %d allowed", n, MaxContent)
	}
	for _, l := range m.Links {
		if !ValidSlug(l) {
			add("link %q is not a valid slug", l)
		}
		if l == m.Slug {
			add("link to itself")
		}
	}
	if m.Severity != "" && !slices.Contains(Severities, m.Severity) {
		add("severity %q must be one of low, medium, high, critical", m.Severity)
	}
	for _, f := range m.Files {
		if err := checkFilePattern(f); err != nil {
			add("%v", err)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// checkFilePattern rejects attached paths that would escape the workspace.
func checkFilePattern(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
		return fmt.Errorf("file %q must be a path or glob relative to the workspace root, without \"..\" parts", p)
	}
	return nil
}
