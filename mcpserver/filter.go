package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The frame filter (FilterTransport) sits between the client's byte stream
// and the SDK's newline-delimited JSON transport. The SDK ends the session
// on any frame it cannot decode (a line that is not JSON, `[]`, `{}`, a
// wrong jsonrpc version, a batch under a protocol without batches, trailing
// blanks after a value), which lets one bad line, from a buggy client or a
// prompt-injected model, take the server away from the person using it.
// The filter reads the stream line by line, answers the lines the SDK would
// choke on itself, per JSON-RPC 2.0, and hands the good ones on unchanged
// but for the surrounding white space.

// MaxFrameBytes bounds one line of input; a longer line is answered with an
// invalid-request error and skipped. It matches the SDK's default frame
// limit, which ended the session instead.
const MaxFrameBytes = mcp.DefaultMaxLineLength

// maxDepth is the deepest nesting of arrays and objects passed to the SDK:
// its decoder refuses deeper input (internal/json's defaultMaxDepth) by
// ending the session.
const maxDepth = 1000

// batchesUntil is the first protocol revision without JSON-RPC batches; the
// SDK ends the session on a batch at it or later.
const batchesUntil = "2025-06-18"

// maxExactID bounds numeric request ids: the SDK reads ids as float64 and
// answers with int64(id), which is the id the client sent only for integers
// a float64 holds exactly.
const maxExactID = 1 << 53

// FilterTransport returns a transport serving newline-delimited JSON-RPC
// over r and w, as the SDK's mcp.IOTransport does, with a filter in front
// that answers malformed lines itself and keeps the session: -32700 (parse
// error, id null) for a line that is not JSON or not UTF-8, -32600 (invalid
// request) for JSON that is not a JSON-RPC message the SDK accepts. The
// session ends when r ends; w is never closed.
func FilterTransport(r io.Reader, w io.Writer) mcp.Transport {
	return &filterTransport{r: r, w: w, maxLine: MaxFrameBytes}
}

type filterTransport struct {
	r       io.Reader
	w       io.Writer
	maxLine int
}

// Connect starts the filter and connects the SDK's transport to it.
func (t *filterTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	f := &filter{out: &outWriter{w: t.w, pending: map[string]bool{}}, maxLine: t.maxLine}
	// The filter enforces the frame limit; the SDK's own count can run
	// across frames it has read ahead.
	conn, err := (&mcp.IOTransport{Reader: pr, Writer: f.out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp transport: %w", err)
	}
	go f.run(t.r, pw)
	return conn, nil
}

// filter judges each line of input.
type filter struct {
	out     *outWriter
	maxLine int
}

// run copies the good lines of r to pw until r ends or the SDK stops
// reading, and answers the others on f.out.
func (f *filter) run(r io.Reader, pw *io.PipeWriter) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > f.maxLine+1 { // +1: the newline
			tooLong, line = true, nil // drop what was read; skip to the newline
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		// A whole line, or the last one, unterminated.
		var pass, reply []byte
		if tooLong {
			reply = errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: line longer than %d bytes", f.maxLine))
		} else {
			pass, reply = f.judge(line)
		}
		if pass != nil {
			f.out.sent(pass)
			if _, werr := pw.Write(append(pass, '\n')); werr != nil {
				return // the SDK closed the connection: the session is over
			}
		}
		if reply != nil {
			if _, werr := f.out.Write(reply); werr != nil {
				pw.CloseWithError(fmt.Errorf("mcp filter: write reply: %w", werr))
				return
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil // the client closed its end: a clean end of session
				// The SDK drops the answers still being worked on when its
				// input ends: a client that sends a request and closes its
				// end gets the answer first (within drainWait).
				f.out.drain(drainWait)
			}
			pw.CloseWithError(err)
			return
		}
	}
}

// judge decides on one line: pass is the line to hand to the SDK, reply the
// error response to send instead; both are nil for a blank line.
func (f *filter) judge(line []byte) (pass, reply []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !utf8.Valid(line) {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not UTF-8")
	}
	if !json.Valid(line) {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not one JSON value")
	}
	if depth(line) > maxDepth {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: nested deeper than %d", maxDepth))
	}
	switch line[0] {
	case '{':
		id, isReq, why := checkMessage(line)
		if why != "" {
			return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
		}
		if isReq && id != nil && f.out.isPending(idKey(id)) {
			// The SDK refuses a request whose id is one of a batch still
			// being answered by ending the session.
			return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: id in use by a batch")
		}
		return line, nil
	case '[':
		if why := f.checkBatch(line); why != "" {
			return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
		}
		return line, nil
	}
	return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC object")
}

// checkBatch says why a batch is refused, or "" to pass it: batches are
// passed only once the session negotiated a protocol revision that has
// them, and only when the SDK accepts every message in them.
func (f *filter) checkBatch(line []byte) string {
	version := f.out.version()
	if version == "" {
		return "batches are refused before initialization"
	}
	if version >= batchesUntil {
		return "protocol " + version + " has no batches"
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil {
		return "batch: " + err.Error()
	}
	if len(elems) == 0 {
		return "empty batch"
	}
	ids := map[string]bool{}
	for i, e := range elems {
		if len(e) == 0 || e[0] != '{' {
			return fmt.Sprintf("batch element %d is not an object", i)
		}
		id, isReq, why := checkMessage(e)
		if why != "" {
			return fmt.Sprintf("batch element %d: %s", i, why)
		}
		if !isReq {
			continue
		}
		if id == nil {
			// The SDK v1.8.0 counts a notification among the calls of a
			// batch, so the batch is never answered, and a second such
			// batch ends the session (its id, none, is "in use").
			return fmt.Sprintf("batch element %d: notifications in batches are not supported", i)
		}
		k := idKey(id)
		if ids[k] || f.out.isPending(k) {
			return fmt.Sprintf("batch element %d: duplicate id %s", i, id)
		}
		ids[k] = true
	}
	f.out.addPending(ids)
	return ""
}

// checkMessage checks one JSON object as the SDK's jsonrpc2.DecodeMessage
// will read it, and a little stricter where the SDK would misread it: id is
// the message's id when it is one the reply may echo; isReq tells a request
// (with a method) from a response; why is "" for a good message.
func checkMessage(obj []byte) (id json.RawMessage, isReq bool, why string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, false, "not a JSON object"
	}
	rawID, hasID := m["id"]
	if hasID && !isNull(rawID) {
		if !validID(rawID) {
			return nil, false, "id must be a string or an integer"
		}
		id = rawID
	}
	var version string
	if err := json.Unmarshal(m["jsonrpc"], &version); err != nil || version != "2.0" {
		return id, false, `"jsonrpc" must be "2.0"`
	}
	if method, ok := m["method"]; ok {
		var s string
		if err := json.Unmarshal(method, &s); err != nil || isNull(method) {
			return id, true, `"method" must be a string`
		}
		if hasID && id == nil {
			// The SDK would take it for a notification and never answer.
			return nil, true, "a request's id must not be null"
		}
		if p, ok := m["params"]; ok && !isNull(p) && p[0] != '{' && p[0] != '[' {
			return id, true, `"params" must be an object`
		}
		return id, true, ""
	}
	// No method: a response to one of the server's requests.
	if id == nil {
		return nil, false, `a message needs a "method", or an id when it is a response`
	}
	// A result may be null; an error of null is none (the SDK reads both
	// so).
	_, hasResult := m["result"]
	rawErr, hasErr := m["error"]
	hasErr = hasErr && !isNull(rawErr)
	if hasResult == hasErr {
		return id, false, `a response needs one of "result" and "error"`
	}
	if hasErr {
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if rawErr[0] != '{' || json.Unmarshal(rawErr, &e) != nil || e.Code == nil || e.Message == nil {
			return id, false, `"error" must be an object with an integer "code" and a string "message"`
		}
	}
	return id, false, ""
}

// validID reports whether raw is a string or an integer the SDK echoes
// exactly.
func validID(raw json.RawMessage) bool {
	switch raw[0] {
	case '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && n == math.Trunc(n) && math.Abs(n) <= maxExactID
	}
	return false
}

// idKey is the identity of an id as the SDK compares them: the value of a
// string, the integer of a number.
func idKey(id json.RawMessage) string {
	if id[0] == '"' {
		var s string
		json.Unmarshal(id, &s)
		return "s" + s
	}
	n, _ := strconv.ParseFloat(string(id), 64)
	return "n" + strconv.FormatInt(int64(n), 10)
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// depth is the deepest nesting of arrays and objects in valid JSON.
func depth(data []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			deepest = max(deepest, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return deepest
}

// errorReply encodes a JSON-RPC error response with encoding/json; a nil
// id is written as null, as JSON-RPC 2.0 wants when the id is unknown.
func errorReply(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		// Cannot happen: id was checked and message is a string.
		panic(fmt.Sprintf("mcp filter: encode error reply: %v", err))
	}
	return append(data, '\n')
}

// outWriter serializes the SDK's messages and the filter's replies on the
// output, one whole line per Write, and watches the SDK's replies for what
// the filter must know: the negotiated protocol revision, and the batches
// answered.
type outWriter struct {
	mu         sync.Mutex
	w          io.Writer
	negotiated string
	// pending holds the ids of the requests of batches not yet answered.
	pending map[string]bool
	// inflight holds the ids of single requests passed to the SDK and not
	// yet answered.
	inflight map[string]bool
}

// drainWait bounds how long the end of input waits for answers in flight.
const drainWait = 5 * time.Second

// sent notes a line passed to the SDK: a request's id is in flight until
// its answer goes out.
func (o *outWriter) sent(line []byte) {
	if len(line) == 0 || line[0] != '{' {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 || isNull(m.ID) {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.inflight == nil {
		o.inflight = map[string]bool{}
	}
	o.inflight[idKey(m.ID)] = true
}

// drain waits, at most d, until every request passed to the SDK is
// answered.
func (o *outWriter) drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		o.mu.Lock()
		n := len(o.inflight)
		o.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Write writes one line.
func (o *outWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.watch(p)
	return o.w.Write(p)
}

// Close does nothing: the output belongs to the caller (it is stdout).
func (o *outWriter) Close() error { return nil }

func (o *outWriter) watch(p []byte) {
	if len(p) > 0 && p[0] == '{' && len(o.inflight) > 0 {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(p, &r) == nil && len(r.ID) > 0 {
			delete(o.inflight, idKey(r.ID))
		}
	}
	switch {
	case len(p) > 0 && p[0] == '[' && len(o.pending) > 0:
		// A batch's replies go out together.
		var replies []struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(p, &replies) == nil {
			for _, r := range replies {
				if len(r.ID) > 0 && !isNull(r.ID) {
					delete(o.pending, idKey(r.ID))
				}
			}
		}
	case o.negotiated == "" && bytes.Contains(p, []byte(`"protocolVersion"`)):
		// Only the initialize result carries a protocolVersion.
		var r struct {
			Result *struct {
				ProtocolVersion string          `json:"protocolVersion"`
				ServerInfo      json.RawMessage `json:"serverInfo"`
			} `json:"result"`
		}
		if json.Unmarshal(p, &r) == nil && r.Result != nil && r.Result.ServerInfo != nil {
			o.negotiated = r.Result.ProtocolVersion
		}
	}
}

func (o *outWriter) version() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.negotiated
}

func (o *outWriter) isPending(k string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pending[k]
}

func (o *outWriter) addPending(ids map[string]bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range ids {
		o.pending[k] = true
	}
}
