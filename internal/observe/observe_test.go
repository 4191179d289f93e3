package observe

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func TestCollectFiltersAcrossPages(t *testing.T) {
	store, err := capture.NewStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		typ := "log"
		if i%3 == 0 {
			typ = "error"
		}
		store.Ingest(1, "Runtime.consoleAPICalled", json.RawMessage(fmt.Sprintf(`{"type":%q,"args":[{"type":"number","value":%d,"description":"%d"}],"timestamp":%d}`, typ, i, i, 1000+i)))
	}
	fetch := func(after uint64, limit int) capture.Page[capture.ConsoleEntry] {
		return store.Logs(1, capture.LogQuery{After: after, Limit: 4})
	}
	keep := func(e capture.ConsoleEntry) bool { return e.Level == "error" }
	seq := func(e capture.ConsoleEntry) uint64 { return e.Seq }
	p := collect(fetch, keep, seq, 0, 3)
	if len(p.Entries) != 3 || !p.Truncated || p.Next < p.Entries[2].Seq {
		t.Fatalf("first page: %d entries, truncated %v, next %d", len(p.Entries), p.Truncated, p.Next)
	}
	rest := collect(fetch, keep, seq, p.Next, 100)
	if len(rest.Entries) != 7 || rest.Truncated {
		t.Fatalf("rest: %d entries, truncated %v", len(rest.Entries), rest.Truncated)
	}
}

func TestNetFilterStatus(t *testing.T) {
	for _, tc := range []struct {
		status   string
		min, max int
		failed   bool
		bad      bool
	}{
		{"404", 404, 404, false, false},
		{"5xx", 500, 599, false, false},
		{"failed", 0, 0, true, false},
		{"teapot", 0, 0, false, true},
		{"99", 0, 0, false, true},
	} {
		q, err := statusFilter(tc.status)
		if (err != nil) != tc.bad {
			t.Fatalf("status %q: err %v", tc.status, err)
		}
		if !tc.bad && (q.StatusMin != tc.min || q.StatusMax != tc.max || q.FailedOnly != tc.failed) {
			t.Fatalf("status %q: got %+v", tc.status, q)
		}
	}
	if resourceType("xhr") != "XHR" || resourceType("Fetch") != "Fetch" || resourceType("") != "" {
		t.Fatal("resource type mapping")
	}
}
