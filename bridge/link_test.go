package bridge

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// linkHello says hello on the daemon's port with tok and returns the
// answer.
func linkHello(t *testing.T, port int, tok string) mcpline.Answer {
	t.Helper()
	c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(mcpline.Marshal(mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: tok}))
	require.NoError(t, err)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	require.NoError(t, err)
	var a mcpline.Answer
	require.NoError(t, json.Unmarshal(line, &a), "%s", line)
	return a
}

// TestPortServesTheRelayLinkBesideHTTP: one port serves the stdio relay's
// link (a connection that opens with '{') and HTTP and WebSocket (every
// other), and a connection that has not sent its first byte delays
// nobody. The link answers with the daemon's version, which the relay
// checks before it uses a daemon it dialled on state.json's word alone
// (internal/mcprelay), and takes the agent credential only.
func TestPortServesTheRelayLinkBesideHTTP(t *testing.T) {
	s := daemon(t)
	silent, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(s.Port())) // sends nothing while the rest runs
	require.NoError(t, err)
	defer silent.Close()

	a := linkHello(t, s.Port(), s.Credential(creds.Agent))
	require.Empty(t, a.Error)
	require.Equal(t, version.Version, a.Version)
	require.NotEmpty(t, a.Session)
	for _, r := range []creds.Role{creds.Approver, creds.Link} {
		require.Contains(t, linkHello(t, s.Port(), s.Credential(r)).Error, "the "+r.String()+" credential is not valid here")
	}

	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(s.Port()) + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	hdr := http.Header{"Authorization": {"Bearer " + s.Credential(creds.Link)}}
	ws, _, err := websocket.Dial(t.Context(), "ws://127.0.0.1:"+strconv.Itoa(s.Port())+"/ws/host", &websocket.DialOptions{HTTPHeader: hdr})
	require.NoError(t, err, "the WebSocket upgrade on the shared port")
	ws.CloseNow()
}
