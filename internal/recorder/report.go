package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/export"
)

// report is one message of the in-page recorder. Page-derived, so
// untrusted in content (the page chose its labels and ids) though not in
// kind: only trusted input produces one.
type report struct {
	T        string  `json:"t"`  // an action type, or nav, ready, navigating
	At       float64 `json:"at"` // Date.now() in the page
	Selector string  `json:"selector"`
	Target   string  `json:"target"`
	Value    string  `json:"value"`
	Masked   string  `json:"masked"`
	Checked  *bool   `json:"checked"`
	Keys     string  `json:"keys"`
	Clicks   int     `json:"clicks"`
	Frame    string  `json:"frame"`
	Nav      string  `json:"nav"`   // nav: navigate, reload, back_forward, prerender
	Index    *int    `json:"index"` // nav, ready: navigation.currentEntry.index
	URL      string  `json:"url"`   // nav, ready: the document's URL
}

var reportTypes = map[string]bool{"click": true, "type": true, "select": true, "check": true, "key_press": true,
	"upload": true, "nav": true, "ready": true, "navigating": true}

var errReport = errors.New("recorder: malformed report")

// parseReport decodes and checks one report.
func parseReport(payload string) (report, error) {
	var rep report
	if len(payload) > maxReport {
		return rep, fmt.Errorf("%w: %d bytes (at most %d)", errReport, len(payload), maxReport)
	}
	if err := json.Unmarshal([]byte(payload), &rep); err != nil {
		return rep, errors.Join(errReport, err)
	}
	if !reportTypes[rep.T] {
		return rep, fmt.Errorf("%w: unknown type %q", errReport, rep.T)
	}
	switch rep.Masked {
	case "":
	case "password", "card", "sensitive":
		rep.Value = "" // never kept, whatever the page sent
	default:
		return rep, fmt.Errorf("%w: masked %q", errReport, rep.Masked)
	}
	rep.Clicks = min(max(rep.Clicks, 0), 3)
	return rep, nil
}

// at is when the page saw it; zero when the page did not say.
func (rep report) at() time.Time {
	if rep.At <= 0 || rep.At > 1e14 {
		return time.Time{}
	}
	return time.UnixMilli(int64(rep.At))
}

func (rep report) index() int {
	if rep.Index == nil {
		return -1
	}
	return *rep.Index
}

// action is the capture entry of an action report.
func (rep report) action() capture.Action {
	return capture.Action{Type: rep.T, Selector: rep.Selector, Target: rep.Target, Value: rep.Value, Masked: rep.Masked,
		Checked: rep.Checked, Keys: rep.Keys, Clicks: rep.Clicks, Frame: rep.Frame}
}

// exportAction is the export's form of a stored (redacted) user action.
// Actions in frames keep no selector: the replay has no way to the frame.
func exportAction(tab int, a capture.Action) export.Action {
	e := export.Action{At: a.Time.UTC(), Mode: a.Type, TabID: tab, Selector: a.Selector, Target: a.Target, OK: true,
		PageURL: a.URL, Source: "user", Keys: a.Keys, Clicks: a.Clicks}
	switch a.Type {
	case "type":
		e.Text, e.Clear = a.Value, true
		if a.Masked != "" {
			e.Text = "[REDACTED:" + a.Masked + "]"
		}
	case "select", "upload":
		e.Value = a.Value
	case "check":
		e.Checked = a.Checked
	}
	if a.Frame != "" {
		e.Selector = ""
		e.Target += " in frame " + a.Frame
	}
	return e
}
