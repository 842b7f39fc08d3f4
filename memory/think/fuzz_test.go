package think

import (
	"testing"
	"time"
)

// FuzzDocumentRoundTrip: any thought and topic the store accepts come back
// unchanged from the file, whatever markdown or YAML they contain.
func FuzzDocumentRoundTrip(f *testing.F) {
	for _, s := range []string{"plain", "a\n---\nb", "---", "key: value\n- item", "\r\n---\r\n", "\"quoted\" 'x' #c", "  lead", "\ttab\n", "é ✓ \u2028", "null", "123", "~", "yes", " ", "a: b"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, topic, text string) {
		if checkText("topic", topic, MaxTopic, true) != nil || checkText("thought", text, MaxThought, false) != nil {
			return
		}
		at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
		d := &Document{ID: "think-x", Type: docType, Topic: topic, Status: Open, Created: at, Updated: at,
			Thoughts: []Entry{{N: 1, Kind: Counter, At: at, By: "model:m provider:p", Text: text}}}
		data, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(data, "x.md", "project")
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, data)
		}
		if got.Topic != topic || len(got.Thoughts) != 1 || got.Thoughts[0].Text != text || !got.Thoughts[0].At.Equal(at) {
			t.Fatalf("round trip changed %q / %q into %q / %+v", topic, text, got.Topic, got.Thoughts)
		}
	})
}
