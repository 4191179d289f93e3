package safety

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRedactionCountersHoldTheirCap: redaction counted for more sessions
// than maxCountedSessions keeps at most that many; a session that ends
// (ForgetSession) leaves its counters behind no more, and the total keeps
// what they counted.
func TestRedactionCountersHoldTheirCap(t *testing.T) {
	c, _, err := Start(t.TempDir(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer c.Close()
	for i := range maxCountedSessions + 100 {
		_, err := c.RedactText(fmt.Sprint("s", i), "token ghp_R8x2Lq9Vt4Wm6Yp1Zs3Ka5Nb7Dc0Ef2Gh4Jk")
		require.NoError(t, err)
	}
	for _, st := range c.Sizes(1) {
		require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
	}
	c.RedactText("ended", "x")
	before := counted(c)
	c.ForgetSession("ended")
	require.Equal(t, before-1, counted(c), "an ended session's counters go")
	require.EqualValues(t, maxCountedSessions+100, c.RedactionStatus("")["redacted_count"], "the total keeps them")
}

func counted(c *Core) int {
	for _, st := range c.Sizes(1) {
		if st.Name == "safety.redaction_counters" {
			return st.Len
		}
	}
	return -1
}
