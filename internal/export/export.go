package export

import (
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// FormatVersion is the export document's format.
const FormatVersion = 1

// Document is a session export. The daemon builds it from the recorder,
// the capture buffers and the panel's conversations, and redacts it as a
// whole before it leaves.
type Document struct {
	Format      int       `json:"format"`
	GeneratedAt time.Time `json:"generated_at"`
	// Source names the session exported ("session" would be a secret
	// key name to the redactor, which then hides the whole object).
	Session Session `json:"source"`
	Replay  Replay  `json:"replay"`
	// Timeline is the tab's merged console, network and navigation
	// timeline from the capture buffers.
	Timeline  []capture.TimelineEntry `json:"timeline,omitempty"`
	Evidence  []Evidence              `json:"evidence,omitempty"`
	ToolCalls []ToolCall              `json:"tool_calls,omitempty"`
	Decisions []Decision              `json:"decisions,omitempty"`
	// Conversation is the panel conversation's events, when the export is
	// of one.
	Conversation any       `json:"conversation,omitempty"`
	Redaction    Redaction `json:"redaction"`
}

// Session names what was exported.
type Session struct {
	ID     string `json:"id"`
	Client string `json:"client,omitempty"`
	TabID  int    `json:"tab_id,omitempty"`
}

// Replay is what a replay needs: where it starts, the viewport and the
// actions with stable selectors.
type Replay struct {
	StartURL string   `json:"start_url,omitempty"`
	FinalURL string   `json:"final_url,omitempty"`
	Viewport Viewport `json:"viewport"`
	Actions  []Action `json:"actions"`
}

// Viewport is the page's viewport in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// DefaultViewport is used when the tab's is unknown.
var DefaultViewport = Viewport{Width: 1280, Height: 720}

// Evidence is an error or failed request in the export.
type Evidence struct {
	Kind   string    `json:"kind"` // error | network
	Title  string    `json:"title"`
	Detail string    `json:"detail,omitempty"`
	URL    string    `json:"url,omitempty"`
	Count  int       `json:"count,omitempty"`
	At     time.Time `json:"at"`
}

// Redaction is the export's redaction counters.
type Redaction struct {
	PolicyVersion string `json:"policy_version"`
	RedactedCount int64  `json:"redacted_count"`
	BlockedCount  int64  `json:"blocked_count"`
}

// EvidenceOf collects a tab's error groups and failed requests.
func EvidenceOf(errs []capture.ErrorGroup, failed []capture.Request) []Evidence {
	var out []Evidence
	for _, g := range errs {
		out = append(out, Evidence{Kind: "error", Title: g.Message, URL: g.URL, Count: g.Count, At: g.LastSeen})
	}
	for _, r := range failed {
		detail := r.ErrorText
		if r.Status >= 400 {
			detail = r.StatusText
			if detail == "" {
				detail = "HTTP error"
			}
		}
		out = append(out, Evidence{Kind: "network", Title: r.Method + " " + r.URL, Detail: detail, URL: r.URL, At: r.Start})
	}
	return out
}

// ReplayOf derives the replay metadata from a session's actions: the
// start URL is the first navigation's (or the tab's first page, given),
// the final URL the last one seen.
func ReplayOf(actions []Action, firstPage, lastPage string, vp Viewport) Replay {
	r := Replay{StartURL: firstPage, FinalURL: lastPage, Viewport: vp, Actions: actions}
	if r.Viewport.Width == 0 {
		r.Viewport = DefaultViewport
	}
	for _, a := range actions {
		if FormOf(a) == tools.ReplayGoto && a.URL != "" {
			if r.StartURL == "" || a.Seq == actions[0].Seq {
				r.StartURL = a.URL
			}
			break
		}
	}
	if r.Actions == nil {
		r.Actions = []Action{}
	}
	return r
}
