package recorder

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func overCap(t *testing.T, r *Recorder) map[string]int {
	t.Helper()
	lens := map[string]int{}
	for _, st := range r.Sizes(1) {
		require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
		lens[st.Name] = st.Len
	}
	return lens
}

// TestRecorderHoldsItsCaps: more sessions than maxSessions make interact
// calls, and more than maxRecordings start recordings; the recorder keeps
// at most its caps, and a session that ends leaves nothing.
func TestRecorderHoldsItsCaps(t *testing.T) {
	f := newFixture(t)
	mode, _ := tools.Get("configure")
	for i := range maxRecordings + 5 {
		c := &mcpserver.Call{Call: &tools.Call{Tool: mode, Args: map[string]any{}}, Session: session.Detached(fmt.Sprint("r", i))}
		f.r.start(t.Context(), c)
		overCap(t, f.r)
	}
	for i := range maxSessions + 50 {
		f.r.begin(fmt.Sprint("c", i))()
		f.clock.add(2 * recentWindow)
		overCap(t, f.r)
	}
	lens := overCap(t, f.r)
	require.Equal(t, maxRecordings, lens["recorder.recordings"])

	f.r.ForgetSession("r0")
	f.r.ForgetSession(fmt.Sprint("c", maxSessions+49))
	after := overCap(t, f.r)
	require.Equal(t, lens["recorder.recordings"]-1, after["recorder.recordings"])
	require.Equal(t, lens["recorder.sessions"]-1, after["recorder.sessions"])
}
