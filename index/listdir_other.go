//go:build !linux

package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// listDir reads a directory with the portable os calls.
func listDir(abs string) listing {
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
		var info fs.FileInfo
		if mode&fs.ModeSymlink != 0 {
			if info, err = os.Stat(filepath.Join(abs, name)); err != nil {
				continue // a dangling link
			}
			mode = info.Mode().Type()
		}
		switch {
		case mode.IsDir():
			l.entries = append(l.entries, dirEntry{name: name})
		case mode.IsRegular():
			lang := languageOf(name)
			if lang == "" {
				l.unsupported++
				continue
			}
			e := dirEntry{name: name, lang: lang}
			if info == nil {
				info, err = de.Info()
			}
			if err != nil {
				e.statErr = true
			} else {
				e.size, e.mtime = info.Size(), info.ModTime().UnixNano()
			}
			l.entries = append(l.entries, e)
		}
	}
	return l
}
