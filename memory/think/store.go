package think

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/memory"
)

// Errors of the store.
var (
	ErrNotFound  = errors.New("thinking document not found")
	ErrNoCurrent = errors.New("no current thinking document: run 'ctxls memory think create <topic>' or 'think use <id>'")
	ErrConcluded = errors.New("thinking document is concluded")
)

// dirName is the hidden directory of a scope that holds its documents.
const dirName = ".thinking"

// Store keeps the thinking documents of a memory store's scopes.
type Store struct {
	mem *memory.Store
	now func() time.Time
	// write saves a promoted conclusion: the memory store's Write, or
	// what WriteWith set.
	write func(context.Context, *memory.Memory) error
}

// New returns the thinking store beside a memory store; now nil means
// time.Now.
func New(mem *memory.Store, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{mem: mem, now: now, write: mem.Write}
}

// WriteWith makes promoted conclusions go through write instead of the
// memory store: the enterprise scope on PostgreSQL is written in its
// database (the memory store holds only a read cache of it), while the
// documents of that scope stay files of this machine, in the cache's
// .thinking directory, which the cache's refresh leaves alone.
func (s *Store) WriteWith(write func(context.Context, *memory.Memory) error) { s.write = write }

// Memory returns the memory store the documents live beside.
func (s *Store) Memory() *memory.Store { return s.mem }

// dir returns a scope's directory and its .thinking directory.
func (s *Store) dir(scope memory.Scope) (scopeDir, thinkDir string, err error) {
	d, err := s.mem.Dir(scope)
	if err != nil {
		return "", "", err
	}
	return d, filepath.Join(d, dirName), nil
}

// locked runs fn holding the scope's lock, the lock the memory store takes
// for its own changes. fn must not call the memory store's writers (they
// take the same lock).
func (s *Store) locked(ctx context.Context, scope memory.Scope, fn func(dir string) error) error {
	scopeDir, dir, err := s.dir(scope)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	lk := flock.New(filepath.Join(scopeDir, ".lock"))
	ok, err := lk.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil || !ok {
		return fmt.Errorf("lock memory scope %s: %w", scopeDir, errors.Join(err, ctx.Err()))
	}
	defer lk.Unlock()
	return fn(dir)
}

func docPath(dir, id string) string { return filepath.Join(dir, id+".md") }

// read loads a document by id from a .thinking directory.
func read(dir, id string, scope memory.Scope) (*Document, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	p := docPath(dir, id)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s in the %s scope: %w", id, scope, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read thinking document: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxFile)
	}
	return Parse(data, p, scope)
}

func write(d *Document) error {
	data, err := Marshal(d)
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(d.Path, data, 0o644)
}

// current returns the id .thinking/current names, "" when none.
func current(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "current"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read current thinking document: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

func setCurrent(dir, id string) error {
	p := filepath.Join(dir, "current")
	if id == "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return workspace.WriteFileAtomic(p, []byte(id+"\n"), 0o644)
}

// resolve returns id, or the current document's id when id is "".
func resolve(dir, id string, scope memory.Scope) (string, error) {
	if id != "" {
		return id, CheckID(id)
	}
	cur, err := current(dir)
	if err != nil {
		return "", err
	}
	if cur == "" {
		return "", ErrNoCurrent
	}
	if err := CheckID(cur); err != nil {
		return "", fmt.Errorf("%s/current: %w", dir, err)
	}
	if _, err := os.Stat(docPath(dir, cur)); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("the current thinking document %s of the %s scope no longer exists: run 'think create' or 'think use <id>'", cur, scope)
	}
	return cur, nil
}

// Create starts a document on topic and makes it the scope's current one.
func (s *Store) Create(ctx context.Context, scope memory.Scope, topic string, refs []string) (*Document, error) {
	if err := checkText("topic", topic, MaxTopic, true); err != nil {
		return nil, err
	}
	if err := checkRefs(refs); err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	d := &Document{ID: newID(topic, now), Type: docType, Topic: strings.TrimSpace(topic), Status: Open,
		Created: now, Updated: now, References: dedup(refs), Thoughts: []Entry{}, Scope: scope}
	err := s.locked(ctx, scope, func(dir string) error {
		base := d.ID
		for i := 2; ; i++ {
			if _, err := os.Stat(docPath(dir, d.ID)); errors.Is(err, os.ErrNotExist) {
				break
			}
			d.ID = fmt.Sprintf("%s-%d", base, i)
		}
		d.Path = docPath(dir, d.ID)
		if err := write(d); err != nil {
			return err
		}
		return setCurrent(dir, d.ID)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Add appends a thought to document id ("" for the current one). by is
// the attribution of a provider's thought, "" for the person's own.
func (s *Store) Add(ctx context.Context, scope memory.Scope, id string, kind Kind, text, by string, refs []string) (*Document, Entry, error) {
	return s.add(ctx, scope, id, Entry{Kind: kind, By: by, Text: text}, refs)
}

// add appends e (numbered and timed here) to document id.
func (s *Store) add(ctx context.Context, scope memory.Scope, id string, e Entry, refs []string) (*Document, Entry, error) {
	if _, err := ParseKind(string(e.Kind)); err != nil {
		return nil, Entry{}, err
	}
	if err := checkText("thought", e.Text, MaxThought, false); err != nil {
		return nil, Entry{}, err
	}
	if err := checkRefs(refs); err != nil {
		return nil, Entry{}, err
	}
	var d *Document
	err := s.locked(ctx, scope, func(dir string) error {
		id, err := resolve(dir, id, scope)
		if err != nil {
			return err
		}
		if d, err = read(dir, id, scope); err != nil {
			return err
		}
		if d.Status == Concluded {
			return fmt.Errorf("%s: %w; create a new one", d.ID, ErrConcluded)
		}
		if len(d.Thoughts) >= MaxThoughts {
			return fmt.Errorf("%s has %d thoughts, the most a document holds; conclude it", d.ID, len(d.Thoughts))
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		e.N, e.At = len(d.Thoughts)+1, now
		d.Thoughts = append(d.Thoughts, e)
		d.References = dedup(append(d.References, refs...))
		d.Updated = now
		return write(d)
	})
	if err != nil {
		return nil, Entry{}, err
	}
	return d, e, nil
}

// Get reads document id, or the current one when id is "".
func (s *Store) Get(ctx context.Context, scope memory.Scope, id string) (*Document, error) {
	_, dir, err := s.dir(scope)
	if err != nil {
		return nil, err
	}
	if id, err = resolve(dir, id, scope); err != nil {
		return nil, err
	}
	return read(dir, id, scope)
}

// Current returns the id of the scope's current document, "" when none.
func (s *Store) Current(scope memory.Scope) (string, error) {
	_, dir, err := s.dir(scope)
	if err != nil {
		return "", err
	}
	return current(dir)
}

// Summary is a document as listed.
type Summary struct {
	ID       string       `json:"id"`
	Topic    string       `json:"topic"`
	Status   string       `json:"status"`
	Thoughts int          `json:"thoughts"`
	Updated  time.Time    `json:"updated"`
	Current  bool         `json:"current"`
	Promoted string       `json:"promoted,omitempty"`
	Scope    memory.Scope `json:"scope"`
}

// Skipped is a file of .thinking that is not a readable document.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// List returns a scope's documents, the most recently updated first, and
// the files that could not be read.
func (s *Store) List(ctx context.Context, scope memory.Scope) ([]Summary, []Skipped, error) {
	_, dir, err := s.dir(scope)
	if err != nil {
		return nil, nil, err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list thinking documents: %w", err)
	}
	cur, _ := current(dir)
	var out []Summary
	var skipped []Skipped
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		id, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d, err := read(dir, id, scope)
		if err != nil {
			skipped = append(skipped, Skipped{Path: filepath.Join(dir, e.Name()), Reason: err.Error()})
			continue
		}
		out = append(out, Summary{ID: d.ID, Topic: d.Topic, Status: d.Status, Thoughts: len(d.Thoughts),
			Updated: d.Updated, Current: d.ID == cur, Promoted: d.Promoted, Scope: scope})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if !out[a].Updated.Equal(out[b].Updated) {
			return out[a].Updated.After(out[b].Updated)
		}
		return out[a].ID < out[b].ID
	})
	return out, skipped, nil
}

// Use makes document id the scope's current one.
func (s *Store) Use(ctx context.Context, scope memory.Scope, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	return s.locked(ctx, scope, func(dir string) error {
		if _, err := read(dir, id, scope); err != nil {
			return err
		}
		return setCurrent(dir, id)
	})
}

// Delete removes document id; when it was the current one, the scope has
// no current document afterwards.
func (s *Store) Delete(ctx context.Context, scope memory.Scope, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	return s.locked(ctx, scope, func(dir string) error {
		p := docPath(dir, id)
		if err := os.Remove(p); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s in the %s scope: %w", id, scope, ErrNotFound)
		} else if err != nil {
			return fmt.Errorf("delete thinking document %s: %w", id, err)
		}
		if cur, _ := current(dir); cur == id {
			return setCurrent(dir, "")
		}
		return nil
	})
}

// Promotion says how a conclusion becomes a memory.
type Promotion struct {
	Type memory.Type
	// Tags of the memory; "thinking" when empty.
	Tags []string
	// Slug of the memory; the type and topic when empty.
	Slug string
}

// Conclude ends document id ("" for the current one) with text. With a
// promotion, the conclusion first becomes a permanent memory of the scope,
// linked to every memory the deliberation referenced; the document is then
// marked concluded and stops being current. On any error before the memory
// is written, nothing is written.
func (s *Store) Conclude(ctx context.Context, scope memory.Scope, id, text string, p *Promotion) (*Document, *memory.Memory, error) {
	if err := checkText("conclusion", text, MaxThought, false); err != nil {
		return nil, nil, err
	}
	d, err := s.Get(ctx, scope, id)
	if err != nil {
		return nil, nil, err
	}
	if d.Status == Concluded {
		return nil, nil, fmt.Errorf("%s: %w", d.ID, ErrConcluded)
	}
	var m *memory.Memory
	if p != nil {
		if m, err = s.promote(ctx, d, text, *p); err != nil {
			return nil, nil, err
		}
	}
	err = s.locked(ctx, scope, func(dir string) error {
		cur, err := read(dir, d.ID, scope)
		if err != nil {
			return err
		}
		if cur.Status == Concluded {
			return fmt.Errorf("%s: %w", d.ID, ErrConcluded)
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		cur.Status, cur.Conclusion, cur.Updated = Concluded, text, now
		if m != nil {
			cur.Promoted = m.Slug
			cur.References = dedup(append(cur.References, m.Links...))
		}
		if err := write(cur); err != nil {
			return err
		}
		d = cur
		if c, _ := current(dir); c == cur.ID {
			return setCurrent(dir, "")
		}
		return nil
	})
	if err != nil {
		if m != nil {
			return nil, m, fmt.Errorf("the conclusion was saved as memory %s, but the document was not marked concluded: %w", m.Slug, err)
		}
		return nil, nil, err
	}
	return d, m, nil
}

// slugMention finds slug-shaped words in text (memory slugs always hold a
// hyphen: type, then title).
var slugMention = regexp.MustCompile(`[a-z0-9]+(?:-[a-z0-9]+)+`)

// promote writes the conclusion as a memory linked to what d references.
func (s *Store) promote(ctx context.Context, d *Document, text string, p Promotion) (*memory.Memory, error) {
	if !p.Type.Valid() {
		return nil, fmt.Errorf("cannot promote to %q: %w", p.Type, errors.New("want decision, learning, artifact, gotcha, breadcrumb or hub"))
	}
	entries, err := s.mem.List(ctx, d.Scope)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.Slug] = true
	}
	var links []string
	add := func(sl string) {
		if known[sl] && !slices.Contains(links, sl) {
			links = append(links, sl)
		}
	}
	for _, r := range d.References {
		add(r)
	}
	for _, t := range append([]string{d.Topic, text}, texts(d)...) {
		for _, w := range slugMention.FindAllString(t, -1) {
			add(w)
		}
	}
	tags := p.Tags
	if len(tags) == 0 {
		tags = []string{"thinking"}
	}
	t := truncRunes(oneLine(d.Topic), memory.MaxTitle)
	slug := p.Slug
	if slug == "" {
		slug = memory.SlugFor(p.Type, t)
	}
	m := &memory.Memory{Slug: slug, Type: p.Type, Title: t, Tags: tags, Links: links,
		Scope: d.Scope, Content: promotedContent(d, text)}
	if err := s.write(ctx, m); err != nil {
		return nil, fmt.Errorf("promote the conclusion of %s: %w", d.ID, err)
	}
	return m, nil
}

func texts(d *Document) []string {
	out := make([]string, len(d.Thoughts))
	for i, e := range d.Thoughts {
		out[i] = e.Text
	}
	return out
}

// promotedContent is the memory's content: the conclusion, then a short
// record of the deliberation, within the memory's content limit.
func promotedContent(d *Document, text string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(text))
	head := fmt.Sprintf("\n\n## Deliberation\n\nConcluded from thinking document %s (%d thoughts).\n\n", d.ID, len(d.Thoughts))
	n := utf8.RuneCountInString(b.String())
	if n+utf8.RuneCountInString(head) > memory.MaxContent {
		// The conclusion alone: validation refuses it when it is too long.
		return b.String()
	}
	b.WriteString(head)
	n += utf8.RuneCountInString(head)
	for _, e := range d.Thoughts {
		line := fmt.Sprintf("- %s %d: %s", e.Kind, e.N, truncRunes(oneLine(e.Text), 200))
		if e.By != "" {
			line += " (" + e.By + ")"
		}
		line += "\n"
		if n += utf8.RuneCountInString(line); n > memory.MaxContent {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func truncRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

func checkRefs(refs []string) error {
	for _, r := range refs {
		if err := memory.CheckSlug(r); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
	}
	return nil
}

func dedup(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
