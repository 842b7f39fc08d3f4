package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

const (
	// autoDelay coalesces the events of one atomic replace (create of the
	// temporary file, rename) into one notification.
	autoDelay = 20 * time.Millisecond
	// storeDelay coalesces a burst of index writes (a re-index, several
	// activity records) into one look at the activity table.
	storeDelay = 250 * time.Millisecond
)

// subscribe accepts subscriptions to the resources that change on their
// own: the auto-context and the session context.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	switch req.Params.URI {
	case AutoURI, SessionURI:
		return nil
	}
	if strings.HasPrefix(req.Params.URI, filePrefix) {
		return fmt.Errorf("subscriptions are offered for %s and %s; read file resources again when needed", AutoURI, SessionURI)
	}
	return resourceNotFound(req.Params.URI)
}

// Watch watches the workspace's state directory (or, until it exists, the
// root) and announces changes: a new auto-context file as
// notifications/resources/updated for ctxls://context/auto; new activity in
// the index as updates of ctxls://context/session (and of the computed
// auto-context) and, when the working set changes, as a new list of file
// resources (notifications/resources/list_changed). Close the returned
// watcher to stop.
func (s *Server) Watch(ctx context.Context) (io.Closer, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("file watcher: %w", err)
	}
	dir := workspace.Dir(s.opts.Root)
	inDir := true
	if err := w.Add(dir); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			w.Close()
			return nil, fmt.Errorf("watch %s: %w", dir, err)
		}
		// No state directory yet: wait for it to appear.
		if err := w.Add(s.opts.Root); err != nil {
			w.Close()
			return nil, fmt.Errorf("watch %s: %w", s.opts.Root, err)
		}
		inDir = false
	}
	s.storeChanged(ctx)
	go s.watch(ctx, w, dir, inDir)
	return w, nil
}

func (s *Server) watch(ctx context.Context, w *fsnotify.Watcher, dir string, inDir bool) {
	var autoC, storeC <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Name == dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				// The state directory went away (the index was deleted):
				// wait for it to come back, unless it already has.
				if err := w.Add(s.opts.Root); err != nil {
					s.log.Warn("mcp: watch root", zap.String("root", s.opts.Root), zap.Error(err))
				}
				inDir = false
				if _, err := os.Stat(dir); err != nil {
					continue
				}
				ev = fsnotify.Event{Name: dir, Op: fsnotify.Create}
			}
			if !inDir {
				if ev.Name != dir || !ev.Has(fsnotify.Create) {
					continue
				}
				if err := w.Add(dir); err != nil {
					s.log.Warn("mcp: watch state directory", zap.String("dir", dir), zap.Error(err))
					continue
				}
				w.Remove(s.opts.Root)
				inDir = true
				// Whatever it holds already is new.
				if autoC == nil {
					autoC = time.After(autoDelay)
				}
				if storeC == nil {
					storeC = time.After(storeDelay)
				}
				continue
			}

			switch filepath.Base(ev.Name) {
			case AutoContextFile:
				if autoC == nil {
					autoC = time.After(autoDelay)
				}
			case "index.db", "index.db-wal", "state.db", "state.db-wal":
				// Activity and sessions are written to the state file
				// (decision 0084), code to the index.
				if storeC == nil {
					storeC = time.After(storeDelay)
				}
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.log.Warn("mcp: file watcher", zap.Error(err))
		case <-autoC:
			autoC = nil
			s.updated(ctx, AutoURI)
		case <-storeC:
			storeC = nil
			s.storeChanged(ctx)
		}
	}
}

func (s *Server) updated(ctx context.Context, uri string) {
	if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		s.log.Warn("mcp: resource updated notification", zap.String("uri", uri), zap.Error(err))
	}
}

// storeChanged looks at the activity table after index writes: new activity
// updates the session context (and the auto-context while it is computed
// from activity), and a changed working set changes the listed file
// resources.
func (s *Server) storeChanged(ctx context.Context) {
	st, err := s.store(ctx)
	if err != nil {
		return // no index yet: nothing to list or announce
	}
	acts, err := st.RecentActivity(ctx, time.Time{}, 1)
	if err != nil {
		s.log.Warn("mcp: read activity", zap.Error(err))
		return
	}
	files, err := st.WorkingSet(ctx, time.Now().Add(-sessionWindow), listedFiles)
	if err != nil {
		s.log.Warn("mcp: read working set", zap.Error(err))
		return
	}
	fp := ""
	if len(acts) > 0 {
		a := acts[0]
		fp = fmt.Sprintf("%d %s %s %s %s", a.At.UnixMilli(), a.Session, a.Type, a.Path, a.Text)
	}
	s.mu.Lock()
	changed := fp != s.lastAct
	s.lastAct = fp
	old := s.listed
	s.listed = files
	s.mu.Unlock()
	if !slices.Equal(old, files) {
		s.listFiles(old, files)
	}
	if changed {
		s.updated(ctx, SessionURI)
		if _, err := os.Stat(s.autoPath()); errors.Is(err, os.ErrNotExist) {
			s.updated(ctx, AutoURI)
		}
	}
}

// listFiles replaces the listed file resources; the SDK announces the new
// list to connected clients.
func (s *Server) listFiles(old, files []string) {
	var gone []string
	for _, f := range old {
		if !slices.Contains(files, f) {
			gone = append(gone, fileURI(f))
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
	for _, f := range files {
		if slices.Contains(old, f) {
			continue
		}
		s.mcp.AddResource(&mcp.Resource{
			URI: fileURI(f), Name: f, Title: f + " (ctxls)", MIMEType: markdown,
			Description: "In the working set: " + f + "'s entities, imports and relations.",
		}, s.readFile)
	}
}
