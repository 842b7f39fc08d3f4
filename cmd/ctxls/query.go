package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/internal/wspath"
)

// queryWait bounds a query call to the daemon, as ctxls-core's does.
const queryWait = 30 * time.Second

// maxQueryBytes is ctxls-core's cut for a query's text
// (analyzer.MaxMessageBytes, which this standard-library-only program
// cannot import; equal by a test): a longer text goes to ctxls-core, which
// cuts it. It routes, and cuts nothing.
const maxQueryBytes = 32 << 10

// query is a `ctxls query` command line the daemon can answer.
type query struct {
	root, text    string
	json, explain bool
	limit         int
	minRelevance  float64
	active        []string
}

// parseQuery reads the arguments after `query` the way ctxls-core's flag
// parser does. ok is false for anything else (help, --refresh, text on
// stdin, an unknown or malformed flag, an empty query): ctxls-core then
// runs the command and reports what is wrong.
func parseQuery(args []string) (q query, ok bool) {
	q = query{root: ".", limit: 10, minRelevance: -1}
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") || !flagShaped(a) {
			// Message text may start with "-" ("-v is ignored"): what
			// cannot be a flag is a word.
			words = append(words, a)
			continue
		}
		if !strings.HasPrefix(a, "--") {
			return q, false // shorthand flags, -h
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		switch name {
		case "json", "explain":
			on := true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return q, false
				}
				on = b
			}
			if name == "json" {
				q.json = on
			} else {
				q.explain = on
			}
			continue
		case "root", "limit", "min-relevance", "active-file":
		default:
			return q, false
		}
		if !hasValue {
			if i+1 == len(args) {
				return q, false
			}
			i++
			value = args[i]
		}
		var err error
		switch name {
		case "root":
			q.root = value
		case "active-file":
			q.active = append(q.active, value)
		case "limit":
			var n int64
			n, err = strconv.ParseInt(value, 0, 64)
			q.limit = int(n)
		case "min-relevance":
			q.minRelevance, err = strconv.ParseFloat(value, 64)
		}
		if err != nil {
			return q, false
		}
	}
	q.text = strings.Join(words, " ")
	if q.text == "-" || strings.TrimSpace(q.text) == "" || len(q.text) > maxQueryBytes || q.limit <= 0 {
		return q, false
	}
	// query ranks whatever matches; only an explicit threshold abstains.
	q.minRelevance = max(q.minRelevance, 0)
	return q, true
}

// request is the daemon's request for the query, its root resolved and
// its active files relative to it as ctxls-core would send them; ok is
// false when the root is not a directory (ctxls-core says so).
func (q *query) request() (req *hookcall.Request, ok bool) {
	root, err := wspath.Root(q.root)
	if err != nil {
		return nil, false
	}
	var active []string
	for _, a := range q.active {
		if rel, _, err := wspath.Rel(root, a); err == nil {
			active = append(active, rel)
		}
	}
	return &hookcall.Request{Root: root, Query: &hookcall.Query{Text: q.text, Limit: q.limit,
		MinRelevance: q.minRelevance, ActiveFiles: active, JSON: q.json, Explain: q.explain}}, true
}

// flagShaped reports whether a, which starts with "-", can be a flag: a
// name of letters, digits, "-" and "_" (then "=value" for a long flag), as
// ctxls-core decides.
func flagShaped(a string) bool {
	name := strings.TrimPrefix(a, "-")
	if strings.HasPrefix(name, "-") {
		name, _, _ = strings.Cut(name[1:], "=")
	}
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
