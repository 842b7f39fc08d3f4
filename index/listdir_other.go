//go:build !linux

package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// listDir reads a directory with the portable os calls. A link swapped in
// for a subdirectory (sub) after its parent was listed is followed here, but
// its files are read only through wspath, which refuses them.
func listDir(abs string, sub bool) listing {
	f, err := os.Open(abs)
	if err != nil {
		return listing{err: err}
	}
	defer f.Close()
	var l listing
	if info, err := f.Stat(); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			l.key = &[2]uint64{uint64(st.Dev), uint64(st.Ino)}
		}
	}
	des, err := f.ReadDir(-1)
	if err != nil {
		return listing{err: err}
	}
	for _, de := range des {
		name := de.Name()
		l.note(name)
		mode := de.Type()
		if mode&fs.ModeSymlink != 0 {
			// Never followed (the walk decides why, by its real path): what
			// it points to decides only whether it would have been a
			// directory or a source file; a dangling link is nothing.
			target, err := os.Stat(filepath.Join(abs, name))
			if err != nil {
				continue
			}
			e := dirEntry{name: name, link: true}
			switch {
			case target.IsDir():
			case target.Mode().IsRegular():
				if e.lang = languageOf(name); e.lang == "" {
					l.noteUnsupported(name)
					continue
				}
			default:
				continue
			}
			// The row is the link's: a link made again has another mtime.
			if info, err := de.Info(); err != nil {
				e.statErr = true
			} else {
				e.size, e.mtime = info.Size(), info.ModTime().UnixNano()
			}
			l.entries = append(l.entries, e)
			continue
		}
		switch {
		case mode.IsDir():
			l.entries = append(l.entries, dirEntry{name: name})
		case mode.IsRegular():
			lang := languageOf(name)
			if lang == "" {
				l.noteUnsupported(name)
				continue
			}
			e := dirEntry{name: name, lang: lang}
			if info, err := de.Info(); err != nil {
				e.statErr = true
			} else {
				e.size, e.mtime = info.Size(), info.ModTime().UnixNano()
			}
			l.entries = append(l.entries, e)
		}
	}
	return l
}
