package inject

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

// HintEntry is how often one hint was shown in a session.
type HintEntry struct {
	Count     int    `json:"count"`
	LastShown string `json:"lastShown"`
}

// HintState is .claude/session-state/<sessionId>/hints.json.
type HintState struct {
	SessionID string               `json:"sessionId"`
	Hints     map[string]HintEntry `json:"hints"`
}

// hintsPath returns the hint file of a session, refusing session ids that
// are not a single safe path element.
func hintsPath(root, session string) (string, error) {
	if session == "" || session == "." || session == ".." || strings.ContainsAny(session, `/\`) || strings.ContainsRune(session, 0) {
		return "", fmt.Errorf("session id %q cannot name a directory", session)
	}
	return filepath.Join(root, ".claude", "session-state", session, "hints.json"), nil
}

// LoadHints reads a session's hint state. A missing or corrupt file gives
// an empty state (hints stay discoverable).
func LoadHints(root, session string) (*HintState, error) {
	p, err := hintsPath(root, session)
	if err != nil {
		return nil, err
	}
	return readHints(p, session), nil
}

func readHints(p, session string) *HintState {
	hs := &HintState{SessionID: session, Hints: map[string]HintEntry{}}
	data, err := os.ReadFile(p)
	if err != nil {
		return hs
	}
	var got HintState
	if json.Unmarshal(data, &got) != nil || got.Hints == nil {
		return hs
	}
	got.SessionID = session
	return &got
}

// ShouldShow reports whether a hint was shown fewer than max times.
func (h *HintState) ShouldShow(hint string, max int) bool { return h.Hints[hint].Count < max }

// ShowHint counts one showing of a hint in the session's file, under a
// file lock so that parallel hook processes do not lose counts, and
// reports whether it may be shown (it was shown fewer than max times).
func ShowHint(root, session, hint string, max int, now time.Time) (bool, error) {
	p, err := hintsPath(root, session)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, fmt.Errorf("hint state: %w", err)
	}
	lk := flock.New(p + ".lock")
	if err := lk.Lock(); err != nil {
		return false, fmt.Errorf("lock hint state: %w", err)
	}
	defer lk.Unlock()
	hs := readHints(p, session)
	if !hs.ShouldShow(hint, max) {
		return false, nil
	}
	e := hs.Hints[hint]
	e.Count++
	e.LastShown = now.UTC().Format(time.RFC3339Nano)
	hs.Hints[hint] = e
	data, err := json.MarshalIndent(hs, "", "  ")
	if err != nil {
		return false, err
	}
	if err := workspace.WriteFileAtomic(p, append(data, '\n'), 0o644); err != nil {
		return false, errors.Join(errors.New("hint state"), err)
	}
	return true, nil
}
