package hookcall

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"
)

// chunks hands out data in reads of at most size bytes (a pipe that a
// writer fills piecemeal), then err.
type chunks struct {
	data []byte
	size int
	err  error
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, c.err
	}
	n := min(len(p), c.size, len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// FuzzReadInput: whatever the stdin and however it arrives, ReadInput
// returns exactly its bytes (never more than MaxInput+1), or the reader's
// error; it never waits for the timeout on a reader that ends.
func FuzzReadInput(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"abc","hook_event_name":"UserPromptSubmit","prompt":"hi"}`, ``, "\x00\xff\xfe", "{\n",
	} {
		f.Add([]byte(s), uint16(1), false)
		f.Add([]byte(s), uint16(4096), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint16, fail bool) {
		var end error = io.EOF
		if fail {
			end = iotest.ErrTimeout
		}
		r := &chunks{data: bytes.Clone(data), size: int(size)%65536 + 1, err: end}
		got, err := ReadInput(r, time.Minute)
		if errors.Is(err, ErrInputTimeout) {
			t.Fatalf("timed out on a reader that ends")
		}
		if fail {
			if !errors.Is(err, iotest.ErrTimeout) {
				t.Fatalf("reader's error lost: got %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ReadInput: %v", err)
		}
		want := data[:min(len(data), MaxInput+1)]
		if !bytes.Equal(got, want) {
			t.Fatalf("got %d bytes, want %d", len(got), len(want))
		}
	})
}

// TestReadInputLimit: input beyond MaxInput is cut at MaxInput+1 bytes, so
// the caller can tell it was too long without reading all of it.
func TestReadInputLimit(t *testing.T) {
	got, err := ReadInput(io.LimitReader(zeros{}, MaxInput*2), time.Minute)
	if err != nil || len(got) != MaxInput+1 {
		t.Fatalf("got %d bytes, %v; want %d", len(got), err, MaxInput+1)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
