package watch

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWatcherHoldsItsCaps: more distinct signals than maxKeys fire over a
// long dedupe window, and more envelopes than maxRecent are recorded; the
// watcher keeps at most its caps.
func TestWatcherHoldsItsCaps(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	w := New(c.now)
	_, err := w.Configure(Settings{Enabled: true, Events: []string{Errors}, RateLimitPerMin: MaxRateLimit, DedupeWindowSec: MaxDedupeWindow})
	require.NoError(t, err)
	for i := range maxKeys + 500 {
		if env, v := w.Offer(sig(Errors, fmt.Sprint("e", i))); v == Fired {
			w.Record(env)
		}
		c.advance(time.Second) // within the day's window, past the rate budget's minute
	}
	full := map[string]bool{}
	for _, st := range w.Sizes() {
		require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
		full[st.Name] = st.Len == st.Cap
	}
	require.True(t, full["watch.dedupe_keys"] && full["watch.recent"], "%v", full)
}
