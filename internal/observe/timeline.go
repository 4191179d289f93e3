package observe

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// WebSocketsResult is observe websocket_events' answer.
type WebSocketsResult struct {
	TabID      int                      `json:"tab_id"`
	Events     []capture.WebSocketEvent `json:"events,omitempty"`
	Sockets    map[string]*SocketCount  `json:"sockets,omitempty"` // summary: per socket URL
	NextCursor string                   `json:"next_cursor"`
	Truncated  bool                     `json:"truncated,omitempty"`
	Missed     uint64                   `json:"missed,omitempty"`
}

// SocketCount counts one socket's frames.
type SocketCount struct {
	Sent     int  `json:"sent"`
	Received int  `json:"received"`
	Errors   int  `json:"errors,omitempty"`
	Closed   bool `json:"closed,omitempty"`
}

func (o *Observer) websocketEvents(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	limit := pg.limit
	if pg.summary {
		limit = capture.MaxLimit * 10
	}
	fetch := func(after uint64, n int) capture.Page[capture.WebSocketEvent] {
		return o.cfg.Store.WebSockets(tab, capture.WebSocketQuery{After: after, Limit: n, URLContains: c.Str("url")})
	}
	p := collect(fetch, func(capture.WebSocketEvent) bool { return true }, func(e capture.WebSocketEvent) uint64 { return e.Seq }, pg.after, limit)
	r := WebSocketsResult{TabID: tab, NextCursor: cursor(p.Next), Truncated: p.Truncated, Missed: p.Missed}
	var b strings.Builder
	if pg.summary {
		r.Sockets = map[string]*SocketCount{}
		for _, e := range p.Entries {
			sc := r.Sockets[e.URL]
			if sc == nil {
				sc = &SocketCount{}
				r.Sockets[e.URL] = sc
			}
			switch {
			case e.Event == "frame" && e.Dir == "sent":
				sc.Sent++
			case e.Event == "frame":
				sc.Received++
			case e.Event == "error":
				sc.Errors++
			case e.Event == "closed":
				sc.Closed = true
			}
		}
		fmt.Fprintf(&b, "tab %d: %d websocket events", tab, len(p.Entries))
		for u, sc := range r.Sockets {
			fmt.Fprintf(&b, "\n%s: %d sent, %d received, %d errors, closed %v", u, sc.Sent, sc.Received, sc.Errors, sc.Closed)
		}
		fmt.Fprintf(&b, "\nnext_cursor %s", r.NextCursor)
		page := new(untrusted.Page)
		for u := range r.Sockets {
			page.Add(u)
		}
		return mcpserver.PageResult(b.String(), r, page)
	}
	r.Events = p.Entries
	fmt.Fprintf(&b, "tab %d: %d websocket events", tab, len(p.Entries))
	for _, e := range p.Entries {
		b.WriteString("\n")
		b.WriteString(socketLine(e))
	}
	more(&b, r.Truncated, r.NextCursor)
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).AddValue(p.Entries))
}

func socketLine(e capture.WebSocketEvent) string {
	s := fmt.Sprintf("%s %s %s", e.Time.Format(clock), e.Event, e.URL)
	switch e.Event {
	case "frame":
		arrow := "←"
		if e.Dir == "sent" {
			arrow = "→"
		}
		s = fmt.Sprintf("%s %s %s", e.Time.Format(clock), arrow, e.URL)
		if e.Binary {
			s += fmt.Sprintf(" binary %s", size(int64(e.PayloadLen)))
		} else {
			s += " " + quote(e.Payload, 200)
		}
	case "error":
		s += " " + e.Error
	}
	return s
}

// TimelineResult is observe timeline's answer.
type TimelineResult struct {
	TabID      int                     `json:"tab_id"`
	Entries    []capture.TimelineEntry `json:"entries,omitempty"`
	Counts     map[string]int          `json:"counts,omitempty"` // summary: per kind
	NextCursor string                  `json:"next_cursor"`
	Truncated  bool                    `json:"truncated,omitempty"`
	Missed     uint64                  `json:"missed,omitempty"`
	Hidden     int                     `json:"hidden,omitempty"` // console and exception entries the noise rules hid
}

func (o *Observer) timeline(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	p := o.cfg.Store.Timeline(tab, pg.after, pg.limit)
	n := len(p.Entries)
	p.Entries = slices.DeleteFunc(p.Entries, func(e capture.TimelineEntry) bool {
		return e.Console != nil && o.noise(e.Console.Text, e.Console.URL) ||
			e.Exception != nil && o.noise(e.Exception.Message, e.Exception.URL)
	})
	r := TimelineResult{TabID: tab, NextCursor: cursor(p.Next), Truncated: p.Truncated, Missed: p.Missed, Hidden: n - len(p.Entries)}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d timeline entries%s", tab, len(p.Entries), hiddenNote(r.Hidden))
	if pg.summary {
		r.Counts = map[string]int{}
		for _, e := range p.Entries {
			r.Counts[e.Kind]++
		}
		for k, n := range r.Counts {
			fmt.Fprintf(&b, ", %d %s", n, k)
		}
		more(&b, r.Truncated, r.NextCursor)
		return mcpserver.PageResult(b.String(), r, nil) // counts only
	}
	r.Entries = p.Entries
	for _, e := range p.Entries {
		b.WriteString("\n")
		b.WriteString(timelineLine(e))
	}
	more(&b, r.Truncated, r.NextCursor)
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).AddValue(p.Entries))
}

// timelineLine renders any entry on one line.
func timelineLine(e capture.TimelineEntry) string {
	t := e.Time.Format(clock)
	switch {
	case e.Console != nil:
		return fmt.Sprintf("%s console.%s %s", t, e.Console.Type, quote(e.Console.Text, 200))
	case e.Exception != nil:
		return fmt.Sprintf("%s exception %s%s", t, e.Exception.Message, at(e.Exception.URL, e.Exception.Line, e.Exception.Column))
	case e.Request != nil:
		return t + " network " + requestLine(*e.Request)
	case e.WebSocket != nil:
		return socketLine(*e.WebSocket)
	case e.Dialog != nil:
		d := e.Dialog
		return fmt.Sprintf("%s dialog %s %s accepted=%v", t, d.Type, quote(d.Message, 120), d.Accepted)
	case e.Action != nil:
		return actionLine(*e.Action)
	case e.Navigation != nil:
		n := e.Navigation
		s := fmt.Sprintf("%s %s %s", t, n.Event, n.URL)
		if n.SinceStartMs > 0 {
			s += " +" + ms(n.SinceStartMs)
		}
		return s
	}
	return t + " " + e.Kind
}
