package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// replay reads a stream's events after index.
func replay(s *eventStore, session, stream string, index int) ([]string, error) {
	var out []string
	for d, err := range s.After(context.Background(), session, stream, index) {
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
	return out, nil
}

func sizes(s *eventStore) (sessions, streams int, bytes int64) {
	z := s.Sizes(1)
	return z[0].Len, z[1].Len, z[1].Bytes
}

// TestEventStoreHoldsItsStreamCap: a session making call after call (each
// a stream) keeps its newest streams and its standalone one; the SDK's
// store kept an entry for every stream until the session ended.
func TestEventStoreHoldsItsStreamCap(t *testing.T) {
	ctx := context.Background()
	s := newEventStore(8, 1<<20)
	require.NoError(t, s.Open(ctx, "s1", ""))
	require.NoError(t, s.Append(ctx, "s1", "", []byte("note")))
	for i := range 1000 {
		id := fmt.Sprint(i)
		require.NoError(t, s.Open(ctx, "s1", id))
		require.NoError(t, s.Append(ctx, "s1", id, []byte("result "+id)))
		_, streams, _ := sizes(s)
		require.LessOrEqual(t, streams, 8, "after %d calls", i+1)
	}
	got, err := replay(s, "s1", "999", -1)
	require.NoError(t, err)
	require.Equal(t, []string{"result 999"}, got, "the newest call replays")
	got, err = replay(s, "s1", "", -1)
	require.NoError(t, err)
	require.Equal(t, []string{"note"}, got, "the standalone stream stays")
	_, err = replay(s, "s1", "0", -1)
	require.ErrorIs(t, err, mcp.ErrEventsPurged, "the oldest call was forgotten")

	require.NoError(t, s.SessionClosed(ctx, "s1"))
	sessions, streams, bytes := sizes(s)
	require.Equal(t, [3]int64{0, 0, 0}, [3]int64{int64(sessions), int64(streams), bytes}, "a closed session leaves nothing")
	require.Len(t, s.order, 0, "the purge order forgets it too")
}

// TestEventStoreHoldsItsByteCap: events of every session together stay
// under the byte cap, the oldest dropped first; a replay that would miss
// a dropped event is refused, not partial.
func TestEventStoreHoldsItsByteCap(t *testing.T) {
	ctx := context.Background()
	s := newEventStore(100, 10_000)
	big := make([]byte, 1000)
	for i := range 50 {
		sess := fmt.Sprint("s", i%3)
		id := fmt.Sprint(i)
		require.NoError(t, s.Open(ctx, sess, id))
		require.NoError(t, s.Append(ctx, sess, id, big))
		require.NoError(t, s.Append(ctx, sess, id, big))
		_, _, bytes := sizes(s)
		require.LessOrEqual(t, bytes, int64(10_000), "after %d streams", i+1)
	}
	got, err := replay(s, "s1", "49", -1)
	require.NoError(t, err)
	require.Len(t, got, 2, "the newest stream keeps both events")
	_, err = replay(s, "s0", "0", -1)
	require.ErrorIs(t, err, mcp.ErrEventsPurged)

	// A stream whose first event went but whose second stayed replays
	// from the second, and refuses from the first.
	s = newEventStore(100, 2500)
	require.NoError(t, s.Open(ctx, "s", "a"))
	for range 3 {
		require.NoError(t, s.Append(ctx, "s", "a", big))
	}
	_, err = replay(s, "s", "a", -1)
	require.ErrorIs(t, err, mcp.ErrEventsPurged)
	got, err = replay(s, "s", "a", 0)
	require.NoError(t, err)
	require.Len(t, got, 2)
}

// TestEventStoreForgottenStreamReplaysNothing: a call still running when
// its stream was forgotten (more calls than the cap started after it)
// keeps answering, but its events cannot be replayed: their indices are
// unknown.
func TestEventStoreForgottenStreamReplaysNothing(t *testing.T) {
	ctx := context.Background()
	s := newEventStore(2, 1<<20)
	require.NoError(t, s.Open(ctx, "s", "slow"))
	require.NoError(t, s.Append(ctx, "s", "slow", []byte("progress")))
	for _, id := range []string{"a", "b"} {
		require.NoError(t, s.Open(ctx, "s", id))
	}
	require.NoError(t, s.Append(ctx, "s", "slow", []byte("result")))
	_, err := replay(s, "s", "slow", 0)
	require.True(t, errors.Is(err, mcp.ErrEventsPurged), "got %v", err)
	_, streams, _ := sizes(s)
	require.LessOrEqual(t, streams, 2)
}

// TestHTTPSessionEventsStayBounded: a go-sdk client making many calls
// over one streamable HTTP session leaves at most maxEventStreams streams
// in the daemon, and nothing once it ends the session.
func TestHTTPSessionEventsStayBounded(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: f.srv.URL + "/mcp"}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil).Connect(ctx, tr, nil)
	require.NoError(t, err)
	for range 3 * maxEventStreams {
		call(t, cs, "configure", map[string]any{"what": "health"})
	}
	sessions, streams, _ := sizes(f.s.events)
	require.Equal(t, 1, sessions)
	require.LessOrEqual(t, streams, maxEventStreams, "after %d calls", 3*maxEventStreams)
	require.NoError(t, cs.Close()) // DELETE: answered once the SDK closed the session
	sessions, streams, bytes := sizes(f.s.events)
	require.Equal(t, [3]int64{0, 0, 0}, [3]int64{int64(sessions), int64(streams), bytes}, "an ended session's events are released")
}
