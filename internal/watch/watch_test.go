package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// clock is virtual time for the Watcher.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func sig(event, key string) Signal {
	return Signal{Event: event, SessionID: "s1", TabID: 7, URL: "http://127.0.0.1/app", Key: key, Summary: key}
}

func TestRateLimitAndDedupe(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	w := New(c.now)
	_, v := w.Offer(sig(Errors, "boom"))
	assert.Equal(t, Disabled, v)

	_, err := w.Configure(Settings{Enabled: true, Events: []string{Errors, NetworkErrors}, RateLimitPerMin: 3, DedupeWindowSec: 30})
	require.NoError(t, err)

	env, v := w.Offer(sig(Errors, "boom"))
	require.Equal(t, Fired, v)
	assert.Equal(t, "errors", env.Trigger)
	assert.Equal(t, 7, env.Tab)
	assert.NotEmpty(t, env.ContextID)

	_, v = w.Offer(sig(Security, "mixed content"))
	assert.Equal(t, Filtered, v, "security is not enabled")

	c.advance(29 * time.Second)
	_, v = w.Offer(sig(Errors, "boom"))
	assert.Equal(t, Deduped, v, "same error within 30 s")
	other := sig(Errors, "boom")
	other.TabID = 8
	_, v = w.Offer(other)
	assert.Equal(t, Fired, v, "same error on another tab is another signal")

	c.advance(time.Second) // 30 s after the first: the window is over
	_, v = w.Offer(sig(Errors, "boom"))
	assert.Equal(t, Fired, v)

	// Three fired within the minute (t=0, 29, 30): the budget is spent.
	_, v = w.Offer(sig(NetworkErrors, "GET /x 500"))
	assert.Equal(t, RateLimited, v)
	c.advance(29 * time.Second) // t=59: still within the minute of the first
	_, v = w.Offer(sig(NetworkErrors, "GET /x 500"))
	assert.Equal(t, RateLimited, v)
	c.advance(time.Second) // t=60: the first fire leaves the window
	_, v = w.Offer(sig(NetworkErrors, "GET /x 500"))
	assert.Equal(t, Fired, v)
	_, v = w.Offer(sig(NetworkErrors, "GET /y 500"))
	assert.Equal(t, RateLimited, v)

	st := w.Status()
	assert.Equal(t, Stats{Fired: 4, Deduped: 1, RateLimited: 3, Filtered: 1}, st.Stats)

	// A burst of 100 distinct errors in one instant fires 3 at most per
	// minute, however long it lasts.
	c.advance(time.Hour)
	fired := 0
	for m := 0; m < 10; m++ {
		for i := range 100 {
			if _, v := w.Offer(sig(Errors, fmt.Sprintf("e%d-%d", m, i))); v == Fired {
				fired++
			}
		}
		c.advance(time.Minute)
	}
	assert.Equal(t, 30, fired)
}

func TestSettings(t *testing.T) {
	s, err := Settings{}.Normalize()
	require.NoError(t, err)
	assert.Equal(t, Kinds, sortedCopy(s.Events))
	assert.Equal(t, DefaultRateLimit, s.RateLimitPerMin)
	_, err = Settings{Events: []string{"clicks"}}.Normalize()
	assert.ErrorContains(t, err, `"clicks"`)
	_, err = Settings{RateLimitPerMin: 1000}.Normalize()
	assert.Error(t, err)
	_, err = Settings{DedupeWindowSec: -1}.Normalize()
	assert.Error(t, err)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	return out
}

func ingest(t *testing.T, st *capture.Store, tab int, method string, params any) {
	raw, err := json.Marshal(params)
	require.NoError(t, err)
	st.Ingest(tab, method, raw)
}

func exception(msg string, ts float64) map[string]any {
	return map[string]any{"timestamp": ts, "exceptionDetails": map[string]any{
		"exceptionId": 1, "text": "Uncaught", "lineNumber": 3, "columnNumber": 1, "url": "http://127.0.0.1/app.js",
		"exception": map[string]any{"type": "object", "subtype": "error", "description": msg}}}
}

// TestRunScansCapture runs the loop in virtual time over a real capture
// store: entries from before the watch saw the tab are skipped, new
// exceptions and failed requests fire, repeats are deduped.
func TestRunScansCapture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := capture.NewStore(nil)
		require.NoError(t, err)
		ingest(t, st, 7, "Runtime.exceptionThrown", exception("TypeError: old", 1))

		w := New(time.Now)
		_, err = w.Configure(Settings{Enabled: true, RateLimitPerMin: 10, DedupeWindowSec: 60})
		require.NoError(t, err)
		sc := NewScanner(ScanConfig{Store: st,
			Owner: func(tab int) (string, bool) { return "s1", tab == 7 },
			URL:   func(int) string { return "http://127.0.0.1/app" }})
		var mu sync.Mutex
		var got []Envelope
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			Run(ctx, w, sc, time.Second, func(_ context.Context, env Envelope) {
				mu.Lock()
				got = append(got, env)
				mu.Unlock()
			})
		}()
		time.Sleep(time.Second) // virtual: the first scan learns the tab
		synctest.Wait()

		ingest(t, st, 7, "Runtime.exceptionThrown", exception("TypeError: x is undefined", 2))
		ingest(t, st, 7, "Runtime.exceptionThrown", exception("TypeError: x is undefined", 3))
		ingest(t, st, 7, "Network.requestWillBeSent", map[string]any{"requestId": "r1", "timestamp": 4.0, "wallTime": 1.7e9,
			"type": "Fetch", "request": map[string]any{"url": "http://127.0.0.1/api/login", "method": "POST", "headers": map[string]any{}}})
		ingest(t, st, 7, "Network.loadingFailed", map[string]any{"requestId": "r1", "timestamp": 4.5, "type": "Fetch", "errorText": "net::ERR_CONNECTION_REFUSED"})
		ingest(t, st, 9, "Runtime.exceptionThrown", exception("TypeError: not owned", 5))
		time.Sleep(time.Second)
		synctest.Wait()

		mu.Lock()
		require.Len(t, got, 2, "%+v", got)
		assert.Equal(t, Errors, got[0].Trigger)
		assert.Contains(t, got[0].Summary, "TypeError: x is undefined")
		assert.Equal(t, "s1", got[0].Session)
		assert.Equal(t, NetworkErrors, got[1].Trigger)
		assert.Contains(t, got[1].Summary, "POST http://127.0.0.1/api/login → net::ERR_CONNECTION_REFUSED")
		mu.Unlock()
		assert.Equal(t, 1, w.Status().Stats.Deduped)

		cancel()
		<-done
	})
}
