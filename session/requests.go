package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
)

// ErrNoFolder is returned for a request that names a file in no workspace
// folder, or when there is no folder at all.
var ErrNoFolder = errors.New("no workspace folder")

// Activity is what the editor saw that its protocol does not carry.
type Activity struct {
	Type engine.ActivityType
	// Path is the file's clean absolute path.
	Path           string
	ChangedSymbols []string
	// Position is where it happened; nil when unknown.
	Position *Position
	Text     string
	At       time.Time
}

// maxActivityText bounds the selected text an activity keeps.
const maxActivityText = 2000

// Record takes one editor activity for the engine of the folder holding
// a.Path; activity outside every folder, or in its .ctxls, is dropped.
func (s *Session) Record(a Activity) {
	f, rel := s.sourceFolderFor(a.Path)
	if f == nil {
		s.log.Debug("ctxls/activity outside every folder or in its .ctxls", zap.String("path", a.Path))
		return
	}
	ea := engine.Activity{Type: a.Type, Path: rel, ChangedSymbols: a.ChangedSymbols, Text: a.Text, At: a.At}
	if len(ea.Text) > maxActivityText {
		ea.Text = ea.Text[:maxActivityText]
	}
	if a.Position != nil {
		ea.Line = int(a.Position.Line) + 1
		if a.Type == engine.SymbolHover {
			if text := s.textOf(f, a.Path); text != nil {
				ea.Symbol, _ = wordAt(text, *a.Position)
			}
		}
	}
	f.eng.Record(ea)
}

// textOf returns an open document's text or the file on disk, of folder f.
func (s *Session) textOf(f *Folder, abs string) []byte {
	if d := s.docs.ByPath(abs); d != nil {
		return d.Text
	}
	data, _ := readSmallFile(f.root, abs, maxScanned)
	return data
}

// Message takes a message the person sent to the assistant, for the
// active folder's engine.
func (s *Session) Message(text string) {
	if f := s.ActiveFolder(""); f != nil {
		f.eng.Message(text)
	}
}

// Context returns the auto-context of the folder holding path (the active
// folder when path is ""): the last one written, or a new one when there is
// none or refresh is set.
func (s *Session) Context(ctx context.Context, path string, refresh bool) (*engine.Snapshot, error) {
	f := s.ActiveFolder(path)
	if f == nil {
		return nil, fmt.Errorf("context of %q: %w", path, ErrNoFolder)
	}
	if !refresh {
		if snap := f.eng.Last(); snap != nil {
			return snap, nil
		}
	}
	return f.eng.Refresh(ctx)
}

// Query ranks req in the folder of activeFile (an absolute path; the
// active folder when ""), with activeFile as req's active file, and
// returns that folder's root with the answer.
func (s *Session) Query(ctx context.Context, req retrieval.Request, activeFile string) (string, *retrieval.Response, error) {
	f := s.ActiveFolder(activeFile)
	if f == nil {
		return "", nil, ErrNoFolder
	}
	if activeFile != "" {
		if _, rel := s.FolderFor(activeFile); rel != "" {
			req.ActiveFiles = []string{rel}
		}
	}
	resp, err := retrieval.Query(ctx, f.store(), req)
	return f.root, resp, err
}

// Reindex re-indexes the folder holding path (an absolute path), or every
// folder when path is "".
func (s *Session) Reindex(ctx context.Context, path string) ([]index.Summary, error) {
	folders := s.Folders()
	if path != "" {
		f, _ := s.FolderFor(path)
		if f == nil {
			// A folder's own root is "in" it too; anything else is an error.
			return nil, fmt.Errorf("%s is in no workspace folder: %w", filepath.Clean(path), ErrNoFolder)
		}
		folders = []*Folder{f}
	}
	out := []index.Summary{}
	for _, f := range folders {
		sum, err := f.Reindex(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, sum)
	}
	return out, nil
}

// Symbol is an entity a workspace symbol search found, with the root of
// its folder.
type Symbol struct {
	Root string
	store.Entity
}

// Symbols searches every folder's index for entities whose name matches
// query, at most limit in all.
func (s *Session) Symbols(ctx context.Context, query string, limit int) ([]Symbol, error) {
	var out []Symbol
	q := strings.TrimSpace(query)
	if q == "" {
		return out, nil
	}
	for _, f := range s.Folders() {
		ents, err := f.store().EntitiesMatching(ctx, q, limit-len(out))
		if err != nil {
			return nil, fmt.Errorf("symbols of %s: %w", f.root, err)
		}
		for _, e := range ents {
			out = append(out, Symbol{Root: f.root, Entity: e})
		}
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// maxScanned bounds the size of a file read from disk on a keystroke.
const maxScanned = 8 << 20

// readSmallFile reads a file of the workspace folder at root for hover,
// symbol and activity lookups, refusing a file whose real path is outside
// root (wspath: a link in a cloned repository) and files larger than max,
// too large to scan on a keystroke.
func readSmallFile(root, abs string, max int64) ([]byte, error) {
	f, err := wspath.Open(root, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > max {
		return nil, fmt.Errorf("read %s: %w", abs, os.ErrInvalid)
	}
	return io.ReadAll(f)
}
