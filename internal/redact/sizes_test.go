package redact

import (
	"fmt"
	"testing"
)

// TestKeyCacheHoldsItsCap: more distinct key names than keyCacheMax are
// classified; the cache keeps at most keyCacheMax of them.
func TestKeyCacheHoldsItsCap(t *testing.T) {
	e, err := New(DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	for i := range keyCacheMax + 100 {
		e.rule(fmt.Sprint("field_", i))
	}
	st := e.Sizes()[0]
	if st.Over() || st.Len != keyCacheMax {
		t.Fatalf("%s holds %d, cap %d; want it full at its cap", st.Name, st.Len, st.Cap)
	}
}
