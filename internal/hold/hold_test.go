package hold

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/target"
)

// session records the screencast commands sent to the tab.
type session struct {
	mu   sync.Mutex
	sent []string
}

func (s *session) Call(_ context.Context, method string, _, _ any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, method)
	return nil
}

func (s *session) Subscribe(string) (<-chan jsonv2.Value, func()) { return nil, func() {} }

func (s *session) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.sent...)
}

type caller struct{}

func (caller) Call(context.Context, string, any) (json.RawMessage, error) { return nil, nil }

func tab(t *testing.T) *target.Target {
	return target.NewSet(t.Context(), target.Config{Caller: caller{}}).Get(1)
}

var start, stop = page.StartScreencast.Method, page.StopScreencast.Method

// TestPaintIsShared: holders share one screencast; the last one out stops
// it, and a capture meanwhile leaves it to them.
func TestPaintIsShared(t *testing.T) {
	tt, s := tab(t), &session{}
	a, err := Paint(t.Context(), tt, s)
	require.NoError(t, err)
	b, err := Paint(t.Context(), tt, s)
	require.NoError(t, err)
	assert.Equal(t, []string{start}, s.calls(), "the second holder shares the screencast")

	shared, done, err := Capture(t.Context(), tt, s)
	require.NoError(t, err)
	assert.True(t, shared, "a capture while others hold the tab must not stop the screencast")
	a()
	done()
	assert.Equal(t, []string{start}, s.calls(), "one holder is left")
	b()
	assert.Equal(t, []string{start, stop}, s.calls())

	shared, done, err = Capture(t.Context(), tt, s)
	require.NoError(t, err)
	assert.False(t, shared, "nobody holds the tab: the capture stops its own screencast")
	done()
	assert.Equal(t, []string{start, stop}, s.calls(), "a capture of its own sends nothing through the hold")
}

// TestPaintWaitsForACapture: a capture that owns the screencast keeps it
// until done; Paint waits (and gives up with its context).
func TestPaintWaitsForACapture(t *testing.T) {
	tt, s := tab(t), &session{}
	_, done, err := Capture(t.Context(), tt, s)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err = Paint(ctx, tt, s)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	assert.Empty(t, s.calls(), "nothing sent while the capture owns the screencast")
	done()
	release, err := Paint(t.Context(), tt, s)
	require.NoError(t, err)
	release()
	assert.Equal(t, []string{start, stop}, s.calls(), "started after the capture, stopped by its release")
}
