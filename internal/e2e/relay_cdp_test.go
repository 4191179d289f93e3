package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// A direct CDP client on Chromium's --remote-debugging-port, beside the
// relay: the benchmarks compare the two, and the recovery test reloads the
// extension through its service worker target.

// devtoolsPort reads the port Chromium chose from DevToolsActivePort in
// its user data dir (written once it listens; bounded wait).
func devtoolsPort(t testing.TB, udd string) int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		raw, err := os.ReadFile(filepath.Join(udd, "DevToolsActivePort"))
		if err == nil {
			var port int
			if _, err := fmt.Sscanf(string(raw), "%d", &port); err == nil && port > 0 {
				return port
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("DevToolsActivePort not written in %s", udd)
		}
		time.Sleep(20 * time.Millisecond) // Chromium writes the file; no signal to wait on
	}
}

type cdpTarget struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	URL   string `json:"url"`
	WSURL string `json:"webSocketDebuggerUrl"`
}

// targets lists Chromium's targets (/json/list).
func targets(t testing.TB, port int) []cdpTarget {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(fmt.Sprintf("http://127.0.0.1:%d/json/list", port))
	require.NoError(t, err)
	defer resp.Body.Close()
	var ts []cdpTarget
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ts))
	return ts
}

// findTarget returns the first target of typ whose URL contains url.
func findTarget(t testing.TB, port int, typ, url string) cdpTarget {
	t.Helper()
	for _, x := range targets(t, port) {
		if x.Type == typ && strings.Contains(x.URL, url) {
			return x
		}
	}
	t.Fatalf("no %s target with URL %q", typ, url)
	return cdpTarget{}
}

// directCDP is one raw CDP WebSocket connection to a target.
type directCDP struct {
	c    *websocket.Conn
	next int64
}

func dialCDP(t testing.TB, wsURL string) *directCDP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL, nil)
	require.NoError(t, err)
	c.SetReadLimit(protocol.MaxMessage)
	t.Cleanup(func() { c.CloseNow() })
	return &directCDP{c: c}
}

// call sends one command and waits for its answer, skipping events.
func (d *directCDP) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	d.next++
	id := d.next
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := d.c.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, err
	}
	for {
		_, raw, err := d.c.Read(ctx)
		if err != nil {
			return nil, err
		}
		var m struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &m) != nil || m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m.Result, nil
	}
}

// restartExtension restarts the extension's service worker, as a reload or
// an update does: the worker is closed and started again, so it loses
// every in-memory state (its attachments, its native port). (Its own
// chrome.runtime.reload() unloads a --load-extension extension in this
// headless build for good, so the test restarts the worker through CDP:
// Target.closeTarget, then ServiceWorker.startWorker from a page target.)
func restartExtension(t testing.TB, port int) {
	t.Helper()
	sw := findTarget(t, port, "service_worker", "chrome-extension://")
	pg := dialCDP(t, findTarget(t, port, "page", "about:blank").WSURL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	scope := sw.URL[:strings.LastIndex(sw.URL, "/")+1]
	for _, step := range []struct {
		method string
		params any
	}{
		{"Target.closeTarget", map[string]any{"targetId": sw.ID}},
		{"ServiceWorker.enable", map[string]any{}},
		{"ServiceWorker.startWorker", map[string]any{"scopeURL": scope}},
	} {
		_, err := pg.call(ctx, step.method, step.params)
		require.NoError(t, err, step.method)
	}
}
