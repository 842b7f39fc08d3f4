package symbols

import (
	"context"
	"errors"
	"fmt"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// parse parses src with lang's parser of x, incrementally from old when old
// is not nil, and stops at ctx's deadline.
//
// ctx is not handed to the binding's ParseCtx, for two faults of its
// cancellation. A halted parse stays in the parser, and tree-sitter resumes
// it on the next call whatever text that call gives (ts_parser_parse: "it
// will resume where it left off ... you must call ts_parser_reset first"):
// the next file came out as a mixture of both texts, with declarations at
// lines neither holds, and the index stored it as current. And the
// goroutine that raises the cancellation flag can raise it after the parse
// has ended, halting the next parse of a live context at once. The deadline
// becomes the parser's own timeout instead, no flag is raised, and a
// halted parser is reset. A context cancelled without a deadline is seen
// before the parse, not during it: one file's parse takes milliseconds.
func (x *Extractor) parse(ctx context.Context, lang *Language, old *sitter.Tree, src []byte) (*sitter.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if lang.unknown != nil {
		// The grammar reads a rewritten copy; a kept tree is not reused,
		// since an edit can change what is rewritten outside its range.
		src, old = lang.unknown(src), nil
	}
	p := x.parser(lang)
	limit := 0 // none
	if deadline, ok := ctx.Deadline(); ok {
		limit = max(int(time.Until(deadline).Microseconds()), 1)
	}
	p.SetOperationLimit(limit)
	tree, err := p.ParseCtx(context.Background(), old, src)
	if tree != nil {
		return tree, nil
	}
	p.Reset()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case limit > 0 && errors.Is(err, sitter.ErrOperationLimit):
		return nil, fmt.Errorf("parse halted at the deadline: %w", context.DeadlineExceeded)
	case err == nil:
		return nil, errors.New("parse returned no tree")
	}
	return nil, err
}
