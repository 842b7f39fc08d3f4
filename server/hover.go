package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// hover answers with the entity under the cursor, rendered by the session
// (retrieval.Hover: the same renderer as the auto-context).
func (s *Server) hover(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	md, err := s.sess.Hover(ctx, string(p.TextDocument.URI), pathOf(string(p.TextDocument.URI)), position(p.Position))
	if err != nil || md == "" {
		return nil, err
	}
	return protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}}, nil
}
