package index

import (
	"bytes"
	"hash/fnv"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// FileID returns the stable id of a file (and of its file entity).
func FileID(rel string) int64 { return hashID("file\x00" + rel) }

// EntityID returns the stable id of an entity: the same declaration keeps its
// id across re-indexing, so references into it from other files survive.
func EntityID(rel string, kind symbols.Kind, qname string, ordinal int) int64 {
	return hashID(rel + "\x00" + string(kind) + "\x00" + qname + "\x00" + strconv.Itoa(ordinal))
}

func hashID(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	id := int64(h.Sum64() & (1<<63 - 1))
	if id == 0 {
		id = 1
	}
	return id
}

// Caps that keep the full-text index proportionate to the source.
const (
	maxBodyTerms     = 300
	maxFileBodyTerms = 1000
	maxWholeTerms    = 4000
	// maxWholeTF caps how often one term is written to a whole-file
	// document. BM25 saturates in term frequency, but the cap also shortens
	// the document length BM25 normalises by: at 10 the benchmark's
	// whole-file baseline lost 0.02 mrr, at 30 it gained (decision 0072).
	maxWholeTF = 30
)

// builder turns an extraction into store rows. It is owned by one worker.
type builder struct {
	an   *analyzer.Analyzer
	seen map[string]struct{}
	tf   map[string]int
	sb   strings.Builder
}

func newBuilder() *builder {
	return &builder{an: analyzer.New(), seen: make(map[string]struct{}, 256), tf: make(map[string]int, 1024)}
}

// build converts what symbols.Extract found in rel into the rows to store.
// The returned refs are unresolved.
func (b *builder) build(rel string, src []byte, sf *symbols.File, fd *store.FileData) {
	fileID := fd.File.ID
	lines := bytes.Count(src, []byte("\n")) + 1
	base := path.Base(rel)

	ids := make([]int64, len(sf.Entities))
	ordinals := make(map[string]int, len(sf.Entities))
	for i := range sf.Entities {
		e := &sf.Entities[i]
		key := string(e.Kind) + "\x00" + e.QualName
		ids[i] = EntityID(rel, e.Kind, e.QualName, ordinals[key])
		ordinals[key]++
	}

	fd.Entities = append(fd.Entities[:0], store.Entity{
		ID: fileID, FileID: fileID, Kind: string(symbols.KindFile),
		Name: base, QName: rel, StartLine: 1, EndLine: lines,
	})
	for i := range sf.Entities {
		e := &sf.Entities[i]
		parent := fileID
		if e.Parent >= 0 && e.Parent < len(ids) {
			parent = ids[e.Parent]
		}
		fd.Entities = append(fd.Entities, store.Entity{
			ID: ids[i], FileID: fileID, ParentID: parent, Kind: string(e.Kind),
			Name: e.Name, QName: e.QualName, StartLine: e.StartLine, EndLine: e.EndLine,
			Signature: e.Signature, Doc: e.Doc,
		})
	}

	srcOf := func(from int) int64 {
		if from >= 0 && from < len(ids) {
			return ids[from]
		}
		return fileID
	}
	fd.Refs = fd.Refs[:0]
	for _, r := range sf.Refs {
		kind := store.ParseRefKind(string(r.Kind))
		if kind == 0 || r.Name == "" {
			continue
		}
		fd.Refs = append(fd.Refs, store.Ref{SrcID: srcOf(r.From), FileID: fileID, Kind: kind, Name: r.Name, Qualifier: r.Qualifier, Line: r.Line})
	}
	for _, im := range sf.Imports {
		if im.Path == "" {
			continue
		}
		fd.Refs = append(fd.Refs, store.Ref{SrcID: fileID, FileID: fileID, Kind: store.RefImports, Name: im.Path, Qualifier: im.ImportQualifier(), Line: im.Line})
	}

	// Full-text documents. Every byte of the file is owned by exactly one
	// entity (the innermost that spans it, else the file), and each entity's
	// body field holds the distinct terms of the text it owns.
	own := ownText(src, sf.Entities)
	fd.Docs = fd.Docs[:0]
	var imports []string
	imports = importTerms(imports, sf.Imports)
	fd.Docs = append(fd.Docs, store.Doc{
		ID:        fileID,
		Name:      b.terms(strings.TrimSuffix(base, path.Ext(base))),
		QName:     b.terms(sf.Package),
		Path:      b.terms(rel),
		Signature: b.terms(strings.Join(imports, " ")),
		Body:      b.distinct(own[len(sf.Entities)], maxFileBodyTerms),
	})
	fd.Whole = store.Doc{Path: fd.Docs[0].Path, Body: b.counted(src, maxWholeTerms, maxWholeTF)}
	for i := range sf.Entities {
		e := &sf.Entities[i]
		fd.Docs = append(fd.Docs, store.Doc{
			ID:        ids[i],
			Name:      b.terms(e.Name),
			QName:     b.terms(e.QualName),
			Signature: b.terms(e.Signature),
			Doc:       b.terms(e.Doc),
			Body:      b.distinct(own[i], maxBodyTerms),
		})
	}
}

// terms returns the analyzed terms of s, space-separated.
func (b *builder) terms(s string) string {
	if s == "" {
		return ""
	}
	b.sb.Reset()
	b.an.Each(s, func(t string) {
		if b.sb.Len() > 0 {
			b.sb.WriteByte(' ')
		}
		b.sb.WriteString(t)
	})
	return b.sb.String()
}

// distinct returns the distinct analyzed terms of the text segments, at most
// max of them, space-separated.
func (b *builder) distinct(segments [][]byte, max int) string {
	clear(b.seen)
	b.sb.Reset()
	for _, seg := range segments {
		if len(b.seen) >= max {
			break
		}
		b.an.Each(unsafeString(seg), func(t string) {
			if len(b.seen) >= max {
				return
			}
			if _, ok := b.seen[t]; ok {
				return
			}
			b.seen[t] = struct{}{}
			if b.sb.Len() > 0 {
				b.sb.WriteByte(' ')
			}
			b.sb.WriteString(t)
		})
	}
	return b.sb.String()
}

// counted returns the analyzed terms of src with their frequencies, each of
// the first maxTerms distinct terms written min(tf, maxTF) times, so that
// whole-file BM25 sees term frequency as whole-file retrieval does.
func (b *builder) counted(src []byte, maxTerms, maxTF int) string {
	clear(b.tf)
	order := make([]string, 0, 256)
	b.an.Each(unsafeString(src), func(t string) {
		if n, ok := b.tf[t]; ok {
			b.tf[t] = n + 1
			return
		}
		if len(order) >= maxTerms {
			return
		}
		t = strings.Clone(t)
		b.tf[t] = 1
		order = append(order, t)
	})
	b.sb.Reset()
	for _, t := range order {
		for i := min(b.tf[t], maxTF); i > 0; i-- {
			if b.sb.Len() > 0 {
				b.sb.WriteByte(' ')
			}
			b.sb.WriteString(t)
		}
	}
	return b.sb.String()
}

// ownText splits src among entities: own[i] holds the byte segments that
// entity i spans and no child of it spans; own[len(entities)] holds what no
// entity spans (the file's own text).
func ownText(src []byte, ents []symbols.Entity) [][][]byte {
	own := make([][][]byte, len(ents)+1)
	order := make([]int, len(ents))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ea, eb := &ents[order[a]], &ents[order[b]]
		if ea.StartByte != eb.StartByte {
			return ea.StartByte < eb.StartByte
		}
		return ea.EndByte > eb.EndByte
	})
	n := uint32(len(src))
	type frame struct {
		idx int
		end uint32
	}
	stack := []frame{{idx: len(ents), end: n}}
	pos := uint32(0)
	emit := func(owner int, to uint32) {
		if to > pos {
			own[owner] = append(own[owner], src[pos:to])
			pos = to
		}
	}
	for _, i := range order {
		e := &ents[i]
		start, end := min(e.StartByte, n), min(e.EndByte, n)
		for len(stack) > 1 && stack[len(stack)-1].end <= start {
			top := stack[len(stack)-1]
			emit(top.idx, top.end)
			stack = stack[:len(stack)-1]
		}
		top := stack[len(stack)-1]
		start = max(start, pos)
		end = min(end, top.end)
		if end <= start {
			continue
		}
		emit(top.idx, start)
		stack = append(stack, frame{idx: i, end: end})
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		emit(top.idx, top.end)
		stack = stack[:len(stack)-1]
	}
	return own
}

// importTerms appends the text of a file's import statements, once each,
// for its document: a statement that imports several names is one Import
// per name, and where the statement as a whole is an Import too (`use
// a::{b, c}`), that one stands for it.
func importTerms(out []string, imports []symbols.Import) []string {
	whole := map[int]bool{}
	for _, im := range imports {
		if im.Name == "" {
			whole[im.Line] = true
		}
	}
	prev := symbols.Import{}
	for _, im := range imports {
		if (im.Name == "" || !whole[im.Line]) && (im.Path != prev.Path || im.Line != prev.Line) {
			out = append(out, im.Path)
		}
		prev = im
	}
	return out
}
