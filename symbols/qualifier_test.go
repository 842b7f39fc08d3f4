package symbols

import (
	"strings"
	"testing"
)

// normaliseQualifierReference is normaliseQualifier without its fast path
// for plain qualifiers: what the fast path must agree with.
func normaliseQualifierReference(q string) string {
	if q == "" {
		return ""
	}
	q = strings.TrimPrefix(qualifierSeparators.Replace(q), "new ")
	if i := strings.IndexAny(q, "(<["); i >= 0 {
		q = q[:i]
	}
	q = strings.Join(strings.Fields(q), "")
	return strings.Trim(q, ".")
}

var qualifierCases = []struct{ in, want string }{
	{"", ""},
	{"srv", "srv"},
	{"http.DefaultClient", "http.DefaultClient"},
	{".a.b.", "a.b"},
	{"a_b9.C", "a_b9.C"},
	{"std::vector", "std.vector"},
	{"obj->field", "obj.field"},
	{"user?.name", "user.name"},
	{`App\Models\User`, "App.Models.User"},
	{"new Foo()", "Foo"},
	{"List<int>", "List"},
	{"f(x).g", "f"},
	{" a . b ", "a.b"},
	{"é.x", "é.x"},
	{"a-b", "a-b"},
	{"this.items[0]", "this.items"},
}

func TestNormaliseQualifier(t *testing.T) {
	for _, tc := range qualifierCases {
		if got := normaliseQualifier(tc.in); got != tc.want {
			t.Errorf("normaliseQualifier(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if ref := normaliseQualifierReference(tc.in); ref != tc.want {
			t.Errorf("reference(%q) = %q, want %q", tc.in, ref, tc.want)
		}
	}
}

func FuzzNormaliseQualifier(f *testing.F) {
	for _, tc := range qualifierCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if got, want := normaliseQualifier(q), normaliseQualifierReference(q); got != want {
			t.Errorf("normaliseQualifier(%q) = %q, reference %q", q, got, want)
		}
	})
}
