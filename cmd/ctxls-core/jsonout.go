package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// dataKeys are the keys whose object value is a map of data (a kind, a
// language, a skip reason, a memory's slug to its figure): their keys are
// values, printed as they are (changed and renamed: memory import's slugs).
// Every other object key is a field name.
var dataKeys = map[string]bool{"by_kind": true, "by_lang": true, "skip_reasons": true, "skipped": true, "quality": true, "problems": true, "links_by_memory": true, "terms": true, "changed": true, "renamed": true}

// writeJSON prints v as one indented JSON object in the one style of
// every --json output (docs/json.md, decision 0098): snake_case keys, and
// "version" first. The types printed belong to many packages, some of
// which the editor and MCP server serve in their own spelling; the style
// is applied here, at the command line's edge, rather than in each.
func writeJSON(w io.Writer, v any) error {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	var out bytes.Buffer
	dec := json.NewDecoder(&raw)
	dec.UseNumber()
	if err := snakeValue(dec, &out, "", true); err != nil {
		return fmt.Errorf("json output: %w", err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, out.Bytes(), "", "  "); err != nil {
		return err
	}
	ind.WriteByte('\n')
	_, err := w.Write(ind.Bytes())
	return err
}

// snakeValue copies one JSON value from dec to out, with its object keys
// in snake_case (those of a data map, under key, as they are) and, at the
// top, "version" as the first key.
func snakeValue(dec *json.Decoder, out *bytes.Buffer, key string, top bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out.WriteByte('{')
			n := 0
			if top {
				fmt.Fprintf(out, `"version":%d`, jsonVersion)
				n++
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if !dataKeys[key] {
					k = snakeCase(k)
				}
				if top && k == "version" {
					// A type that carries its own version: the one above
					// stands for it.
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return err
					}
					continue
				}
				if n > 0 {
					out.WriteByte(',')
				}
				n++
				writeString(out, k)
				out.WriteByte(':')
				if err := snakeValue(dec, out, k, false); err != nil {
					return err
				}
			}
			_, err := dec.Token() // '}'
			out.WriteByte('}')
			return err
		case '[':
			if top {
				return fmt.Errorf("a top-level array has no place for its version")
			}
			out.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := snakeValue(dec, out, "", false); err != nil {
					return err
				}
			}
			_, err := dec.Token() // ']'
			out.WriteByte(']')
			return err
		}
	case string:
		writeString(out, t)
	case json.Number:
		out.WriteString(t.String())
	case bool:
		fmt.Fprint(out, t)
	case nil:
		out.WriteString("null")
	}
	if top {
		return fmt.Errorf("the output is not a JSON object")
	}
	return nil
}

// writeString writes s as a JSON string, without HTML escaping.
func writeString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	out.Truncate(out.Len() - 1) // Encode's newline
}

// snakeCase spells a Go or camelCase field name in snake_case:
// lastActivity → last_activity, ByKind → by_kind, QualName → qual_name,
// HTTPServer → http_server, ID → id. Names already in snake_case are kept.
func snakeCase(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			acronymEnd := i > 0 && unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || acronymEnd {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
