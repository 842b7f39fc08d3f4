package think

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/gofrs/flock"
)

// Circuit breaker constants (docs/decisions/0096).
const (
	// BreakerThreshold is the seed's CIRCUIT_BREAKER_THRESHOLD: the
	// circuit opens after this many consecutive failures.
	BreakerThreshold = 3
	// BreakerCooldown is how long an open circuit skips its service before
	// one trial call may close it again (the seed closes only on a
	// success, which an open circuit never lets happen).
	BreakerCooldown = 5 * time.Minute
)

// CircuitBreakerState is the seed's state of one service (a provider CLI
// or Ollama) in one session.
type CircuitBreakerState struct {
	SessionID           string `json:"sessionId"`
	ConsecutiveFailures int    `json:"consecutiveFailures"`
	LastAttempt         string `json:"lastAttempt"`
	IsOpen              bool   `json:"isOpen"`
}

// Breakers are a session's circuit breakers, persisted in
// .claude/session-state/<session>/circuits.json so that they hold across
// the separate processes of one session.
type Breakers struct {
	path, session string
	now           func() time.Time
}

// SessionDir returns a session's state directory under a workspace root,
// refusing session ids that are not one safe path element.
func SessionDir(root, session string) (string, error) {
	if session == "" || session == "." || session == ".." || len(session) > 200 ||
		strings.ContainsAny(session, "/\\\x00") {
		return "", fmt.Errorf("session id %q cannot name a directory", session)
	}
	return filepath.Join(root, ".claude", "session-state", session), nil
}

// NewBreakers returns the breakers of a session; now nil means time.Now.
func NewBreakers(root, session string, now func() time.Time) (*Breakers, error) {
	dir, err := SessionDir(root, session)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Breakers{path: filepath.Join(dir, "circuits.json"), session: session, now: now}, nil
}

// ErrCircuitOpen means a service failed BreakerThreshold times in a row
// and is skipped until the cooldown passes.
var ErrCircuitOpen = errors.New("circuit open")

// Allow reports whether service may be called now: its circuit is closed,
// or open for longer than the cooldown (one trial).
func (b *Breakers) Allow(service string) (CircuitBreakerState, bool) {
	st := b.load()[service]
	if !st.IsOpen {
		return st, true
	}
	last, err := time.Parse(time.RFC3339Nano, st.LastAttempt)
	return st, err != nil || b.now().Sub(last) >= BreakerCooldown
}

// Record counts a call's outcome: a success closes the circuit, a failure
// counts and opens it at the threshold.
func (b *Breakers) Record(service string, ok bool) (CircuitBreakerState, error) {
	var out CircuitBreakerState
	err := b.update(func(m map[string]CircuitBreakerState) {
		st := m[service]
		st.SessionID = b.session
		st.LastAttempt = b.now().UTC().Format(time.RFC3339Nano)
		if ok {
			st.ConsecutiveFailures, st.IsOpen = 0, false
		} else {
			st.ConsecutiveFailures++
			st.IsOpen = st.ConsecutiveFailures >= BreakerThreshold
		}
		m[service] = st
		out = st
	})
	return out, err
}

// load reads the states; a missing or corrupt file is all closed.
func (b *Breakers) load() map[string]CircuitBreakerState {
	m := map[string]CircuitBreakerState{}
	data, err := os.ReadFile(b.path)
	if err != nil || json.Unmarshal(data, &m) != nil || m == nil {
		return map[string]CircuitBreakerState{}
	}
	return m
}

func (b *Breakers) update(fn func(map[string]CircuitBreakerState)) error {
	if err := os.MkdirAll(filepath.Dir(b.path), 0o755); err != nil {
		return fmt.Errorf("circuit state: %w", err)
	}
	lk := flock.New(b.path + ".lock")
	if err := lk.Lock(); err != nil {
		return fmt.Errorf("lock circuit state: %w", err)
	}
	defer lk.Unlock()
	m := b.load()
	fn(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(b.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("circuit state: %w", err)
	}
	return nil
}
