package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxFrame bounds one message body; a larger Content-Length is a broken
// frame, not a reason to allocate.
const maxFrame = 64 << 20

// stream is jsonrpc2's header-framed stream made tolerant: jsonrpc2 v0.10
// closes the connection on the first frame it cannot decode, which would end
// the editor's session over one bad message. This stream answers a body that
// is not JSON with a ParseError (id null), skips header lines it does not
// understand, and resynchronises on the next Content-Length header when a
// wrong length swallowed part of the following frame.
type stream struct {
	in     *bufio.Reader
	src    *pushback // under in
	out    io.Writer
	closer io.Closer
	log    *zap.Logger
	wmu    sync.Mutex
}

func newStream(in io.Reader, out io.Writer, closer io.Closer, log *zap.Logger) *stream {
	src := &pushback{r: in}
	return &stream{in: bufio.NewReaderSize(src, 64<<10), src: src, out: out, closer: closer, log: log}
}

// pushback is a reader with bytes put back in front of it.
type pushback struct {
	pending []byte
	r       io.Reader
}

func (p *pushback) Read(b []byte) (int, error) {
	if len(p.pending) > 0 {
		n := copy(b, p.pending)
		p.pending = p.pending[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// unread puts b back in front of what the stream has yet to read. The
// same buffer and source are kept: wrapping the reader in a new one on
// each resynchronisation held 64 KiB per bad frame for the session.
func (s *stream) unread(b []byte) {
	buffered, _ := s.in.Peek(s.in.Buffered())
	pending := make([]byte, 0, len(b)+len(buffered)+len(s.src.pending))
	s.src.pending = append(append(append(pending, b...), buffered...), s.src.pending...)
	s.in.Reset(s.src)
}

// readBody reads a body of length bytes. The buffer grows with the bytes
// that arrive, not with the length claimed: a 30-byte frame claiming
// maxFrame would otherwise cost 64 MiB before its body is seen.
func (s *stream) readBody(length int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(length, 64<<10)))
	if _, err := io.CopyN(&buf, s.in, length); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf.Bytes(), nil
}

const hdrContentLength = "Content-Length:"

// Read returns the next message that decodes.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, n, err := s.header()
		if err != nil {
			return nil, n, err
		}
		body, err := s.readBody(length)
		if err != nil {
			return nil, n, fmt.Errorf("read message body: %w", err)
		}
		n += length
		// A length too long swallows the start of the next frame: read again
		// from the next header after the first JSON value.
		if bytes.Contains(body, []byte(hdrContentLength)) {
			if end := valueEnd(body); end < len(body) {
				i := bytes.Index(body[end:], []byte(hdrContentLength))
				if i >= 0 {
					s.log.Warn("Content-Length longer than the message; resynchronising", zap.Int64("length", length))
					s.unread(body[end+i:])
					body = body[:end]
				}
			}
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		s.log.Warn("malformed JSON-RPC frame", zap.Int64("length", length), zap.Error(err))
		if i := bytes.Index(body, []byte(hdrContentLength)); i >= 0 {
			s.unread(body[i:])
		}
		s.parseError(ctx, body, err)
	}
}

// valueEnd returns the end offset of the first JSON value in body, or
// len(body) when it does not parse.
func valueEnd(body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return len(body)
	}
	return int(dec.InputOffset())
}

// header reads header lines up to the empty line and returns the content
// length.
func (s *stream) header() (int64, int64, error) {
	var n, length int64 = 0, -1
	for {
		line, err := s.in.ReadString('\n')
		n += int64(len(line))
		if err != nil {
			return 0, n, fmt.Errorf("read message header: %w", err)
		}
		// Leftovers of a frame whose length was too short end up in front
		// of the next header: keep only the header.
		if i := strings.Index(line, hdrContentLength); i > 0 {
			s.log.Warn("skipped bytes before a header", zap.Int("bytes", i))
			line = line[i:]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if length > 0 {
				return length, n, nil
			}
			continue // a blank line without a length: keep looking
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			s.log.Warn("skipped a line that is not a header", zap.String("line", trimForLog(line)))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || v <= 0 || v > maxFrame {
				s.log.Warn("invalid Content-Length", zap.String("value", trimForLog(value)))
				length = -1
				continue
			}
			length = v
		}
	}
}

// parseError answers an undecodable frame. The id is recovered when the body
// is JSON with an id but not a valid message; otherwise it is null.
func (s *stream) parseError(ctx context.Context, body []byte, cause error) {
	code := jsonrpc2.ParseError
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	id := json.RawMessage("null")
	if json.Unmarshal(body, &probe) == nil {
		code = jsonrpc2.InvalidRequest
		if len(probe.ID) > 0 {
			id = probe.ID
		}
	}
	resp, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, jsonrpc2.NewError(code, cause.Error())})
	s.writeRaw(resp)
}

// Write implements jsonrpc2.Stream.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshal message: %w", err)
	}
	return s.writeRaw(data)
}

func (s *stream) writeRaw(data []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(data))
	if err != nil {
		return int64(n), fmt.Errorf("write message: %w", err)
	}
	m, err := s.out.Write(data)
	if err != nil {
		return int64(n + m), fmt.Errorf("write message: %w", err)
	}
	return int64(n + m), nil
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

func trimForLog(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
