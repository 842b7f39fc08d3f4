package think

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxls/ctxls/memory"
)

// Call asks a provider CLI for a thought of the given kind on document id
// ("" for the current one), with the document so far as context, and
// records its answer with the attribution "model:X provider:Y [session]".
// On any failure nothing is written; provider failures count against the
// provider's circuit breaker (br may be nil), and an open circuit refuses
// the call.
func (s *Store) Call(ctx context.Context, scope memory.Scope, id string, kind Kind, request string,
	p Provider, o CallOptions, br *Breakers) (*Document, Entry, error) {
	if err := checkText("request", request, MaxThought, false); err != nil {
		return nil, Entry{}, err
	}
	d, err := s.Get(ctx, scope, id)
	if err != nil {
		return nil, Entry{}, err
	}
	if d.Status == Concluded {
		return nil, Entry{}, fmt.Errorf("%s: %w; create a new one", d.ID, ErrConcluded)
	}
	if br != nil {
		if st, ok := br.Allow(p.Name); !ok {
			return nil, Entry{}, fmt.Errorf("%w for %s: %d failures in a row this session; retrying after %s",
				ErrCircuitOpen, p.Name, st.ConsecutiveFailures, BreakerCooldown)
		}
	}
	text, err := p.Run(ctx, o, Prompt(d, kind, request))
	if br != nil && !errors.Is(err, ErrNotInstalled) && ctx.Err() == nil {
		// The breaker is advice: failing to persist it must not cost an
		// answer or hide the provider's own error.
		br.Record(p.Name, err == nil)
	}
	if err != nil {
		return nil, Entry{}, err
	}
	by := Attribution(p.Name, o.Model, o.Session)
	return s.add(ctx, scope, d.ID, Entry{Kind: kind, By: by, Agent: o.Agent, Style: o.Style, Prompt: request, Text: text}, nil)
}
