package mcpserver

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// The streamable HTTP transport keeps every SSE event it sends, so a
// client whose connection broke can ask again from its Last-Event-ID. The
// SDK's MemoryEventStore bounds the events' bytes but keeps an entry for
// every stream a session ever opened until the session ends, and every
// call is a stream of its own: an agent making 40,000 calls an hour over
// one session leaves 40,000 empty entries behind. eventStore bounds both:
// the streams kept per session (the oldest go first) and the bytes of
// events across all sessions (the oldest events go first, as the SDK's
// does).
const (
	maxEventStreams = 32      // streams remembered per session (its standalone stream always among them)
	maxEventBytes   = 8 << 20 // event bytes across all sessions
)

type eventStore struct {
	mu         sync.Mutex
	maxStreams int
	maxBytes   int
	bytes      int
	streams    int
	sessions   map[string]*sessionEvents
	order      []*eventList // every stream kept, oldest opened first (byte purge order)
}

// sessionEvents is one session's streams.
type sessionEvents struct {
	byID  map[string]*eventList
	order []*eventList // oldest opened first
}

// eventList is one stream's events kept: data[i] has the stream's index
// first+i.
type eventList struct {
	session, id string
	first       int
	data        [][]byte
	size        int
	dropped     bool // no longer kept (its session's or the store's order still names it until compacted)
	// lost: the stream was forgotten while still in use and has come back
	// with an Append; the indices of its events are unknown, so it
	// replays nothing.
	lost bool
}

var _ mcp.EventStore = (*eventStore)(nil)

func newEventStore(maxStreams, maxBytes int) *eventStore {
	return &eventStore{maxStreams: maxStreams, maxBytes: maxBytes, sessions: map[string]*sessionEvents{}}
}

// Open implements mcp.EventStore: a new stream of a session.
func (s *eventStore) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream(sessionID, streamID, false)
	return nil
}

// stream returns the stream, adding it (and forgetting its session's
// oldest stream beyond the cap) when new. Called with s.mu held.
func (s *eventStore) stream(sessionID, streamID string, appending bool) *eventList {
	se := s.sessions[sessionID]
	if se == nil {
		se = &sessionEvents{byID: map[string]*eventList{}}
		s.sessions[sessionID] = se
	}
	if l := se.byID[streamID]; l != nil {
		return l
	}
	// A stream that is new when appended to was forgotten in use.
	l := &eventList{session: sessionID, id: streamID, lost: appending}
	se.byID[streamID] = l
	se.order = append(se.order, l)
	s.order = append(s.order, l)
	s.streams++
	if len(se.order) > s.maxStreams {
		// The oldest call's stream; the session's standalone stream ("",
		// where notifications go) stays as long as the session.
		i := 0
		if se.order[0].id == "" {
			i = 1
		}
		s.drop(se, se.order[i])
	}
	return l
}

// drop forgets a stream. Called with s.mu held.
func (s *eventStore) drop(se *sessionEvents, l *eventList) {
	delete(se.byID, l.id)
	if i := slices.Index(se.order, l); i >= 0 {
		se.order = slices.Delete(se.order, i, i+1)
	}
	s.bytes -= l.size
	s.streams--
	l.dropped, l.data, l.size = true, nil, 0
	s.compact()
}

// compact drops forgotten streams from the purge order once they are half
// of it (past a few), or all of it.
func (s *eventStore) compact() {
	if (len(s.order) > 64 || s.streams == 0) && 2*s.streams < len(s.order) {
		s.order = slices.DeleteFunc(s.order, func(l *eventList) bool { return l.dropped })
	}
}

// Append implements mcp.EventStore: one event of a stream.
func (s *eventStore) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.stream(sessionID, streamID, true)
	s.purge(s.maxBytes - len(data))
	l.data = append(l.data, data)
	l.size += len(data)
	s.bytes += len(data)
	return nil
}

// purge drops the oldest events, stream by stream in the order they were
// opened, until at most limit bytes are kept. Called with s.mu held.
func (s *eventStore) purge(limit int) {
	for _, l := range s.order {
		if s.bytes <= limit {
			break
		}
		for len(l.data) > 0 && s.bytes > limit {
			n := len(l.data[0])
			l.data[0] = nil
			l.data = l.data[1:]
			l.first++
			l.size -= n
			s.bytes -= n
		}
		if len(l.data) == 0 {
			l.data = nil // the emptied slice's array goes too
		}
	}
}

// After implements mcp.EventStore: the events of a stream after index.
// A stream forgotten, or whose events after index were dropped, answers
// mcp.ErrEventsPurged: the SDK then refuses the replay (400), and the
// call's result is still there for observe command_result when it was
// handed off.
func (s *eventStore) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var l *eventList
	if se := s.sessions[sessionID]; se != nil {
		l = se.byID[streamID]
	}
	var out [][]byte
	var err error
	switch start := index + 1; {
	case l == nil || l.lost || start < l.first:
		err = fmt.Errorf("mcpserver: events of stream %q after %d: %w", streamID, index, mcp.ErrEventsPurged)
	case start-l.first < len(l.data):
		out = slices.Clone(l.data[start-l.first:])
	}
	s.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range out {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// SessionClosed implements mcp.EventStore: the session's streams go.
func (s *eventStore) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	se := s.sessions[sessionID]
	if se == nil {
		return nil
	}
	for len(se.order) > 0 {
		s.drop(se, se.order[0])
	}
	delete(s.sessions, sessionID)
	return nil
}

// Sizes reports the streams and event bytes kept (the daemon's memory
// report); sessionCap is the sessions the daemon keeps.
func (s *eventStore) Sizes(sessionCap int) []memory.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	return []memory.Store{
		{Name: "mcpserver.sse_sessions", Len: len(s.sessions), Cap: sessionCap},
		{Name: "mcpserver.sse_streams", Len: s.streams, Cap: s.maxStreams * sessionCap, Bytes: int64(s.bytes), MaxBytes: int64(s.maxBytes)},
	}
}

// Sizes reports the MCP layer's stores: the sessions and their results
// (internal/session) and the SSE events kept for HTTP clients.
func (s *Server) Sizes() []memory.Store {
	out := s.sessions.Sizes()
	if s.events != nil {
		out = append(out, s.events.Sizes(s.sessions.MaxSessions())...)
	}
	return out
}
