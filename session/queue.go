package session

import (
	"github.com/ctxls/ctxls/overlay"
	"github.com/ctxls/ctxls/symbols"
)

// changeKind is how a file's content changed as the server saw it.
type changeKind int

const (
	// bufferEdited: an open buffer changed (didChange), or was opened
	// differing from the disk (didOpen): the buffer is the truth.
	bufferEdited changeKind = iota
	// fileSaved: the buffer was written (didSave): the disk is the truth.
	fileSaved
	// bufferDiscarded: a buffer with unsaved changes was closed (didClose,
	// or the session ended): the disk is the truth again.
	bufferDiscarded
	// diskChanged: the file changed on disk (the watcher, the client's
	// didChangeWatchedFiles), under the buffer if one is open.
	diskChanged
)

// changed is the one way a change of rel reaches the index queue, whichever
// path saw it (DidModify, the watcher, a closing folder): the text the index should hold follows from the kind of
// change and the overlay (decision 0095). d is the changed buffer for
// bufferEdited.
func (f *Folder) changed(rel string, kind changeKind, d *overlay.Document) {
	switch kind {
	case bufferEdited:
		if d.Syms == nil {
			// Not parsed (too large, a language ctxls does not parse): the
			// index keeps the disk's text, as its walk would.
			return
		}
		f.queueUpdate(rel, d.Text)
	case fileSaved, bufferDiscarded:
		f.queueUpdate(rel, nil)
	case diskChanged:
		if _, ok := symbols.LanguageFor(rel); !ok || f.sess.docs.Unsaved(f.root, rel) {
			// Unsupported, or open with unsaved changes: the buffer is
			// newer than the disk.
			return
		}
		f.queueUpdate(rel, nil)
	}
}
