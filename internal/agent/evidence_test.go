package agent

import (
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// TestEvidenceReadsFencedResults: page text arrives fenced; the evidence
// card reads what is inside the fence.
func TestEvidenceReadsFencedResults(t *testing.T) {
	f := untrusted.NewFence("K7Q2M4XD9PAB")
	text := "WARNING from Gasoline: …\n" + f.Open() + "\n" + `{"groups":2,"errors":[{"message":"boom","url":"http://127.0.0.1/a.js"}]}` + "\n" + f.Close()
	ev := evidenceOf("observe", "errors", text, false)
	if ev == nil || ev.Kind != "error" || ev.Detail != "boom" {
		t.Fatalf("evidence = %+v", ev)
	}
	ev = evidenceOf("interact", "click", f.Wrap("clicked button \"Save\"", untrusted.Report{}, 0), false)
	if ev == nil || ev.Detail != `clicked button "Save"` {
		t.Fatalf("action evidence = %+v", ev)
	}
}
