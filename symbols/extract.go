package symbols

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// Extractor parses files and runs the languages' queries. It reuses one
// parser per language; use one Extractor per goroutine.
type Extractor struct {
	parsers map[string]*sitter.Parser
	cursor  *sitter.QueryCursor
}

// NewExtractor returns an Extractor. Compiled queries are shared by all.
func NewExtractor() *Extractor {
	return &Extractor{parsers: map[string]*sitter.Parser{}, cursor: sitter.NewQueryCursor()}
}

// Close releases the parsers.
func (x *Extractor) Close() {
	for _, p := range x.parsers {
		p.Close()
	}
	x.cursor.Close()
}

// Extract is a convenience wrapper around a temporary Extractor.
func Extract(ctx context.Context, path string, src []byte) (*File, error) {
	x := NewExtractor()
	defer x.Close()
	return x.Extract(ctx, path, src)
}

// Extract parses src as the language of path and returns what it declares
// and references. A file with syntax errors yields what tree-sitter
// recovered, with HasErrors set.
func (x *Extractor) Extract(ctx context.Context, path string, src []byte) (*File, error) {
	f, tree, err := x.ExtractIncremental(ctx, path, nil, src)
	if tree != nil {
		tree.Close()
	}
	return f, err
}

// ExtractIncremental is Extract for callers that keep the syntax tree of a
// buffer between edits (the language server): old, if not nil, must have
// been edited with Tree.Edit to match src. The caller owns the returned tree.
func (x *Extractor) ExtractIncremental(ctx context.Context, path string, old *sitter.Tree, src []byte) (*File, *sitter.Tree, error) {
	lang, ok := LanguageFor(path)
	if !ok {
		return nil, nil, fmt.Errorf("extract %s: unsupported language", path)
	}
	q, err := lang.compiled()
	if err != nil {
		return nil, nil, fmt.Errorf("extract %s: %w", path, err)
	}
	tree, err := x.parse(ctx, lang, old, src)
	if err != nil {
		return nil, nil, fmt.Errorf("extract %s: %w", path, err)
	}
	f, tree, err := x.extract(ctx, lang, q, path, tree, src)
	if err != nil {
		return nil, nil, fmt.Errorf("extract %s: %w", path, err)
	}
	return f, tree, nil
}

// Capture names used by the query files.
const (
	capName      = "name"
	capQualifier = "qualifier"
	capReceiver  = "receiver"
	capPath      = "path"
	capAlias     = "alias"
	capDefault   = "default" // the local name of a default import (JS/TS)
	capStatic    = "static"  // a Java static import
	capImport    = "import"
	capPackage   = "package"
	capDoc       = "doc"
	capLocal     = "local"   // a local name's declaration (Go), + @name (+ @type)
	capMisread   = "misread" // a construct the parse misread, + @name: see misread.go
	capType      = "type"
	// refValue marks a name used as a value (a function passed or
	// assigned): recorded as a plain reference, and only when the name is
	// not declared locally in its function, where it is a variable.
	refValue  = "ref.value"
	defPrefix = "def."
	refPrefix = "ref."
)

type def struct {
	kind       Kind
	node       *sitter.Node
	name       string
	receiver   string
	start, end uint32
	doc        string
	level      int // headings
}

type ref struct {
	kind      EdgeKind
	name      string
	qualifier string
	value     bool         // from @ref.value
	operand   *sitter.Node // a Go selector's operand, typed in finish
	at        uint32       // start of the reference
	nameAt    uint32       // start of the name: one name, one reference
	line      int
}

// local is a name declared inside a function (a parameter, a variable),
// with its type's name when the declaration gives one.
type local struct {
	name, typ string
	decl      *sitter.Node // the declaration, whose value types it on demand (Go)
	at        uint32       // start of the declaration
	nameAt    uint32
}

type extraction struct {
	src      []byte
	q        *sitter.Query
	pred     []bool
	captures []string
	lang     string
	f        *File
	defs     []def
	refs     []ref
	locals   []local
	// declared holds the start of every declared name: a declaration's own
	// name is not a reference.
	declared map[uint32]bool
	// misreads holds the nodes to rewrite where the parse misread
	// (misread.go).
	misreads []*sitter.Node
}

func (e *extraction) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	s, end := n.StartByte(), n.EndByte()
	if end > uint32(len(e.src)) || s > end {
		return ""
	}
	return string(e.src[s:end])
}

func (e *extraction) run(cur *sitter.QueryCursor, root *sitter.Node) {
	cur.Exec(e.q, root)
	for {
		m, ok := cur.NextMatch()
		if !ok {
			break
		}
		if int(m.PatternIndex) < len(e.pred) && e.pred[m.PatternIndex] {
			m = cur.FilterPredicates(m, e.src)
		}
		var main *sitter.Node
		var mainName string
		var name, qual, recv, ipath, alias, deflt, static, doc, typ *sitter.Node
		for _, c := range m.Captures {
			cn := e.captures[c.Index]
			node := c.Node
			switch {
			case cn == capName:
				if name == nil {
					name = node
				}
			case cn == capQualifier:
				qual = node
			case cn == capReceiver:
				recv = node
			case cn == capPath:
				ipath = node
			case cn == capAlias:
				alias = node
			case cn == capDefault:
				deflt = node
			case cn == capStatic:
				static = node
			case cn == capDoc:
				doc = node
			case cn == capType:
				typ = node
			case strings.HasPrefix(cn, defPrefix), strings.HasPrefix(cn, refPrefix), cn == capImport, cn == capPackage, cn == capLocal, cn == capMisread:
				main, mainName = node, cn
			}
		}
		if main == nil {
			continue
		}
		switch {
		case mainName == capPackage:
			if e.f.Package == "" {
				e.f.Package = strings.TrimSpace(e.text(name))
			}
		case mainName == capMisread:
			if name != nil && e.misread(main, name) {
				e.misreads = append(e.misreads, name)
			}
		case mainName == capLocal:
			if name != nil {
				e.locals = append(e.locals, local{name: e.text(name), typ: localType(e.text(typ)), decl: main, at: main.StartByte(), nameAt: name.StartByte()})
			}
		case mainName == capImport:
			p := strings.Trim(strings.TrimSpace(e.text(ipath)), "\"'`<>")
			if p != "" {
				im := Import{Path: p, Alias: strings.TrimSpace(e.text(alias)), Line: int(main.StartPoint().Row) + 1}
				switch {
				case static != nil:
					// `import static a.B.m`: the name m of class a.B; the
					// statement's plain match came first.
					i := strings.LastIndexByte(im.Path, '.')
					if i < 0 {
						continue
					}
					im.Path, im.Name = im.Path[:i], im.Path[i+1:]
					if n := len(e.f.Imports); n > 0 && e.f.Imports[n-1].Line == im.Line && e.f.Imports[n-1].Name == "" {
						e.f.Imports = e.f.Imports[:n-1]
					}
				case deflt != nil:
					im.Alias, im.Name = strings.TrimSpace(e.text(deflt)), "default"
				case name != nil:
					im.Name = strings.TrimSpace(e.text(name))
					if im.Name != ImportAll && !plainQualifier(im.Name) {
						continue
					}
				}
				e.f.Imports = append(e.f.Imports, im)
			}
		case strings.HasPrefix(mainName, defPrefix):
			if e.lang == "cpp" && localFunction(main) {
				continue
			}
			d := def{kind: Kind(mainName[len(defPrefix):]), node: main, name: memberName(e.text(name)),
				receiver: receiverName(e.text(recv)), start: main.StartByte(), end: main.EndByte()}
			if d.kind == KindHeading {
				d.name, d.level = headingText(e.text(main))
			}
			if doc != nil {
				d.doc = cleanDoc(e.text(doc))
			}
			if d.name == "" {
				continue
			}
			if name != nil {
				e.declared[name.StartByte()] = true
			}
			e.defs = append(e.defs, d)
		case strings.HasPrefix(mainName, refPrefix):
			n := memberName(e.text(name))
			if n == "" || len(n) > 200 {
				continue
			}
			q := strings.TrimSpace(e.text(qual))
			if len(q) > 80 {
				q = q[len(q)-80:]
			}
			r := ref{kind: EdgeKind(mainName[len(refPrefix):]), name: n, qualifier: normaliseQualifier(q),
				at: main.StartByte(), nameAt: name.StartByte(), line: int(main.StartPoint().Row) + 1}
			if mainName == refValue {
				r.kind, r.value = EdgeReferences, true
			}
			if e.lang == "go" {
				r.operand = qual
			}
			e.refs = append(e.refs, r)
		}
	}
	e.finish()
}

// localFunction reports whether a C++ function definition or declaration
// lies directly in a function body, where C++ declares none in practice:
// there the grammar has misread an object constructed with arguments
// (`std::lock_guard<std::mutex> lock(mu);`, the "most vexing parse") or a
// macro followed by a block (`TEST_CASE(x) { … }`), and its code belongs
// to the enclosing function.
func localFunction(n *sitter.Node) bool {
	switch n.Type() {
	case "declaration":
	case "function_definition":
		// A plain name without a return type: a macro's block. A function
		// with one, or a constructor (`Helper::Helper(…)`), in a body is
		// real, misplaced by an error before it.
		if n.ChildByFieldName("type") != nil {
			return false
		}
		d := n.ChildByFieldName("declarator")
		if d == nil || d.Type() != "function_declarator" {
			return false
		}
		if name := d.ChildByFieldName("declarator"); name == nil || name.Type() != "identifier" {
			return false
		}
	default:
		return false
	}
	p := n.Parent()
	return p != nil && p.Type() == "compound_statement"
}

// finish orders definitions, links parents, computes qualified names,
// signatures and docs, and attributes references to their enclosing entity.
func (e *extraction) finish() {
	sort.SliceStable(e.defs, func(a, b int) bool {
		if e.defs[a].start != e.defs[b].start {
			return e.defs[a].start < e.defs[b].start
		}
		return e.defs[a].end > e.defs[b].end
	})
	// Merge duplicates (two patterns matching one declaration): keep the
	// more specific kind and any doc either found.
	dd := e.defs[:0]
	for _, d := range e.defs {
		if n := len(dd); n > 0 && d.start == dd[n-1].start && d.end == dd[n-1].end && d.name == dd[n-1].name {
			last := &dd[n-1]
			if last.doc == "" {
				last.doc = d.doc
			}
			if last.kind == KindVariable || last.kind == KindConstant {
				last.kind = d.kind
			}
			if last.receiver == "" {
				last.receiver = d.receiver
			}
			continue
		}
		dd = append(dd, d)
	}
	e.defs = dd
	if e.lang == "markdown" {
		e.sections()
	}
	ents := make([]Entity, len(e.defs))
	var stack []int
	for i := range e.defs {
		d := &e.defs[i]
		for len(stack) > 0 && e.defs[stack[len(stack)-1]].end <= d.start {
			stack = stack[:len(stack)-1]
		}
		parent := -1
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		if d.kind == KindHeading {
			parent = -1
			for j := i - 1; j >= 0; j-- {
				if e.defs[j].level < d.level && e.defs[j].end >= d.end {
					parent = j
					break
				}
			}
		}
		kind := d.kind
		if kind == KindFunction && parent >= 0 && isType(e.defs[parent].kind) {
			kind = KindMethod
		}
		ents[i] = Entity{
			Kind: kind, Name: d.name, Parent: parent,
			StartLine: int(d.node.StartPoint().Row) + 1, EndLine: endLine(d.node, e.src, d.end),
			StartByte: d.start, EndByte: d.end,
		}
		if kind != KindHeading {
			ents[i].Signature = e.signature(d.node)
			ents[i].Doc = d.doc
			if ents[i].Doc == "" {
				ents[i].Doc = e.leadingComment(d.node)
			}
		}
		stack = append(stack, i)
	}
	// Go methods (and Rust impl items) name their receiver type: attach them
	// to that type when this file declares it.
	byName := map[string]int{}
	for i, en := range ents {
		if isType(en.Kind) {
			if _, dup := byName[en.Name]; !dup {
				byName[en.Name] = i
			}
		}
	}
	for i := range e.defs {
		if r := e.defs[i].receiver; r != "" {
			ents[i].Kind = KindMethod
			if t, ok := byName[r]; ok && ents[i].Parent < 0 && !within(ents, t, i) {
				ents[i].Parent = t
			}
		}
	}
	for i := range ents {
		ents[i].QualName = e.qualName(ents, i)
	}
	e.f.Entities = ents

	// References: innermost enclosing entity, deduplicated.
	type key struct {
		from            int
		kind            EdgeKind
		name, qualifier string
	}
	// Several patterns can match one name (a type in a qualified type, a
	// called type): keep the most specific reference per name position.
	best := map[uint32]int{}
	for i, r := range e.refs {
		j, ok := best[r.nameAt]
		if !ok || refRank(r) > refRank(e.refs[j]) {
			best[r.nameAt] = i
		}
	}
	seen := map[key]bool{}
	var g *goTyper
	if e.lang == "go" {
		g = e.goTyper(ents)
	}
	for i, r := range e.refs {
		if best[r.nameAt] != i || e.declared[r.nameAt] {
			continue
		}
		from := enclosing(ents, r.at)
		if g != nil {
			// A bare name declared in its function before this use is a
			// variable: passing it or calling it (a func-typed parameter)
			// reaches no declaration of that name elsewhere.
			if (r.value || r.kind == EdgeCalls) && r.qualifier == "" && g.declaredBefore(from, r.name, r.at) {
				continue
			}
			// A selector names a member of its operand's type: the
			// qualifier becomes that type, which the resolver matches
			// against receivers ("srv" → "Server"), or says it is unknown.
			if r.operand != nil {
				r.qualifier = g.qualifier(r.operand, from)
			}
		}
		if g == nil && r.qualifier != "" {
			r.qualifier = e.selfQualifier(ents, from, r.qualifier)
		}
		k := key{from, r.kind, r.name, r.qualifier}
		if seen[k] {
			continue
		}
		seen[k] = true
		e.f.Refs = append(e.f.Refs, Ref{Kind: r.kind, From: from, Name: r.name, Qualifier: r.qualifier, Line: r.line})
	}
}

// selfNames are, per language, the receivers that stand for the enclosing
// class or an instance of it.
var selfNames = map[string][]string{
	"python": {"self", "cls"}, "javascript": {"this"}, "typescript": {"this"}, "tsx": {"this"},
	"java": {"this"}, "rust": {"self", "Self"},
}

// selfQualifier returns the name of the type enclosing entity from when q
// is the language's name for it or its instance (`self.send()` in a method
// of Session → "Session"), so that the resolver matches it against the
// type's methods as it does a Go receiver's type; otherwise q.
func (e *extraction) selfQualifier(ents []Entity, from int, q string) string {
	if !slices.Contains(selfNames[e.lang], q) {
		return q
	}
	for i := from; i >= 0; i = ents[i].Parent {
		if isType(ents[i].Kind) && ents[i].Kind != KindModule {
			return ents[i].Name
		}
		// A Rust method of an impl for a type declared in another file.
		if r := e.defs[i].receiver; r != "" {
			return r
		}
	}
	return q
}

// enclosing returns the index of the innermost entity of ents (sorted by
// start) that contains the byte at, -1 for file level.
func enclosing(ents []Entity, at uint32) int {
	from := -1
	for i := range ents {
		if ents[i].StartByte > at {
			break
		}
		if at < ents[i].EndByte && ents[i].Kind != KindHeading {
			from = i
		}
	}
	return from
}

// scoped is a name declared in an entity (-1: at file level).
type scoped struct {
	from int
	name string
}

// localType returns the name of a declared Go type ("Server", "http.Header")
// from its text ("*Server", "List[int]"), "" for a type with no methods of
// its own to find (a slice, a map, a function) or none.
func localType(t string) string {
	t = strings.TrimLeft(strings.TrimSpace(t), "*")
	if i := strings.IndexByte(t, '['); i >= 0 {
		t = t[:i]
	}
	if t == "" || !plainQualifier(t) {
		return ""
	}
	switch t {
	case "func", "chan", "struct", "interface", "map":
		return ""
	}
	return t
}

// refRank orders references to one name: an explicit relation beats a
// call, a call beats a plain reference, and a qualified one beats a bare one.
func refRank(r ref) int {
	rank := 0
	switch r.kind {
	case EdgeExtends, EdgeImplements:
		rank = 4
	case EdgeCalls:
		rank = 2
	}
	if r.qualifier != "" {
		rank++
	}
	return rank
}

// within reports whether entity t is i or lies inside it (i is among its
// parents). A method is not attached to a type declared in its own body:
// serde_json's deserialize, on Value, declares the associated type
// "type Value = Value;" inside, and made its own parent's parent, the
// qualified name's walk up the parents never ended.
func within(ents []Entity, t, i int) bool {
	for p := t; p >= 0; p = ents[p].Parent {
		if p == i {
			return true
		}
	}
	return false
}

// qualName joins package, enclosing entities (or the receiver type) and the
// name with dots.
func (e *extraction) qualName(ents []Entity, i int) string {
	parts := []string{ents[i].Name}
	if e.defs[i].receiver != "" && (ents[i].Parent < 0 || ents[ents[i].Parent].Name != e.defs[i].receiver) {
		parts = append(parts, e.defs[i].receiver)
	}
	for p := ents[i].Parent; p >= 0; p = ents[p].Parent {
		if ents[p].Kind == KindModule && e.f.Package != "" && ents[p].Name == e.f.Package {
			continue
		}
		if ents[i].Kind == KindHeading {
			break
		}
		parts = append(parts, ents[p].Name)
	}
	if e.f.Package != "" && ents[i].Kind != KindHeading && !(ents[i].Kind == KindModule && ents[i].Name == e.f.Package) {
		parts = append(parts, strings.ReplaceAll(e.f.Package, "\\", "."))
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, ".")
}

// sections extends Markdown headings to the end of their section.
func (e *extraction) sections() {
	for i := range e.defs {
		d := &e.defs[i]
		if d.kind != KindHeading {
			continue
		}
		end := uint32(len(e.src))
		for j := i + 1; j < len(e.defs); j++ {
			if e.defs[j].kind == KindHeading && e.defs[j].level <= d.level {
				end = e.defs[j].start
				break
			}
		}
		d.end = end
	}
}

func isType(k Kind) bool {
	return k == KindClass || k == KindStruct || k == KindInterface || k == KindEnum || k == KindType || k == KindModule
}

// endLine is the 1-based last line of a range ending at end.
func endLine(n *sitter.Node, src []byte, end uint32) int {
	if end == n.EndByte() {
		pt := n.EndPoint()
		if pt.Column == 0 && pt.Row > n.StartPoint().Row {
			return int(pt.Row)
		}
		return int(pt.Row) + 1
	}
	if end > uint32(len(src)) {
		end = uint32(len(src))
	}
	line := strings.Count(string(src[:end]), "\n")
	if end > 0 && src[end-1] != '\n' {
		line++
	}
	return max(line, int(n.StartPoint().Row)+1)
}

// maxSignature bounds a signature's length.
const maxSignature = 200

// signature is the declaration's header: its text up to the body,
// whitespace-collapsed.
func (e *extraction) signature(n *sitter.Node) string {
	start, end := n.StartByte(), n.EndByte()
	if body := n.ChildByFieldName("body"); body != nil && body.StartByte() > start {
		end = body.StartByte()
	} else if i := strings.IndexByte(string(e.src[start:min(end, start+400)]), '\n'); i >= 0 {
		end = start + uint32(i)
	}
	if end-start > 1000 {
		end = start + 1000
	}
	// Drop comment lines between a header and its body.
	lines := strings.Split(string(e.src[start:end]), "\n")
	kept := lines[:0]
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if i > 0 && (strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*")) {
			continue
		}
		if j := strings.Index(l, " # "); j >= 0 && (e.lang == "python" || e.lang == "ruby") {
			l = l[:j]
		}
		kept = append(kept, l)
	}
	s := strings.Join(strings.Fields(strings.Join(kept, " ")), " ")
	s = strings.TrimRight(s, " {:=")
	return capString(s, maxSignature)
}

// leadingComment returns the comment block that ends on the line before n
// (or before the wrapper n sits in: export, decorators, templates).
func (e *extraction) leadingComment(n *sitter.Node) string {
	for target := n; target != nil; target = target.Parent() {
		if c := e.commentBefore(target); c != "" {
			return c
		}
		p := target.Parent()
		if p == nil || !isWrapper(p.Type()) {
			return ""
		}
	}
	return ""
}

func isWrapper(t string) bool {
	switch t {
	case "export_statement", "decorated_definition", "template_declaration", "attribute_item",
		"type_declaration", "const_declaration", "var_declaration",
		"lexical_declaration", "variable_declaration", "ambient_declaration", "field_declaration_list":
		return true
	}
	return false
}

func (e *extraction) commentBefore(n *sitter.Node) string {
	var parts []string
	line := int(n.StartPoint().Row)
	for s := n.PrevSibling(); s != nil; s = s.PrevSibling() {
		t := s.Type()
		if t == "attribute_item" || t == "decorator" || t == "annotation" || t == "marker_annotation" {
			line = int(s.StartPoint().Row)
			continue
		}
		if !strings.Contains(t, "comment") {
			// Kotlin's grammar ends the node before a declaration
			// (the imports, the previous member) after the comments
			// that follow it: the declaration's doc is its last child.
			if e.lang != "kotlin" || len(parts) > 0 {
				break
			}
			if s = lastComment(s); s == nil {
				break
			}
		}
		if int(s.EndPoint().Row) < line-1 {
			break
		}
		parts = append(parts, e.text(s))
		line = int(s.StartPoint().Row)
		if len(parts) > 60 {
			break
		}
	}
	if len(parts) == 0 {
		return ""
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return cleanDoc(strings.Join(parts, "\n"))
}

// lastComment returns the comment that ends n, at any depth, or nil.
func lastComment(n *sitter.Node) *sitter.Node {
	for n.ChildCount() > 0 {
		n = n.Child(int(n.ChildCount()) - 1)
		if strings.Contains(n.Type(), "comment") {
			return n
		}
	}
	return nil
}

// maxDoc bounds a doc comment's length.
const maxDoc = 1000

// cleanDoc strips comment markers and docstring quotes.
func cleanDoc(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 6 {
			s = s[3 : len(s)-3]
		}
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimSpace(l)
		for _, p := range []string{"/**", "/*!", "/*", "*/", "///", "//!", "//", "#", "--"} {
			if strings.HasPrefix(l, p) {
				l = l[len(p):]
				break
			}
		}
		l = strings.TrimSuffix(l, "*/")
		l = strings.TrimPrefix(strings.TrimSpace(l), "* ")
		if l == "*" {
			l = ""
		}
		out = append(out, strings.TrimSpace(l))
	}
	return capString(strings.TrimSpace(strings.Join(out, "\n")), maxDoc)
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// receiverName reduces a receiver type expression to its type name:
// "*Server" → "Server", "List[T]" → "List".
func receiverName(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "*&("))
	if i := strings.IndexAny(s, "[<( "); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// qualifierSeparators rewrites other languages' member and namespace
// separators as dots. A Replacer builds its tables on first use: one per
// call cost 2.5 % of a cold index's CPU.
var qualifierSeparators = strings.NewReplacer("::", ".", "->", ".", "?.", ".", "\\", ".")

// plainQualifier reports whether q holds only ASCII letters, digits,
// underscores and dots.
func plainQualifier(q string) bool {
	for i := 0; i < len(q); i++ {
		c := q[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// normaliseQualifier writes a qualifier with dots whatever the language's
// separator, and drops call parentheses and generic arguments.
func normaliseQualifier(q string) string {
	if q == "" {
		return ""
	}
	if plainQualifier(q) {
		// Most qualifiers are a name or a dotted path, which every step
		// below leaves as it is but the trim.
		return strings.Trim(q, ".")
	}
	q = strings.TrimPrefix(qualifierSeparators.Replace(q), "new ")
	if i := strings.IndexAny(q, "(<["); i >= 0 {
		q = q[:i]
	}
	q = strings.Join(strings.Fields(q), "")
	return strings.Trim(q, ".")
}

// headingText returns a Markdown heading's text and level.
func headingText(s string) (string, int) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	first := strings.TrimSpace(lines[0])
	level := 0
	for level < len(first) && first[level] == '#' {
		level++
	}
	if level == 0 {
		// Setext heading: the underline decides the level.
		level = 1
		if strings.HasPrefix(strings.TrimSpace(lines[len(lines)-1]), "-") {
			level = 2
		}
		return first, level
	}
	return strings.TrimSpace(strings.TrimRight(first[level:], "# ")), level
}

// memberName is a captured name as people write it: JavaScript's private
// members (#dispatch) are named without the # that marks them private, so
// that "dispatch" in a message, and this.#dispatch() in code, find them.
func memberName(captured string) string {
	return strings.TrimPrefix(strings.TrimSpace(captured), "#")
}
