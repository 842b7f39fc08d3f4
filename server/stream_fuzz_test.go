package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// frame is one header-framed message.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// FuzzStream reads arbitrary bytes as an editor's stdin. The stream never
// panics and ends with an error at the end of the input; each message it
// returns re-encodes and decodes; what it writes back (parse errors) is
// well framed JSON-RPC; and a small input never costs more than a few
// megabytes of allocation, whatever Content-Length it claims.
func FuzzStream(f *testing.F) {
	req := `{"jsonrpc":"2.0","id":1,"method":"workspace/symbol","params":{"query":"Login"}}`
	for _, s := range []string{
		frame(req),
		frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) + frame(req),
		"Content-Length: 9\r\n\r\n{not json",
		"garbage line\r\nContent-Length: abc\r\n\r\n" + frame(req),
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(req)+20, req) + frame(req),
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(req)-10, req) + frame(req),
		"Content-Length: 2\r\n\r\n[]",
		"Content-Length: 67108864\r\n\r\n{}",
		"Content-Length: 67108865\r\n\r\n{}",
		"Content-Length: 9223372036854775807\r\n\r\n",
		"Content-Length: -1\r\n\r\n", "Content-Length: 0\r\n\r\n", "content-length:2\n\n{}",
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}",
		strings.Repeat("Content-Length: 16\r\n\r\nx", 20),
		"\r\n\r\n\r\n", "", "\x00\xff", "Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := newStream(bytes.NewReader(data), &out, nil, zap.NewNop())
		var msgs []jsonrpc2.Message
		for i := 0; ; i++ {
			if i > len(data) {
				t.Fatalf("%d messages out of %d bytes", i, len(data))
			}
			msg, _, err := s.Read(context.Background())
			if err != nil {
				break
			}
			msgs = append(msgs, msg)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; len(data) <= 4096 && alloc > 4<<20+512*uint64(len(data)) {
			t.Fatalf("%d bytes of input allocated %d bytes", len(data), alloc)
		}
		for _, m := range msgs {
			enc, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("message %#v does not encode: %v", m, err)
			}
			if _, err := jsonrpc2.DecodeMessage(enc); err != nil {
				t.Fatalf("message %s does not decode again: %v", enc, err)
			}
		}
		checkFrames(t, out.Bytes())
	})
}

// checkFrames parses what the stream wrote, strictly: Content-Length
// headers and JSON-RPC 2.0 error answers only.
func checkFrames(t *testing.T, b []byte) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(b))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Content-Length: "), "\r\n"))
		if err != nil || !strings.HasPrefix(line, "Content-Length: ") {
			t.Fatalf("written header %q", line)
		}
		if blank, _ := r.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("header not ended by a blank line: %q", blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatalf("written body shorter than %d bytes", n)
		}
		var resp struct {
			Version string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct{ Code int }
		}
		if err := json.Unmarshal(body, &resp); err != nil || resp.Version != "2.0" || resp.Error == nil || len(resp.ID) == 0 {
			t.Fatalf("written body %q is not a JSON-RPC error answer", body)
		}
	}
}

// TestStreamResyncMemory: a stream of frames whose wrong lengths each make
// the stream resynchronise keeps no memory per resynchronisation (it once
// stacked a 64 KiB reader on each).
func TestStreamResyncMemory(t *testing.T) {
	const n = 1000
	// Each body is "x" plus the next frame's "Content-Length:": malformed,
	// with a header to resynchronise on.
	good := frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	in := strings.Repeat("Content-Length: 16\r\n\r\nx", n) + good + good
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(in))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var out bytes.Buffer
	s := newStream(pr, &out, nil, zap.NewNop())
	for range 2 {
		if _, _, err := s.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("%d resynchronisations hold %d bytes", n, grown)
	}
	if got := bytes.Count(out.Bytes(), []byte(`"error"`)); got != n {
		t.Errorf("%d parse errors answered, want %d", got, n)
	}
	runtime.KeepAlive(s)
}
