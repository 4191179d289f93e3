package bridge

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// TestWSMCPAnswersItsVersion: the /ws/mcp handshake answer names the
// daemon's version, which the stdio relay checks before it uses a daemon
// it dialled on state.json's word alone (internal/mcprelay).
func TestWSMCPAnswersItsVersion(t *testing.T) {
	s := daemon(t)
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+s.Credential(creds.Agent))
	c, resp, err := websocket.Dial(context.Background(), "ws://127.0.0.1:"+strconv.Itoa(s.Port())+"/ws/mcp",
		&websocket.DialOptions{HTTPHeader: hdr})
	require.NoError(t, err)
	defer c.Close(websocket.StatusCode(4000), "done")
	require.Equal(t, version.Version, resp.Header.Get("X-Gasoline-Version"))
}
