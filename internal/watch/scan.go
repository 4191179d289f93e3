package watch

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// ScanConfig configures a Scanner. Store, Owner and URL are required.
type ScanConfig struct {
	Store *capture.Store
	// Owner returns the session owning a tab (only owned tabs are
	// captured, and a trigger acts for the tab's session).
	Owner func(tab int) (string, bool)
	// URL returns a tab's current URL.
	URL func(tab int) string
}

// Scanner turns new capture entries into signals. It keeps a cursor per
// tab and kind, so each entry is seen once; entries present when a tab is
// first scanned are skipped (the watch reacts to what happens after it is
// on). Not safe for concurrent use: one goroutine (Run) owns it.
type Scanner struct {
	cfg     ScanConfig
	cursors map[int]*cursors
}

type cursors struct{ exc, console, net uint64 }

// NewScanner returns a Scanner.
func NewScanner(cfg ScanConfig) *Scanner { return &Scanner{cfg: cfg, cursors: map[int]*cursors{}} }

// limit bounds the entries read per tab and kind per scan.
const limit = 200

// Scan returns the signals since the last scan.
func (s *Scanner) Scan() []Signal {
	var out []Signal
	live := map[int]bool{}
	for _, tab := range s.cfg.Store.Tabs() {
		sid, ok := s.cfg.Owner(tab)
		if !ok {
			continue
		}
		live[tab] = true
		c := s.cursors[tab]
		if c == nil {
			c = s.skipToEnd(tab)
			s.cursors[tab] = c
			continue
		}
		page := s.cfg.URL(tab)
		base := Signal{SessionID: sid, TabID: tab, URL: page}
		exc := s.cfg.Store.Exceptions(tab, c.exc, limit)
		c.exc = max(c.exc, exc.Next)
		for _, e := range exc.Entries {
			out = append(out, errorSignal(base, e.Message, e.URL, e.Line, e.Time))
		}
		con := s.cfg.Store.Logs(tab, capture.LogQuery{Level: "error", After: c.console, Limit: limit})
		c.console = max(c.console, con.Next)
		for _, e := range con.Entries {
			out = append(out, errorSignal(base, e.Text, e.URL, e.Line, e.Time))
		}
		net := s.cfg.Store.Network(tab, capture.NetworkQuery{After: c.net, Limit: limit, FailedOnly: true})
		c.net = max(c.net, net.Next)
		for _, r := range net.Entries {
			out = append(out, netSignal(base, r))
		}
	}
	for tab := range s.cursors {
		if !live[tab] {
			delete(s.cursors, tab)
		}
	}
	return out
}

// skipToEnd returns cursors past everything the tab holds now.
func (s *Scanner) skipToEnd(tab int) *cursors {
	c := &cursors{}
	for {
		p := s.cfg.Store.Exceptions(tab, c.exc, capture.MaxLimit)
		c.exc = max(c.exc, p.Next)
		if !p.Truncated {
			break
		}
	}
	for {
		p := s.cfg.Store.Logs(tab, capture.LogQuery{After: c.console, Limit: capture.MaxLimit})
		c.console = max(c.console, p.Next)
		if !p.Truncated {
			break
		}
	}
	for {
		p := s.cfg.Store.Network(tab, capture.NetworkQuery{After: c.net, Limit: capture.MaxLimit})
		c.net = max(c.net, p.Next)
		if !p.Truncated {
			break
		}
	}
	return c
}

func errorSignal(base Signal, msg, src string, line int, at time.Time) Signal {
	s := base
	s.Event, s.Key, s.At = Errors, msg, at
	s.Summary = "error on " + orPage(base.URL) + ": " + cut(msg, 200)
	detail := ""
	if src != "" {
		detail = fmt.Sprintf("%s:%d", src, line)
	}
	s.Evidence = []Evidence{{Kind: "error", Title: cut(msg, 200), Detail: detail, URL: src, At: at}}
	return s
}

func netSignal(base Signal, r capture.Request) Signal {
	s := base
	s.Event, s.At = NetworkErrors, r.Start
	why := r.ErrorText
	if r.Status >= 400 {
		why = fmt.Sprintf("HTTP %d", r.Status)
	}
	if r.BlockedReason != "" || r.CORSError != "" {
		s.Event = Security
		why = "blocked: " + r.BlockedReason + r.CORSError
	}
	s.Key = r.Method + " " + pathOf(r.URL) + " " + why
	s.Summary = fmt.Sprintf("%s %s → %s", r.Method, cut(r.URL, 200), why)
	s.Evidence = []Evidence{{Kind: "network", Title: fmt.Sprintf("%s %s", r.Method, pathOf(r.URL)), Detail: why, URL: r.URL, At: r.Start}}
	return s
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return cut(raw, 200)
	}
	return u.Scheme + "://" + u.Host + u.Path
}

func orPage(u string) string {
	if u == "" {
		return "the page"
	}
	return cut(u, 200)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:redact.SafeCut(s, n)] + "…" // never half a secret: the gateway redacts it afterwards
}

// Run scans every interval while the watch is enabled and hands each
// fired envelope to fire, until ctx ends. fire runs on Run's goroutine,
// one envelope at a time: a slow one delays the next scan, never piles up.
func Run(ctx context.Context, w *Watcher, sc *Scanner, interval time.Duration, fire func(context.Context, Envelope)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !w.Enabled() {
			sc.cursors = map[int]*cursors{} // start after what happened while off
			continue
		}
		for _, sig := range sc.Scan() {
			if env, v := w.Offer(sig); v == Fired {
				fire(ctx, env)
			}
		}
	}
}
