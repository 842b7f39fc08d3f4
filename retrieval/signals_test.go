package retrieval

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every signal of FileSignals but the demotion is a weighted part of the
// score, named as in the JSON: a signal added to one and not the other
// would be scored but not explained, or explained but not scored.
func TestFileSignalPartsCoverEverySignal(t *testing.T) {
	typ := reflect.TypeOf(FileSignals{})
	var fields []string
	for i := range typ.NumField() {
		if name := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]; name != "demotion" {
			fields = append(fields, name)
		}
	}
	var parts []string
	s := FileSignals{}
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		v.Field(i).SetFloat(float64(i + 1)) // each signal its own value
	}
	for _, p := range s.Parts() {
		parts = append(parts, p.Name)
		f, ok := typ.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, p.Name) })
		if !ok || v.FieldByIndex(f.Index).Float() != p.Value {
			t.Errorf("part %s does not carry FileSignals.%s", p.Name, f.Name)
		}
	}
	if !slices.Equal(fields, parts) {
		t.Fatalf("parts %v, signals %v", parts, fields)
	}
}
