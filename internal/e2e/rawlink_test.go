//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/mcpline"
)

// rawLink speaks the stdio relay's link to the daemon itself (as any
// program holding the agent credential can): a hello, then one JSON-RPC
// message per line.
type rawLink struct {
	t      *testing.T
	c      net.Conn
	br     *bufio.Reader
	answer mcpline.Answer
}

// dialLink connects to the daemon's port and says hello with tok (and
// the session and resume key to resume, if any); answer holds the
// daemon's answer, a refusal included.
func dialLink(t *testing.T, port int, tok, session, key string) *rawLink {
	t.Helper()
	c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = c.Write(mcpline.Marshal(mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: tok, Session: session, ResumeKey: key}))
	require.NoError(t, err)
	l := &rawLink{t: t, c: c, br: bufio.NewReader(c)}
	require.NoError(t, json.Unmarshal([]byte(l.line()), &l.answer))
	return l
}

// line reads the next line, bounded.
func (l *rawLink) line() string {
	l.t.Helper()
	l.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	s, err := l.br.ReadString('\n')
	require.NoError(l.t, err)
	return s
}

// rpc sends one message and returns the answer ("" for a notification).
func (l *rawLink) rpc(msg string) string {
	l.t.Helper()
	_, err := l.c.Write([]byte(msg + "\n"))
	require.NoError(l.t, err)
	if !strings.Contains(msg, `"id"`) {
		return ""
	}
	return l.line()
}
