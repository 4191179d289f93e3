package nativehost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// fakeLink is the daemon end of the reporter: it records what was written
// and fails writes while failing is set.
type fakeLink struct {
	msgs chan protocol.Message
	fail error
}

func (f *fakeLink) write(_ context.Context, msg []byte) error {
	if f.fail != nil {
		return f.fail
	}
	var m protocol.Message
	if err := json.Unmarshal(msg, &m); err != nil {
		return err
	}
	f.msgs <- m
	return nil
}

func countsOf(t *testing.T, m protocol.Message) map[int]tabCounts {
	t.Helper()
	require.Equal(t, MethodRedactionCounts, m.Method)
	require.Zero(t, m.ID, "an event: no reply expected")
	var p countsParams
	require.NoError(t, json.Unmarshal(m.Params, &p))
	require.Equal(t, redact.StageSource, p.Stage)
	out := map[int]tabCounts{}
	for _, c := range p.Tabs {
		out[c.TabID] = *c
	}
	return out
}

func consoleEvent(tab int, text string) ([]byte, head) {
	p, _ := json.Marshal(map[string]any{"tab_id": tab, "method": "Runtime.consoleAPICalled",
		"params": map[string]any{"type": "log", "args": []any{map[string]any{"type": "string", "value": text}}}})
	raw, _ := json.Marshal(protocol.Message{Method: "cdp.event", Params: p})
	return raw, peek(raw)
}

func msgOf(m protocol.Message) ([]byte, head) {
	raw, _ := json.Marshal(m)
	return raw, peek(raw)
}

// TestSourceCountsReported: what the source stage redacts is reported per
// tab (events by their tab_id, command results by the tab of the daemon's
// cdp.send), counts made while a report waits for its pause go out
// together in the next one, and counts a failed write could not deliver
// are kept for the next connection.
func TestSourceCountsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	src := newSource(redact.OpenStore(filepath.Join(t.TempDir(), "redaction.json")), nil)
	link := &fakeLink{msgs: make(chan protocol.Message, 8)}
	gate := make(chan time.Time)
	pauses := make(chan struct{}, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		src.report(ctx, link.write, func() <-chan time.Time { pauses <- struct{}{}; return gate })
	}()

	// Nothing redacted, nothing sent.
	require.NotNil(t, src.up(consoleEvent(7, "hello world")))
	select {
	case m := <-link.msgs:
		t.Fatalf("a report without counts: %s", m.Params)
	default:
	}

	// The first redaction is reported at once.
	out := src.up(consoleEvent(7, "token "+srcGitHub))
	require.NotContains(t, string(out), srcGitHub)
	got := countsOf(t, <-link.msgs)
	require.Equal(t, map[int]tabCounts{7: {TabID: 7, Redacted: 1, ByClass: map[string]int64{"github_token": 1}}}, got)

	// While the reporter pauses: another event on tab 7 and a cookie result
	// for tab 9 (the tab named by the daemon's request).
	<-pauses
	require.NotNil(t, src.up(consoleEvent(7, "auth "+srcJWT)))
	src.down(msgOf(protocol.Message{ID: 40, Method: "cdp.send", Params: json.RawMessage(`{"tab_id":9,"method":"Network.getCookies","params":{}}`)}))
	out = src.up(msgOf(protocol.Message{ID: 40, Result: json.RawMessage(`{"cookies":[{"name":"sid","value":"s3cr3t-cookie-value-123"}]}`)}))
	require.NotContains(t, string(out), "s3cr3t-cookie-value-123")
	select {
	case m := <-link.msgs:
		t.Fatalf("a report during the pause: %s", m.Params)
	default:
	}
	gate <- time.Time{}
	got = countsOf(t, <-link.msgs)
	require.Len(t, got, 2, "one message for both tabs: %v", got)
	require.Equal(t, int64(1), got[7].Redacted)
	require.Equal(t, int64(1), got[7].ByClass["jwt"], "%v", got[7].ByClass)
	require.Equal(t, int64(1), got[9].Redacted, "the result counts for the request's tab: %v", got)
	require.Zero(t, got[9].Blocked)

	// A failed write keeps the counts and ends the reporter (the connection
	// is going); the next connection's reporter sends them.
	<-pauses
	link.fail = errors.New("connection lost")
	require.NotNil(t, src.up(consoleEvent(3, "key "+srcGitHub)))
	gate <- time.Time{}
	<-done
	require.Len(t, src.pending, 1, "kept after the failed write")
	link.fail = nil
	ctx2, cancel2 := context.WithCancel(ctx)
	done2 := make(chan struct{})
	go func() {
		defer close(done2)
		src.report(ctx2, link.write, func() <-chan time.Time { return gate })
	}()
	got = countsOf(t, <-link.msgs)
	require.Equal(t, map[int]tabCounts{3: {TabID: 3, Redacted: 1, ByClass: map[string]int64{"github_token": 1}}}, got)
	cancel2()
	<-done2
}

// TestSourceCountsBlocked: with a broken policy, dropped events and
// refused results are reported as blocked, per tab.
func TestSourceCountsBlocked(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "redaction.json")
	require.NoError(t, os.WriteFile(policy, []byte(`{"version":`), 0o600))
	src := newSource(redact.OpenStore(policy), nil)
	require.Nil(t, src.up(consoleEvent(5, "token "+srcGitHub)), "dropped")
	src.down(msgOf(protocol.Message{ID: 8, Method: "cdp.send", Params: json.RawMessage(`{"tab_id":6,"method":"Storage.getCookies","params":{}}`)}))
	src.up(msgOf(protocol.Message{ID: 8, Result: json.RawMessage(`{"cookies":[]}`)}))
	got := map[int]tabCounts{}
	for _, c := range src.take() {
		got[c.TabID] = *c
	}
	require.Equal(t, map[int]tabCounts{5: {TabID: 5, Blocked: 1}, 6: {TabID: 6, Blocked: 1}}, got)
	require.Empty(t, src.take(), "taken once")
}

// TestSourceCountsNeverBlockTheRelay: with no reporter running (the daemon
// is away), redacting keeps going and the counts pile up in one tally.
func TestSourceCountsNeverBlockTheRelay(t *testing.T) {
	src := newSource(redact.OpenStore(filepath.Join(t.TempDir(), "redaction.json")), nil)
	msg, h := consoleEvent(7, "token "+srcGitHub)
	for range 1000 {
		require.NotNil(t, src.up(msg, h))
	}
	cs := src.take()
	require.Len(t, cs, 1)
	require.Equal(t, int64(1000), cs[0].Redacted)
}

// TestRelaySendsRedactionCounts: through the real relay and a daemon
// WebSocket, the host's redaction.counts event follows the redacted
// messages, and the relayed messages are unchanged in order.
func TestRelaySendsRedactionCounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	ext, done := startSourceRelay(t, ctx, d, filepath.Join(t.TempDir(), "redaction.json"))
	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	require.Equal(t, "hello", readWS(t, ctx, c).Method)

	ext.send(cdpEvent("Runtime.consoleAPICalled", "", map[string]any{"type": "error", "args": []any{map[string]any{"type": "string", "value": "token " + srcGitHub}}}))
	ext.send(cdpEvent("Page.loadEventFired", "", map[string]any{"timestamp": 1.5}))
	var relayed []string
	var total int64
	for total < 1 || len(relayed) < 2 {
		m := readAnyWS(t, ctx, c)
		if m.Method == MethodRedactionCounts {
			got := countsOf(t, m)
			require.Subset(t, []int{7}, keys(got), "counts for tab 7 only: %v", got)
			total += got[7].Redacted
			continue
		}
		require.NotContains(t, string(m.Params), srcGitHub)
		var p struct{ Method string }
		require.NoError(t, json.Unmarshal(m.Params, &p))
		relayed = append(relayed, p.Method)
	}
	require.Equal(t, []string{"Runtime.consoleAPICalled", "Page.loadEventFired"}, relayed)
	require.Equal(t, int64(1), total)

	ext.in.Close()
	require.NoError(t, <-done)
}

func keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
