package index

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/config"
)

// Scope answers, one path at a time, whether a whole walk of the root would
// enter a directory or consider a file: the ignore files on the way down
// (.gitignore, .ctxlsignore, .git/info/exclude), the configured patterns,
// vendor and build-output directories and the directories that never hold
// source. The file watchers ask it, so that what they re-index on their own
// is exactly what the walk would have (a file under an ignored build/ is
// neither watched nor indexed).
//
// A Scope reads each directory's ignore files once; it does not notice
// them change. Its user starts a new Scope when an ignore file changes
// (IgnoreFile). It is not safe for concurrent use.
type Scope struct {
	root string
	w    *walker
	base []gitignore.Pattern
	dirs map[string]*scopeDir
}

// scopeDir is what the walk knows of one directory when it decides about
// its entries: the patterns in force and whether a build manifest is there.
type scopeDir struct {
	patterns []gitignore.Pattern
	manifest bool
}

// NewScope returns the Scope of a walk of root with the index settings of
// its configuration (exclude patterns, vendor directories).
func NewScope(root string, cfg config.Index) *Scope {
	w := newWalker(root, cfg.Exclude, cfg.IncludeVendor)
	base := append([]gitignore.Pattern(nil), w.extra...)
	base = append(base, readIgnoreFile(filepath.Join(root, ".git", "info", "exclude"), nil)...)
	return &Scope{root: root, w: w, base: base, dirs: map[string]*scopeDir{}}
}

// IgnoreFile reports whether a file name is one whose change alters a
// Scope: an ignore file the walk reads.
func IgnoreFile(name string) bool { return name == ".gitignore" || name == ".ctxlsignore" }

// Dir reports whether the walk enters the directory rel (slash-separated,
// relative to the root; "" is the root itself).
func (s *Scope) Dir(rel string) bool {
	if rel == "" || rel == "." {
		return true
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		parent := s.dir(parts[:i])
		if s.w.skipDir(parts[i], parts[:i], parent.manifest, gitignore.NewMatcher(parent.patterns)) {
			return false
		}
	}
	return true
}

// File reports whether the walk considers the file rel, its language
// aside: every directory above it is entered and no pattern ignores it.
func (s *Scope) File(rel string) bool {
	parts := strings.Split(rel, "/")
	if len(parts) > 1 && !s.Dir(strings.Join(parts[:len(parts)-1], "/")) {
		return false
	}
	parent := s.dir(parts[:len(parts)-1])
	return !gitignore.NewMatcher(parent.patterns).Match(parts, false)
}

// dir returns the rules in force inside the directory of the given path
// elements, reading its ignore files (and those above it) once.
func (s *Scope) dir(parts []string) *scopeDir {
	key := strings.Join(parts, "/")
	if d, ok := s.dirs[key]; ok {
		return d
	}
	inherited := s.base
	if len(parts) > 0 {
		inherited = s.dir(parts[:len(parts)-1]).patterns
	}
	abs := filepath.Join(append([]string{s.root}, parts...)...)
	d := &scopeDir{patterns: inherited}
	for _, name := range []string{".gitignore", ".ctxlsignore"} {
		if ps := readIgnoreFile(filepath.Join(abs, name), parts); len(ps) > 0 {
			d.patterns = append(d.patterns[:len(d.patterns):len(d.patterns)], ps...)
		}
	}
	for _, m := range manifests {
		if _, err := os.Stat(filepath.Join(abs, m)); err == nil {
			d.manifest = true
			break
		}
	}
	s.dirs[key] = d
	return d
}
