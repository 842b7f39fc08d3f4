package session

import (
	"context"
	"path"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/symbols"
)

// Hover returns the markdown of a hover at pos in the document at uri
// (path: its clean absolute path), rendered by retrieval.Hover; "" when
// there is nothing under pos or the file is in no folder. A hover in a
// source file is recorded as activity.
func (s *Session) Hover(ctx context.Context, uri, path string, pos Position) (string, error) {
	f, rel := s.FolderFor(path)
	if f == nil {
		return "", nil
	}
	var text []byte
	var local *symbols.File
	if d := s.docs.Get(uri); d != nil {
		text, local = d.Text, d.Syms
	} else if data, err := readSmallFile(f.root, path, maxScanned); err == nil {
		text = data
	} else {
		return "", nil
	}
	if workspace.InDir(rel) {
		// The auto-context (or its preview): a word in it is looked up in
		// the index, never among the preview's own headings.
		local = nil
	}
	word, line := wordAt(text, pos)
	if word == "" {
		return "", nil
	}
	t, err := resolveHover(ctx, f, rel, word, line, local)
	if err != nil || t == nil {
		return "", err
	}
	if !workspace.InDir(rel) {
		f.eng.Record(engine.Activity{Type: engine.SymbolHover, Path: rel, Symbol: word, Line: line})
	}
	return retrieval.Hover(ctx, f.store(), t, f.memories.attached(ctx, t.Path)), nil
}

// resolveHover finds the entity named word: a declaration in the open
// buffer first (the one on this line if it is the declaration itself), then
// the index, preferring the same file, then the same directory.
func resolveHover(ctx context.Context, f *Folder, rel, word string, line int, local *symbols.File) (*retrieval.HoverTarget, error) {
	st := f.store()
	if local != nil {
		best := -1
		for i, e := range local.Entities {
			if e.Kind == symbols.KindFile || e.Name != word {
				continue
			}
			if best < 0 || e.StartLine == line {
				best = i
			}
		}
		if best >= 0 {
			e := local.Entities[best]
			t := &retrieval.HoverTarget{Path: rel, Kind: string(e.Kind), Name: e.Name, QName: e.QualName, Line: e.StartLine, Signature: e.Signature, Doc: e.Doc}
			stored, ok, err := st.EntityByQName(ctx, rel, string(e.Kind), e.QualName)
			if err != nil {
				return nil, err
			}
			if ok {
				t.Stored = &stored
			}
			return t, nil
		}
	}
	ents, err := st.EntitiesByName(ctx, word, 50)
	if err != nil || len(ents) == 0 {
		return nil, err
	}
	best, bestScore := 0, -1
	for i, e := range ents {
		score := 0
		switch {
		case e.Path == rel:
			score = 3
		case path.Dir(e.Path) == path.Dir(rel):
			score = 2
		}
		if e.Name == word {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	e := ents[best]
	return &retrieval.HoverTarget{Path: e.Path, Kind: e.Kind, Name: e.Name, QName: e.QName, Line: e.StartLine, Signature: e.Signature, Doc: e.Doc, Stored: &e}, nil
}
