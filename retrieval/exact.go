package retrieval

import (
	"context"
	"fmt"
	"math"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
)

var qualSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.|::|->|#`) })

// exactMatches credits entities that a trigger names outright: a symbol by
// (qualified) name, a file by path, the entity at an error's line.
func exactMatches(ctx context.Context, st *store.Store, triggers []analyzer.Trigger, get func(int64) *cand) error {
	credit := func(id int64, v float64, why string) {
		c := get(id)
		if v > c.exact {
			c.exact = v
		}
		c.why = append(c.why, why)
	}
	for _, tr := range triggers {
		switch tr.Type {
		case analyzer.TriggerSymbol, analyzer.TriggerHover, analyzer.TriggerSelection:
			parts := qualSep().Split(tr.Query, -1)
			name := parts[len(parts)-1]
			if len(name) < 2 {
				continue
			}
			ents, err := st.EntitiesByName(ctx, name, 64)
			if err != nil {
				return err
			}
			qual := strings.ToLower(strings.Join(parts, "."))
			// A dotted name can be a module path: requests.compat,
			// core.logx, os.path.
			if len(parts) > 1 {
				files, err := st.FilesByStem(ctx, strings.Join(parts, "/"), 4)
				if err != nil {
					return err
				}
				for _, f := range files {
					credit(f.ID, tr.Relevance/math.Sqrt(float64(len(files))), "module "+tr.Query)
				}
			}
			n := float64(len(ents))
			for _, e := range ents {
				v := tr.Relevance / math.Sqrt(n)
				if len(parts) > 1 {
					if strings.HasSuffix(strings.ToLower(e.QName), qual) {
						v = tr.Relevance
					} else {
						v *= 0.5
					}
				} else if e.Name != name {
					v *= 0.7 // case differs
				}
				credit(e.ID, v, fmt.Sprintf("named %q", tr.Query))
			}
		case analyzer.TriggerPath, analyzer.TriggerErrorLoc, analyzer.TriggerFileOpen, analyzer.TriggerFileEdit:
			files, err := filesForPath(ctx, st, tr.Query)
			if err != nil {
				return err
			}
			for _, f := range files {
				v := tr.Relevance / math.Sqrt(float64(len(files)))
				if tr.Line > 0 {
					v *= 0.5 // the entity at the line is the better answer
				}
				credit(f.ID, v, "path "+tr.Query)
				if tr.Line > 0 {
					e, ok, err := st.EntityAt(ctx, f.Path, tr.Line)
					if err != nil {
						return err
					}
					if ok {
						credit(e.ID, tr.Relevance, fmt.Sprintf("at %s:%d", tr.Query, tr.Line))
					}
				}
			}
		}
	}
	return nil
}

// filesForPath finds indexed files a path in a message refers to: relative
// or absolute, with or without leading "./". An absolute path from another
// machine matches by its longest suffix that exists here.
func filesForPath(ctx context.Context, st *store.Store, p string) ([]store.File, error) {
	p = strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, `\`, "/")), "./")
	p = strings.TrimLeft(p, "/")
	if i := strings.Index(p, ":/"); i == 1 { // Windows drive
		p = p[i+2:]
	}
	for p != "" {
		files, err := st.FilesByPathSuffix(ctx, p, 8)
		if err != nil || len(files) > 0 {
			return files, err
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return nil, nil
		}
		p = p[i+1:]
	}
	return nil, nil
}
