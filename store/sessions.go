package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The prompt history: what the prompt hook injected for each prompt of an
// assistant session, and whether the assistant then used it. A person can
// see what their assistant was told (ctxls sessions), and the share of
// injected files the assistant went on to read or edit is a measure of
// usefulness taken from real use (ctxls stats --sessions).
//
// An injected file counts as used when a later tool call of the same
// session names it (Read, Edit, Write, MultiEdit, or Grep and Glob given
// the file as their path): RecordActivity marks the injections in the
// transaction the tool hook already makes. Deriving it at read time from
// the activity table would be less writing, but that table keeps only its
// last maxActivity rows, a few days of use, and would forget the tool calls
// of the older sessions the figure is taken over.

// PromptRetention is how long the prompt history is kept.
const PromptRetention = 30 * 24 * time.Hour

// maxPrompts bounds the prompt history whatever its age: with the hook's
// budget a prompt injects at most a few dozen entries, so a few MB at most.
const maxPrompts = 2000

// MaxPromptText is how much of a prompt's text the history keeps (bytes).
const MaxPromptText = 500

// Injection is one entry the prompt hook injected.
type Injection struct {
	Source string `json:"source"`
	// ID is the entry's id within its source: "path#qname" for code.
	ID string `json:"id"`
	// Path is the workspace file the entry shows ("" when it shows none).
	Path      string  `json:"path,omitempty"`
	Section   string  `json:"section,omitempty"`
	Relevance float64 `json:"relevance,omitempty"`
	// Used says, for an entry with a Path, whether a later tool call of the
	// session touched that file; UsedBy names the first such tool.
	Used   *bool     `json:"used,omitempty"`
	UsedAt time.Time `json:"usedAt,omitzero"`
	UsedBy string    `json:"usedBy,omitempty"`
}

// Prompt is one prompt of a session and what was injected for it.
type Prompt struct {
	Session string `json:"-"`
	// Ordinal is the prompt's number in its session, from 1.
	Ordinal  int         `json:"ordinal"`
	At       time.Time   `json:"at"`
	Text     string      `json:"text"`
	Injected []Injection `json:"injected"`
}

// RecordPrompt appends a prompt and its injections to the history within
// tx (the collector's consuming transaction, so that the hook makes no
// transaction of its own for it), and prunes what is older than
// PromptRetention or beyond maxPrompts.
func RecordPrompt(ctx context.Context, tx *sql.Tx, p Prompt) error {
	if p.At.IsZero() {
		p.At = time.Now()
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO prompts(session, ordinal, at, text)
		VALUES(?1, (SELECT coalesce(max(ordinal), 0) + 1 FROM prompts WHERE session = ?1), ?2, ?3) RETURNING id`,
		p.Session, p.At.UnixMilli(), truncateText(p.Text, MaxPromptText)).Scan(&id)
	if err != nil {
		return classify(fmt.Errorf("record prompt: %w", err))
	}
	for _, in := range p.Injected {
		var rel any
		if in.Relevance != 0 {
			rel = in.Relevance
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO prompt_injections(prompt, session, source, id, path, section, relevance)
			VALUES(?,?,?,?,?,?,?)`, id, p.Session, in.Source, in.ID, in.Path, in.Section, rel); err != nil {
			return classify(fmt.Errorf("record injection %s:%s: %w", in.Source, in.ID, err))
		}
	}
	// Ids only grow (AUTOINCREMENT), so the injections of pruned prompts
	// are those below the oldest prompt kept: both deletes are range scans
	// that find nothing to do on almost every call.
	if _, err := tx.ExecContext(ctx, `DELETE FROM prompts WHERE id <= ? - ? OR at < ?`,
		id, maxPrompts, p.At.Add(-PromptRetention).UnixMilli()); err != nil {
		return classify(fmt.Errorf("prune prompts: %w", err))
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM prompt_injections WHERE prompt < (SELECT min(id) FROM prompts)`); err != nil {
		return classify(fmt.Errorf("prune injections: %w", err))
	}
	return nil
}

// markUsed records, within the tool hook's activity transaction, that the
// assistant touched a file: the session's injections of it not yet marked
// were used.
func markUsed(ctx context.Context, tx *sql.Tx, a Activity) error {
	if a.Origin != "assistant" || a.Type != "tool" || a.Session == "" || a.Path == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE prompt_injections SET used_at = ?, used_by = ?
		WHERE session = ? AND path = ? AND used_at IS NULL`, a.At.UnixMilli(), a.Text, a.Session, a.Path)
	if err != nil {
		return classify(fmt.Errorf("mark injections of %s used: %w", a.Path, err))
	}
	return nil
}

// SessionSummary is what one session's prompts were given and used.
type SessionSummary struct {
	ID           string    `json:"id"`
	Started      time.Time `json:"started"`
	LastActivity time.Time `json:"lastActivity"`
	Prompts      int       `json:"prompts"`
	// Injections counts the entries injected; InjectedFiles the distinct
	// files they showed, and UsedFiles those of them a later tool call of
	// the session touched.
	Injections    int `json:"injections"`
	InjectedFiles int `json:"injectedFiles"`
	UsedFiles     int `json:"usedFiles"`
	// ShareUsed is UsedFiles / InjectedFiles (0 when nothing was injected).
	ShareUsed float64 `json:"shareUsed"`
}

// SessionFilter selects sessions of the history.
type SessionFilter struct {
	// Since drops sessions without activity since then.
	Since time.Time
	// Limit keeps the most recently active sessions (0: all).
	Limit int
	// ExcludePrefix drops sessions whose id starts with it (health
	// checks' probe sessions).
	ExcludePrefix string
}

// Sessions returns the sessions of the prompt history, most recently active
// first.
func (s *Store) Sessions(ctx context.Context, f SessionFilter) ([]SessionSummary, error) {
	byID := map[string]*SessionSummary{}
	rows, err := s.db.QueryContext(ctx, `SELECT session, min(at), max(at), count(*) FROM prompts GROUP BY session`)
	if err != nil {
		return nil, classify(fmt.Errorf("sessions: %w", err))
	}
	for rows.Next() {
		var sum SessionSummary
		var first, last int64
		if err := rows.Scan(&sum.ID, &first, &last, &sum.Prompts); err != nil {
			rows.Close()
			return nil, classify(fmt.Errorf("sessions: %w", err))
		}
		if f.ExcludePrefix != "" && strings.HasPrefix(sum.ID, f.ExcludePrefix) {
			continue
		}
		sum.Started, sum.LastActivity = time.UnixMilli(first), time.UnixMilli(last)
		byID[sum.ID] = &sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(fmt.Errorf("sessions: %w", err))
	}
	if len(byID) == 0 {
		return nil, nil
	}
	rows, err = s.db.QueryContext(ctx, `SELECT session, count(*), count(DISTINCT nullif(path, '')),
		count(DISTINCT CASE WHEN used_at IS NOT NULL THEN nullif(path, '') END), coalesce(max(used_at), 0)
		FROM prompt_injections GROUP BY session`)
	if err != nil {
		return nil, classify(fmt.Errorf("sessions: %w", err))
	}
	for rows.Next() {
		var id string
		var n, files, used int
		var lastUse int64
		if err := rows.Scan(&id, &n, &files, &used, &lastUse); err != nil {
			rows.Close()
			return nil, classify(fmt.Errorf("sessions: %w", err))
		}
		if sum := byID[id]; sum != nil {
			sum.Injections, sum.InjectedFiles, sum.UsedFiles = n, files, used
			if t := time.UnixMilli(lastUse); lastUse > 0 && t.After(sum.LastActivity) {
				sum.LastActivity = t
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(fmt.Errorf("sessions: %w", err))
	}
	// The tool calls after the last prompt are the session's last activity
	// while the activity table still holds them.
	rows, err = s.db.QueryContext(ctx, `SELECT session, min(at), max(at) FROM activity WHERE session != '' GROUP BY session`)
	if err != nil {
		return nil, classify(fmt.Errorf("sessions: %w", err))
	}
	for rows.Next() {
		var id string
		var first, last int64
		if err := rows.Scan(&id, &first, &last); err != nil {
			rows.Close()
			return nil, classify(fmt.Errorf("sessions: %w", err))
		}
		if sum := byID[id]; sum != nil {
			if t := time.UnixMilli(first); t.Before(sum.Started) {
				sum.Started = t
			}
			if t := time.UnixMilli(last); t.After(sum.LastActivity) {
				sum.LastActivity = t
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(fmt.Errorf("sessions: %w", err))
	}
	out := make([]SessionSummary, 0, len(byID))
	for _, sum := range byID {
		if sum.LastActivity.Before(f.Since) {
			continue
		}
		if sum.InjectedFiles > 0 {
			sum.ShareUsed = float64(sum.UsedFiles) / float64(sum.InjectedFiles)
		}
		out = append(out, *sum)
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].LastActivity.Equal(out[b].LastActivity) {
			return out[a].LastActivity.After(out[b].LastActivity)
		}
		return out[a].ID < out[b].ID
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// SessionPrompts returns a session's prompts in order, each with what was
// injected for it (in injection order) and whether it was used; none for
// an unknown session.
func (s *Store) SessionPrompts(ctx context.Context, session string) ([]Prompt, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT p.id, p.ordinal, p.at, p.text,
		i.source, i.id, i.path, i.section, coalesce(i.relevance, 0), coalesce(i.used_at, 0), coalesce(i.used_by, '')
		FROM prompts p LEFT JOIN prompt_injections i ON i.prompt = p.id
		WHERE p.session = ? ORDER BY p.id, i.rowid`, session)
	if err != nil {
		return nil, classify(fmt.Errorf("session %s: %w", session, err))
	}
	defer rows.Close()
	var out []Prompt
	last := int64(-1)
	for rows.Next() {
		var id, at, usedAt int64
		var p Prompt
		var src, eid, path, section, usedBy sql.NullString
		var in Injection
		if err := rows.Scan(&id, &p.Ordinal, &at, &p.Text, &src, &eid, &path, &section, &in.Relevance, &usedAt, &usedBy); err != nil {
			return nil, classify(fmt.Errorf("session %s: %w", session, err))
		}
		if id != last {
			last = id
			p.Session, p.At, p.Injected = session, time.UnixMilli(at), []Injection{}
			out = append(out, p)
		}
		if !src.Valid {
			continue // a prompt given nothing
		}
		in.Source, in.ID, in.Path, in.Section, in.UsedBy = src.String, eid.String, path.String, section.String, usedBy.String
		if in.Path != "" {
			used := usedAt > 0
			in.Used = &used
			if used {
				in.UsedAt = time.UnixMilli(usedAt)
			}
		}
		cur := &out[len(out)-1]
		cur.Injected = append(cur.Injected, in)
	}
	return out, classify(rows.Err())
}

// truncateText cuts s to at most n bytes, at a character boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
