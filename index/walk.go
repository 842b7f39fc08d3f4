package index

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/symbols"
)

// candidate is a file the walk found that a supported language claims.
type candidate struct {
	rel   string // slash-separated, relative to the root
	abs   string
	lang  string
	size  int64
	mtime int64
}

// alwaysSkipped are directories that never hold the workspace's own source.
var alwaysSkipped = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".ctxls": true,
	"node_modules": true, "bower_components": true, "__pycache__": true,
	".venv": true, "venv": true, ".tox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".next": true, ".nuxt": true,
	".gradle": true, ".idea": true, ".terraform": true,
}

// vendorDirs hold copies of third-party code by the conventions of Go,
// pip and C/C++ projects; index.includeVendor indexes them.
var vendorDirs = map[string]bool{"vendor": true, "vendored": true, "vendored_packages": true, "_vendor": true, "third_party": true, "thirdparty": true}

// buildOutputs are skipped only next to a build manifest, because the same
// names are ordinary source directories elsewhere (Go's go/build package).
var buildOutputs = map[string]bool{"dist": true, "build": true, "out": true, "target": true, "coverage": true}

var manifests = []string{"package.json", "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts", "pyproject.toml", "setup.py", "go.mod", "tsconfig.json"}

// walker lists the files of a workspace that the index should consider,
// honouring .gitignore files (nested, with negations), .git/info/exclude,
// .ctxlsignore files and configured patterns.
type walker struct {
	root          string
	includeVendor bool
	extra         []gitignore.Pattern
	visited       map[[2]uint64]bool // (dev, inode) of directories, against symlink loops
	unsupported   int
}

func newWalker(root string, exclude []string, includeVendor bool) *walker {
	w := &walker{root: root, includeVendor: includeVendor, visited: map[[2]uint64]bool{}}
	for _, p := range exclude {
		w.extra = append(w.extra, gitignore.ParsePattern(p, nil))
	}
	return w
}

// walk returns the candidate files below the root.
func (w *walker) walk(ctx context.Context) ([]candidate, error) {
	var out []candidate
	patterns := append([]gitignore.Pattern(nil), w.extra...)
	patterns = append(patterns, readIgnoreFile(filepath.Join(w.root, ".git", "info", "exclude"), nil)...)
	err := w.dir(ctx, w.root, nil, patterns, &out)
	return out, err
}

func (w *walker) dir(ctx context.Context, abs string, rel []string, inherited []gitignore.Pattern, out *[]candidate) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, seen, err := readDir(abs)
	if err != nil {
		if len(rel) == 0 {
			return fmt.Errorf("read %s: %w", abs, err)
		}
		return nil // an unreadable subdirectory is skipped, not fatal
	}
	if seen != nil {
		if w.visited[*seen] {
			return nil // a symlink loop or a second link to the same tree
		}
		w.visited[*seen] = true
	}
	hasManifest := false
	hasIgnore := map[string]bool{}
	for _, e := range entries {
		switch name := e.Name(); name {
		case ".gitignore", ".ctxlsignore":
			hasIgnore[name] = true
		default:
			for _, m := range manifests {
				if name == m {
					hasManifest = true
				}
			}
		}
	}
	patterns := inherited
	// Only ignore files the listing holds are opened: trying both names in
	// every directory was two failed opens per directory of the walk.
	for _, name := range []string{".gitignore", ".ctxlsignore"} {
		if !hasIgnore[name] {
			continue
		}
		if ps := readIgnoreFile(filepath.Join(abs, name), rel); len(ps) > 0 {
			patterns = append(patterns[:len(patterns):len(patterns)], ps...)
		}
	}
	matcher := gitignore.NewMatcher(patterns)
	for _, e := range entries {
		name := e.Name()
		childRel := append(rel[:len(rel):len(rel)], name)
		childAbs := filepath.Join(abs, name)
		mode := e.Type()
		isDir := e.IsDir()
		if mode&fs.ModeSymlink != 0 {
			info, err := os.Stat(childAbs)
			if err != nil {
				continue // dangling link
			}
			isDir = info.IsDir()
			if !isDir && !info.Mode().IsRegular() {
				continue
			}
		} else if !isDir && !mode.IsRegular() {
			continue
		}
		if isDir {
			if alwaysSkipped[name] || (vendorDirs[name] && !w.includeVendor) || (hasManifest && buildOutputs[name]) {
				continue
			}
			if matcher.Match(childRel, true) {
				continue
			}
			if err := w.dir(ctx, childAbs, childRel, patterns, out); err != nil {
				return err
			}
			continue
		}
		lang, ok := symbols.LanguageFor(name)
		if !ok {
			w.unsupported++
			continue
		}
		if matcher.Match(childRel, false) {
			continue
		}
		// For a regular file the directory entry's lstat is the stat.
		var info fs.FileInfo
		var err error
		if mode&fs.ModeSymlink != 0 {
			info, err = os.Stat(childAbs)
		} else {
			info, err = e.Info()
		}
		if err != nil {
			continue
		}
		*out = append(*out, candidate{
			rel:   strings.Join(childRel, "/"),
			abs:   childAbs,
			lang:  lang.Name,
			size:  info.Size(),
			mtime: info.ModTime().UnixNano(),
		})
	}
	return nil
}

// readDir lists a directory sorted by name, like os.ReadDir, and returns
// its (device, inode) from a stat of the open descriptor (nil where the
// platform has none), which costs less than a second lookup by path.
func readDir(abs string) ([]fs.DirEntry, *[2]uint64, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var key *[2]uint64
	if info, err := f.Stat(); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			key = &[2]uint64{uint64(st.Dev), uint64(st.Ino)}
		}
	}
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, key, err
}

// readIgnoreFile parses a gitignore-format file; a missing file yields none.
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
