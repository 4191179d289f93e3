package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// event is a relay cdp.event as docs/PROTOCOL.md defines it.
type event struct {
	TabID     int             `json:"tab_id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"session_id,omitempty"`
}

// loadEvents reads a testdata file of cdp.event objects.
func loadEvents(tb testing.TB, name string) []event {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
	var evs []event
	require.NoError(tb, json.Unmarshal(b, &evs), name)
	return evs
}

// fixedNow is the test clock: 2024-10-27T03:33:20Z, the samples' era.
var fixedNow = time.Unix(1730000000, 0).UTC()

// newTestStore returns a store with a fixed clock and opts applied.
func newTestStore(tb testing.TB, opts *Options) *Store {
	tb.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = func() time.Time { return fixedNow }
	}
	s, err := NewStore(&o)
	require.NoError(tb, err)
	return s
}

// ingestFiles feeds the files' events to s.
func ingestFiles(tb testing.TB, s *Store, names ...string) {
	tb.Helper()
	for _, n := range names {
		for _, e := range loadEvents(tb, n) {
			s.Ingest(e.TabID, e.Method, e.Params)
		}
	}
}
