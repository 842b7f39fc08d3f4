package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/symbols"
)

// symbolKinds maps ctxls's entity kinds onto LSP symbol kinds.
var symbolKinds = map[string]protocol.SymbolKind{
	string(symbols.KindFile):      protocol.SymbolKindFile,
	string(symbols.KindModule):    protocol.SymbolKindModule,
	string(symbols.KindClass):     protocol.SymbolKindClass,
	string(symbols.KindStruct):    protocol.SymbolKindStruct,
	string(symbols.KindInterface): protocol.SymbolKindInterface,
	string(symbols.KindEnum):      protocol.SymbolKindEnum,
	string(symbols.KindType):      protocol.SymbolKindTypeParameter,
	string(symbols.KindFunction):  protocol.SymbolKindFunction,
	string(symbols.KindMethod):    protocol.SymbolKindMethod,
	string(symbols.KindConstant):  protocol.SymbolKindConstant,
	string(symbols.KindVariable):  protocol.SymbolKindVariable,
	string(symbols.KindHeading):   protocol.SymbolKindString,
}

func symbolKind(k string) protocol.SymbolKind {
	if v, ok := symbolKinds[k]; ok {
		return v
	}
	return protocol.SymbolKindVariable
}

// docSymbol is protocol.DocumentSymbol with children that stay out of the
// JSON when empty (go.lsp.dev's type has no omitempty on them).
type docSymbol struct {
	Name           string              `json:"name"`
	Detail         string              `json:"detail,omitempty"`
	Kind           protocol.SymbolKind `json:"kind"`
	Range          protocol.Range      `json:"range"`
	SelectionRange protocol.Range      `json:"selectionRange"`
	Children       []*docSymbol        `json:"children,omitempty"`
}

// documentSymbol answers from the overlay for open documents and from a
// fresh parse of the file on disk otherwise.
func (s *Server) documentSymbol(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DocumentSymbolParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return outline(s.sess.Outline(ctx, string(p.TextDocument.URI), pathOf(string(p.TextDocument.URI)))), nil
}

// outline turns extracted entities into a DocumentSymbol tree.
func outline(f *symbols.File) []*docSymbol {
	out := []*docSymbol{}
	if f == nil {
		return out
	}
	nodes := make([]*docSymbol, len(f.Entities))
	for i, e := range f.Entities {
		if e.Kind == symbols.KindFile {
			continue
		}
		r := lineRange(e.StartLine, e.EndLine)
		nodes[i] = &docSymbol{Name: e.Name, Detail: e.Signature, Kind: symbolKind(string(e.Kind)), Range: r, SelectionRange: lineRange(e.StartLine, e.StartLine)}
	}
	for i, e := range f.Entities {
		if nodes[i] == nil {
			continue
		}
		if e.Parent >= 0 && e.Parent < len(nodes) && nodes[e.Parent] != nil {
			nodes[e.Parent].Children = append(nodes[e.Parent].Children, nodes[i])
		} else {
			out = append(out, nodes[i])
		}
	}
	return out
}

// lineRange spans whole 1-based lines from..to as an LSP range (the entity
// model keeps lines, not columns).
func lineRange(from, to int) protocol.Range {
	if from < 1 {
		from = 1
	}
	if to < from {
		to = from
	}
	return protocol.Range{Start: protocol.Position{Line: uint32(from - 1)}, End: protocol.Position{Line: uint32(to)}}
}
