package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxls/ctxls/store"
)

// refSpill holds the unresolved references of a cold run on disk between
// parsing and resolution: they can be resolved only once every definition
// is stored, and held in memory they grew a kernel's index run by gigabytes.
// References are written file by file and read back in the same order.
type refSpill struct {
	f   *os.File
	w   *bufio.Writer
	r   *bufio.Reader
	buf []byte
}

// spillPattern names the spill files in the state directory.
const spillPattern = "refs-*.spill"

// newRefSpill creates the spill file in dir; close removes it. The caller
// holds the index lock, so a spill file already there is a killed run's:
// it is removed first.
func newRefSpill(dir string) (*refSpill, error) {
	if stale, err := filepath.Glob(filepath.Join(dir, spillPattern)); err == nil {
		for _, p := range stale {
			os.Remove(p)
		}
	}
	f, err := os.CreateTemp(dir, spillPattern)
	if err != nil {
		return nil, fmt.Errorf("spill references: %w", err)
	}
	return &refSpill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// put appends one file's references.
func (s *refSpill) put(refs []store.Ref) error {
	b := binary.AppendUvarint(s.buf[:0], uint64(len(refs)))
	for i := range refs {
		r := &refs[i]
		b = binary.AppendUvarint(b, uint64(r.SrcID))
		b = binary.AppendUvarint(b, uint64(r.FileID))
		b = binary.AppendUvarint(b, uint64(r.DstID))
		b = binary.AppendUvarint(b, uint64(r.Kind))
		b = binary.AppendVarint(b, int64(r.Line))
		b = binary.AppendUvarint(b, uint64(len(r.Name)))
		b = append(b, r.Name...)
		b = binary.AppendUvarint(b, uint64(len(r.Qualifier)))
		b = append(b, r.Qualifier...)
	}
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("spill references: %w", err)
	}
	return nil
}

// rewind ends writing; next then returns the files' references in the
// order put wrote them.
func (s *refSpill) rewind() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spill references: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spill references: %w", err)
	}
	s.r = bufio.NewReaderSize(s.f, 1<<20)
	return nil
}

// next reads the next file's references into refs[:0].
func (s *refSpill) next(refs []store.Ref) ([]store.Ref, error) {
	refs = refs[:0]
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return refs, s.readErr(err)
	}
	for range n {
		var r store.Ref
		var u [4]uint64
		for i := range u {
			if u[i], err = binary.ReadUvarint(s.r); err != nil {
				return refs, s.readErr(err)
			}
		}
		line, err := binary.ReadVarint(s.r)
		if err != nil {
			return refs, s.readErr(err)
		}
		r.SrcID, r.FileID, r.DstID, r.Kind, r.Line = int64(u[0]), int64(u[1]), int64(u[2]), store.RefKind(u[3]), int(line)
		if r.Name, err = s.readString(); err != nil {
			return refs, err
		}
		if r.Qualifier, err = s.readString(); err != nil {
			return refs, err
		}
		refs = append(refs, r)
	}
	return refs, nil
}

func (s *refSpill) readString() (string, error) {
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return "", s.readErr(err)
	}
	if n == 0 {
		return "", nil
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	if _, err := io.ReadFull(s.r, b); err != nil {
		return "", s.readErr(err)
	}
	return string(b), nil
}

func (s *refSpill) readErr(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read spilled references: %w", err)
}

// close removes the spill file.
func (s *refSpill) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
