package nativehost

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// The source stage's counts reach the daemon (docs/REDACTION.md,
// "Counters"): what source.go redacted and blocked is tallied per tab and
// sent on the daemon connection as the host's own event redaction.counts,
// at most once per countsEvery. The relay's hot path only adds to the tally
// under a mutex and drops a token in a one-slot channel; the reporter, a
// goroutine owned by each daemon connection, does the encoding and the
// writing. Counts are deltas: what was sent is forgotten, what could not be
// sent is put back and goes to the next connection.

// MethodRedactionCounts is the host → daemon event carrying the source
// stage's counts (docs/PROTOCOL.md, "Events from the host").
const MethodRedactionCounts = "redaction.counts"

// countsEvery is the least time between two redaction.counts messages.
const countsEvery = 250 * time.Millisecond

// maxCountedTabs bounds the tabs tallied between two reports; counts of
// further tabs go to tab 0 (no tab: the daemon's total only).
const maxCountedTabs = 1024

// tabCounts is one tab's counts since the last report.
type tabCounts struct {
	TabID    int              `json:"tab_id"`
	Redacted int64            `json:"redacted"`
	Blocked  int64            `json:"blocked"`
	ByClass  map[string]int64 `json:"by_class,omitempty"`
}

// countsParams are redaction.counts' params.
type countsParams struct {
	Stage redact.Stage `json:"stage"` // always "source"
	Tabs  []*tabCounts `json:"tabs"`
}

// count tallies the outcome of one splice for tab: a non-nil err is one
// blocked message, anything else adds st. It never blocks.
func (s *source) count(tab int, st redact.Stats, err error) {
	if err == nil && st.Redacted == 0 {
		return
	}
	s.mu.Lock()
	c := s.tally(tab)
	if err != nil {
		c.Blocked++
	} else {
		c.Redacted += int64(st.Redacted)
		for k, n := range st.ByClass {
			if c.ByClass == nil {
				c.ByClass = map[string]int64{}
			}
			c.ByClass[k] += int64(n)
		}
	}
	s.mu.Unlock()
	s.signal()
}

// tally is tab's pending counts (s.mu held).
func (s *source) tally(tab int) *tabCounts {
	c := s.pending[tab]
	if c == nil && len(s.pending) >= maxCountedTabs {
		tab = 0
		c = s.pending[0]
	}
	if c == nil {
		c = &tabCounts{TabID: tab}
		s.pending[tab] = c
	}
	return c
}

func (s *source) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// take returns the pending counts (by tab id) and forgets them.
func (s *source) take() []*tabCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return nil
	}
	out := slices.SortedFunc(maps.Values(s.pending), func(a, b *tabCounts) int { return a.TabID - b.TabID })
	s.pending = map[int]*tabCounts{}
	return out
}

// restore puts back counts that could not be sent.
func (s *source) restore(cs []*tabCounts) {
	s.mu.Lock()
	for _, in := range cs {
		c := s.tally(in.TabID)
		c.Redacted += in.Redacted
		c.Blocked += in.Blocked
		for k, n := range in.ByClass {
			if c.ByClass == nil {
				c.ByClass = map[string]int64{}
			}
			c.ByClass[k] += n
		}
	}
	s.mu.Unlock()
	s.signal()
}

// report sends the pending counts with write whenever they change, at
// most once per pause, until ctx ends. write is the daemon connection's;
// pause returns a channel that fires when the next report may go.
func (s *source) report(ctx context.Context, write func(ctx context.Context, msg []byte) error, pause func() <-chan time.Time) {
	if s.store == nil {
		return
	}
	for {
		select {
		case <-s.changed:
		case <-ctx.Done():
			return
		}
		if cs := s.take(); len(cs) > 0 {
			p, _ := json.Marshal(countsParams{Stage: redact.StageSource, Tabs: cs})
			msg, _ := json.Marshal(protocol.Message{Method: MethodRedactionCounts, Params: p})
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := write(wctx, msg)
			cancel()
			if err != nil {
				// The connection is failing: keep the counts for the next one.
				s.restore(cs)
				s.log.Debug("redaction counts not sent; kept for the next daemon connection", "err", err)
				return
			}
		}
		select {
		case <-pause():
		case <-ctx.Done():
			return
		}
	}
}
