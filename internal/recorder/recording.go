package recorder

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// A recording (configure recording_start … recording_stop) adds what the
// user does by hand in the session's tabs to the session's export, in
// order with the agent's own calls: generate reproduction and test replay
// it. It starts with a marker holding the tab's page (where a replay of
// the recording begins).

// maxRecordings bounds the sessions recording at once.
const maxRecordings = 64

type recording struct {
	name     string
	started  time.Time
	tab      int
	startURL string
	after    int // the export seq before the recording: its after_cursor
	actions  int // user actions recorded
}

// StartResult is configure recording_start's answer.
type StartResult struct {
	Recording   string    `json:"recording"`
	StartedAt   time.Time `json:"started_at"`
	TabID       int       `json:"tab_id,omitempty"`
	StartURL    string    `json:"start_url,omitempty"`
	AfterCursor string    `json:"after_cursor"`
}

func (r *Recorder) start(ctx context.Context, c *mcpserver.Call) (any, error) {
	if r.cfg.Export == nil {
		return nil, tools.Errorf(tools.CodeNotAvailable, "recording needs the session export, which did not start; see the daemon log")
	}
	sid := c.Session.ID()
	name := c.Args.Name
	if name == "" {
		name = "recording " + r.cfg.Now().UTC().Format("15:04:05")
	}
	if len(name) > 120 {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "name is %d bytes; at most 120", len(name))
	}
	tab, _ := r.cfg.Tabs.Resolve(sid, 0)
	rec := &recording{name: name, started: r.cfg.Now().UTC(), tab: tab, startURL: r.cfg.Tabs.URL(tab)}
	r.mu.Lock()
	if cur := r.recs[sid]; cur != nil {
		r.mu.Unlock()
		return nil, &tools.Error{Code: "recording_active", Message: fmt.Sprintf("recording %q has been running since %s; stop it first",
			cur.name, cur.started.Format(time.RFC3339)), NextAction: &tools.Next{Tool: "configure", Arguments: map[string]any{"what": "recording_stop"}}}
	}
	r.pruneRecordings()
	if len(r.recs) >= maxRecordings {
		r.mu.Unlock()
		return nil, &tools.Error{Code: "too_many_recordings", Retryable: true,
			Message: fmt.Sprintf("%d sessions are recording; stop one (configure recording_stop) and retry", len(r.recs))}
	}
	rec.after = r.cfg.Export.Last(sid)
	r.recs[sid] = rec
	r.mu.Unlock()
	r.cfg.Export.Action(sid, export.Action{At: rec.started, Mode: "recording_start", TabID: tab, URL: rec.startURL,
		Target: name, OK: true, Source: "recording"})
	res := StartResult{Recording: name, StartedAt: rec.started, TabID: tab, StartURL: rec.startURL, AfterCursor: strconv.Itoa(rec.after)}
	text := fmt.Sprintf("recording %q started: clicks, typing, choices and navigations done by hand in this session's tabs are recorded until configure recording_stop (passwords and card numbers are never recorded)", name)
	if tab == 0 {
		text += "; the session has no tab yet: open one (interact new_tab) or share one"
	} else {
		text += fmt.Sprintf("; it starts on tab %d at %s", tab, rec.startURL)
	}
	return mcpserver.Result(text, res)
}

// pruneRecordings drops the recordings of sessions that ended, when the
// recordings are at their bound. Called with r.mu held.
func (r *Recorder) pruneRecordings() {
	if len(r.recs) < maxRecordings || r.alive == nil {
		return
	}
	for sid := range r.recs {
		if !r.alive(sid) {
			delete(r.recs, sid)
		}
	}
}

// StopResult is configure recording_stop's answer.
type StopResult struct {
	Recording   string     `json:"recording"`
	StartedAt   time.Time  `json:"started_at"`
	StoppedAt   time.Time  `json:"stopped_at"`
	DurationMS  int64      `json:"duration_ms"`
	UserActions int        `json:"user_actions"`
	AfterCursor string     `json:"after_cursor"`
	NextAction  tools.Next `json:"next_action"`
}

func (r *Recorder) stop(ctx context.Context, c *mcpserver.Call) (any, error) {
	sid := c.Session.ID()
	r.mu.Lock()
	rec := r.recs[sid]
	delete(r.recs, sid)
	r.mu.Unlock()
	if rec == nil {
		return nil, &tools.Error{Code: "not_recording", Message: "this session is not recording; start with configure recording_start",
			NextAction: &tools.Next{Tool: "configure", Arguments: map[string]any{"what": "recording_start"}}}
	}
	now := r.cfg.Now().UTC()
	after := strconv.Itoa(rec.after)
	res := StopResult{Recording: rec.name, StartedAt: rec.started, StoppedAt: now, DurationMS: now.Sub(rec.started).Milliseconds(),
		UserActions: rec.actions, AfterCursor: after,
		NextAction: tools.Next{Tool: "generate", Arguments: map[string]any{"what": "reproduction", "after_cursor": after}}}
	text := fmt.Sprintf("recording %q stopped: %d user actions in %s; generate {\"what\":\"reproduction\",\"after_cursor\":%q} (or test) replays the recording",
		rec.name, rec.actions, now.Sub(rec.started).Round(100*time.Millisecond), after)
	return mcpserver.Result(text, res)
}

// navigation handles the top frame's navigation reports. While the
// session records, a navigation the browser started (address bar, reload
// and back/forward buttons) becomes navigate, refresh, back or forward; one
// the page started itself (a link, a form, a script) is left to the
// recorded action that caused it, and the agent's are in the export
// already.
func (r *Recorder) navigation(tg *target.Target, sid string, rep report) {
	tab := tg.ID()
	r.mu.Lock()
	t := r.tab(tg)
	switch rep.T {
	case "navigating":
		t.pageNav = true
		r.mu.Unlock()
		return
	case "ready":
		t.index = rep.index()
		r.mu.Unlock()
		return
	}
	prev, byPage := t.index, t.pageNav
	t.index, t.pageNav = rep.index(), false
	rec := r.recs[sid]
	r.mu.Unlock()
	if rec == nil || byPage || r.agentAt(sid, rep.at()) {
		return
	}
	a := export.Action{At: r.cfg.Now().UTC(), TabID: tab, OK: true, PageURL: rep.URL, Source: "user"}
	switch rep.Nav {
	case "reload":
		a.Mode = "refresh"
	case "back_forward":
		a.Mode = "back"
		if prev >= 0 && rep.index() > prev {
			a.Mode = "forward"
		}
	default:
		a.Mode, a.URL = "navigate", rep.URL
	}
	r.mu.Lock()
	rec.actions++
	r.mu.Unlock()
	r.cfg.Export.Action(sid, a)
}
