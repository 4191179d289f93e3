//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// The panel when the link breaks: the usual way into the page (CDP over
// the extension link) is what the test breaks, so it reaches the panel
// through Chromium's own remote-debugging port instead.

// devtools is a bare CDP connection to Chromium's remote-debugging port.
type devtools struct {
	conn    *websocket.Conn
	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan devReply
	closed  bool
}

type devReply struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// devSession is one target's flattened session (browser-wide when id is "").
// It implements cdproto's Session; these tests need no events.
type devSession struct {
	d  *devtools
	id string
}

func dialDevTools(t testing.TB, ctx context.Context, userDataDir string) *devtools {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(userDataDir, "DevToolsActivePort"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 2, "DevToolsActivePort: %q", raw)
	conn, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+lines[0]+lines[1], nil)
	require.NoError(t, err)
	conn.SetReadLimit(protocol.MaxMessage) // screenshots
	d := &devtools{conn: conn, waiting: map[int64]chan devReply{}}
	rctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.read(rctx) }()
	t.Cleanup(func() { cancel(); conn.CloseNow(); <-done })
	return d
}

// read delivers replies until the connection ends, then fails the waiters.
func (d *devtools) read(ctx context.Context) {
	for {
		_, b, err := d.conn.Read(ctx)
		if err != nil {
			d.mu.Lock()
			d.closed = true
			for id, ch := range d.waiting {
				close(ch)
				delete(d.waiting, id)
			}
			d.mu.Unlock()
			return
		}
		var r devReply
		if json.Unmarshal(b, &r) != nil || r.ID == 0 {
			continue // an event
		}
		d.mu.Lock()
		ch := d.waiting[r.ID]
		delete(d.waiting, r.ID)
		d.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

func (s devSession) Call(ctx context.Context, method string, params, result any) error {
	d := s.d
	p := []byte(`{}`)
	if params != nil {
		var err error
		if p, err = jsonv2.Marshal(params); err != nil {
			return err
		}
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errors.New("devtools: connection closed")
	}
	d.nextID++
	id, ch := d.nextID, make(chan devReply, 1)
	d.waiting[id] = ch
	d.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": json.RawMessage(p)}
	if s.id != "" {
		msg["sessionId"] = s.id
	}
	b, _ := json.Marshal(msg)
	if err := d.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	select {
	case r, ok := <-ch:
		switch {
		case !ok:
			return errors.New("devtools: connection closed")
		case r.Error != nil:
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		case result != nil && len(r.Result) > 0:
			return jsonv2.Unmarshal(r.Result, result)
		}
		return nil
	case <-ctx.Done():
		d.mu.Lock()
		delete(d.waiting, id)
		d.mu.Unlock()
		return ctx.Err()
	}
}

func (s devSession) Subscribe(string) (<-chan jsonv2.Value, func()) {
	ch := make(chan jsonv2.Value)
	close(ch)
	return ch, func() {}
}

// openPanelDirect opens the panel in a new target through DevTools.
func openPanelDirect(t testing.TB, ctx context.Context, c *Chain) *panel {
	t.Helper()
	return openPanelIn(t, ctx, c.Browser.UserDataDir)
}

// openPanelIn opens the panel through the DevTools port of the browser
// whose profile is udd.
func openPanelIn(t testing.TB, ctx context.Context, udd string) *panel {
	t.Helper()
	browser := devSession{d: dialDevTools(t, ctx, udd)}
	created, err := cdproto.Call(ctx, browser, target.CreateTarget, target.CreateTargetParams{URL: panelURL})
	require.NoError(t, err)
	yes := true
	att, err := cdproto.Call(ctx, browser, target.AttachToTarget, target.AttachToTargetParams{TargetID: created.TargetID, Flatten: &yes})
	require.NoError(t, err)
	p := newPanel(t, ctx, devSession{d: browser.d, id: string(att.SessionID)})
	p.close = func() {
		_, err := cdproto.Call(ctx, browser, target.CloseTarget, target.CloseTargetParams{TargetID: created.TargetID})
		require.NoError(t, err)
	}
	return p
}

// The native host dies and cannot be started again (its manifest is gone):
// the panel says it is reconnecting, then, past its threshold, that the
// link is broken, why, and what to run; once the host is back, it is ready.
func TestE2EPanelLinkLost(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	mcpClient(t, c.Server.Port(), c.Server.Token(), "panel-e2e")
	p := openPanelDirect(t, ctx, c)
	p.waitState(ctx, "ready")

	manifests := filepath.Join(c.Browser.UserDataDir, "NativeMessagingHosts")
	require.NoError(t, os.Rename(manifests, manifests+".off"))
	hosts := hostPIDs(hostBin)
	require.Len(t, hosts, 1)
	require.NoError(t, syscall.Kill(hosts[0], syscall.SIGKILL))

	p.waitState(ctx, "degraded")
	p.waitFor(ctx, "reconnecting said", `document.getElementById('detail').textContent.startsWith('Reconnecting')`)
	p.shot(ctx, "07-degraded-reconnecting.png")
	p.waitState(ctx, "error")
	p.waitFor(ctx, "why and the fix", `document.getElementById('detail').textContent.includes('Specified native messaging host not found')
	  && document.getElementById('fix-cmd').textContent === 'gasoline-host doctor'`)
	p.shot(ctx, "08-error-link-down.png")

	require.NoError(t, os.Rename(manifests+".off", manifests))
	p.wait = 45 * time.Second // the extension's backoff may be at 16 s by now
	p.waitState(ctx, "ready")
	p.close()
}
