package index

import (
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listDir reads a directory with getdents and stats source files relative
// to the open directory, which spares the kernel a lookup of the whole path
// per file and the Go runtime an allocation per name it does not need.
//
// A subdirectory (sub) is opened with O_NOFOLLOW: a link swapped in for it
// after its parent was listed is not followed out of the workspace.
func listDir(abs string, sub bool) listing {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if sub {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(abs, flags, 0)
	if err != nil {
		return listing{err: &os.PathError{Op: "open", Path: abs, Err: err}}
	}
	defer unix.Close(fd)
	var l listing
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		l.key = &[2]uint64{uint64(st.Dev), uint64(st.Ino)}
	}
	buf := direntBufs.Get().(*[32 << 10]byte)
	defer direntBufs.Put(buf)
	for {
		n, err := unix.Getdents(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return listing{err: &os.PathError{Op: "readdirent", Path: abs, Err: err}}
		}
		if n <= 0 {
			break
		}
		if l.entries == nil {
			// Most directories fit one read: size the slice from it.
			l.entries = make([]dirEntry, 0, countDirents(buf[:n]))
		}
		for b := buf[:n]; len(b) > 0; {
			d := (*unix.Dirent)(unsafe.Pointer(&b[0]))
			rec := int(d.Reclen)
			if rec == 0 || rec > len(b) {
				break
			}
			name := direntName(b[unsafe.Offsetof(d.Name):rec])
			b = b[rec:]
			if d.Ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			l.add(fd, name, d.Type)
		}
	}
	return l
}

// direntBufs holds getdents buffers: too large for the walking goroutine's
// stack, which the recursion would then copy as it grows.
var direntBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// countDirents returns the number of records in a getdents buffer.
func countDirents(b []byte) int {
	n := 0
	for len(b) > 0 {
		rec := int((*unix.Dirent)(unsafe.Pointer(&b[0])).Reclen)
		if rec == 0 || rec > len(b) {
			break
		}
		b = b[rec:]
		n++
	}
	return n
}

// add classifies one directory entry, with a stat where the walk needs one.
// name points into the read buffer: it is copied only when kept.
func (l *listing) add(dirfd int, name []byte, typ uint8) {
	view := unsafeString(name)
	l.note(view)
	var st unix.Stat_t
	if typ == unix.DT_UNKNOWN {
		// Some file systems do not report types in the listing.
		if fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return
		}
		typ = dtOf(st.Mode)
	}
	switch typ {
	case unix.DT_DIR:
		l.entries = append(l.entries, dirEntry{name: string(name)})
	case unix.DT_REG:
		lang := languageOf(view)
		if lang == "" {
			l.noteUnsupported(string(name))
			return
		}
		e := dirEntry{name: string(name), lang: lang}
		if err := fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			e.statErr = true
		} else {
			e.size, e.mtime = st.Size, st.Mtim.Nano()
		}
		l.entries = append(l.entries, e)
	case unix.DT_LNK:
		// A link is never followed (the walk decides why, by its real
		// path); what it points to decides only whether it would have been
		// a directory or a source file, and a dangling link is nothing.
		if fstatat(dirfd, name, &st, 0) != nil {
			return
		}
		e := dirEntry{name: string(name), link: true}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
		case unix.S_IFREG:
			if e.lang = languageOf(view); e.lang == "" {
				l.noteUnsupported(string(name))
				return
			}
		default:
			return
		}
		// The row is the link's: a link made again has another mtime.
		if fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			e.statErr = true
		} else {
			e.size, e.mtime = st.Size, st.Mtim.Nano()
		}
		l.entries = append(l.entries, e)
	}
}

// fstatat stats a name from the read buffer relative to dirfd.
func fstatat(dirfd int, name []byte, st *unix.Stat_t, flags int) error {
	return unix.Fstatat(dirfd, unsafeString(name), st, flags)
}

// dtOf maps a stat mode onto a directory entry type.
func dtOf(mode uint32) uint8 {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFLNK:
		return unix.DT_LNK
	}
	return unix.DT_UNKNOWN
}

// direntName returns the NUL-terminated name at the start of b.
func direntName(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
