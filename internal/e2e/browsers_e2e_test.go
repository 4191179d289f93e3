//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/testbrowser"
)

// Issue 18, item 1: two Chromium processes, each with its own profile and
// the extension, on one daemon. The second does not take over: each tab's
// calls go to the browser holding it; new tabs go to the browser the agent
// names (by profile name or id), else the one the session uses, else the
// default; observe tabs and configure health list both by name and
// profile. A host that connects and never answers stalls nothing.
func TestE2ETwoBrowsers(t *testing.T) {
	r := startRelay(t, ChainOptions{RemoteDebugging: true})
	portA := devtoolsPort(t, r.Browser.UserDataDir)
	z := r.client(t, "before-b")
	early := z.newTab(r.url("pages/relay/console.html"))

	// The user starts a second browser with its own profile.
	uddB := t.TempDir()
	Install(t, hostBin, uddB)
	b := testbrowser.Start(t, testbrowser.Options{
		ExtensionDir: filepath.Join(RepoRoot(), "extension"),
		UserDataDir:  uddB,
		Env:          []string{"GASOLINE_HOME=" + r.Home, "GASOLINE_PORT=" + strconv.Itoa(r.Port)},
		ExtraArgs:    []string{"--remote-debugging-port=0"},
	})
	portB := devtoolsPort(t, b.UserDataDir)
	eventually(t, 30*time.Second, "the second browser connected", func() bool { return len(r.Server.Extensions().List()) == 2 })
	// The user names each profile (the panel's field saves it so).
	workerEval(t, portA, `chrome.storage.local.set({profile_name: 'work'}).then(() => true)`, nil)
	workerEval(t, portB, `chrome.storage.local.set({profile_name: 'home'}).then(() => true)`, nil)
	eventually(t, 15*time.Second, "both profiles named", func() bool {
		l := r.Server.Extensions().List()
		return len(l) == 2 && l[0].Profile == "work" && l[1].Profile == "home"
	})

	// The browser the user focused last is where new tabs go by default:
	// the user opens a window in the first browser (it takes the focus).
	def, _ := r.Server.Extensions().Default()
	require.Equal(t, browsers.Slot(1), def, "the browser that connected last, before any focus")
	workerEval(t, portA, `chrome.windows.create({focused: true, url: "about:blank"}).then(() => true)`, nil)
	eventually(t, 10*time.Second, "the focused browser is the default", func() bool {
		d, _ := r.Server.Extensions().Default()
		return d == 0
	})

	// The tab opened before the second browser came is still the agent's,
	// in the first browser.
	require.Equal(t, float64(early), z.observe("page", nil).Data["tab_id"])
	z.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "relay:console-done") })

	// New tabs go to the browser the agent names; its ids never meet the
	// first browser's.
	x := r.client(t, "two-browsers")
	inB := int(x.ok("interact", map[string]any{"what": "new_tab", "browser": "home", "url": r.url("pages/relay/console.html")}).Data["tab_id"].(float64))
	slot, local := browsers.Split(inB)
	require.Equal(t, browsers.Slot(1), slot)
	require.Contains(t, chromeTabs(t, portB), local, "the tab is in the second browser")
	require.NotContains(t, chromeTabs(t, portA), inB)
	x.until("logs", nil, 15*time.Second, func(a answer) bool { return hasText(a, "relay:console-done") })
	x.ok("interact", map[string]any{"what": "click", "selector": "h1"})
	// The session's next tab goes to the browser it uses; navigate names
	// the other by its id.
	again := int(x.ok("interact", map[string]any{"what": "new_tab", "url": r.url("pages/relay/network.html")}).Data["tab_id"].(float64))
	require.Equal(t, browsers.Slot(1), browsers.SlotOf(again))
	idA := r.Server.Extensions().List()[0].ID
	inA := int(x.ok("interact", map[string]any{"what": "navigate", "browser": idA, "url": r.url("pages/relay/network.html")}).Data["tab_id"].(float64))
	require.Equal(t, browsers.Slot(0), browsers.SlotOf(inA))
	require.Contains(t, chromeTabs(t, portA), inA)

	tabs := x.observe("tabs", nil)
	require.Len(t, list(tabs, "tabs"), 3)
	require.Contains(t, tabs.Text, `profile "work"`)
	require.Contains(t, tabs.Text, `profile "home"`)
	require.Equal(t, r.Server.Extensions().List()[1].ID, tabIn(tabs, inB)["browser"])
	health := x.ok("configure", map[string]any{"what": "health"})
	hb := list(health, "browsers")
	require.Len(t, hb, 2, health.Text)
	require.Equal(t, "work", hb[0]["profile"])
	require.Equal(t, "home", hb[1]["profile"])
	require.Equal(t, "connected", hb[1]["state"])
	bad := x.call("interact", map[string]any{"what": "new_tab", "browser": "edge", "url": r.url("pages/relay/network.html")})
	require.Equal(t, browsers.CodeUnknownBrowser, bad.code(), bad.Text)

	// A host that connects and never answers: nothing waits for it.
	silentHost(t, r)
	eventually(t, 10*time.Second, "the silent browser listed", func() bool { return len(r.Server.Extensions().List()) == 3 })
	start := time.Now()
	require.Equal(t, float64(inB), x.observe("page", map[string]any{"tab_id": inB}).Data["tab_id"])
	require.Equal(t, float64(early), z.observe("page", nil).Data["tab_id"])
	w := r.client(t, "after-silent")
	fresh := int(w.ok("interact", map[string]any{"what": "new_tab", "url": r.url("pages/relay/network.html")}).Data["tab_id"].(float64))
	require.NotEqual(t, browsers.Slot(2), browsers.SlotOf(fresh), "a new tab never goes to a browser that does not answer")
	require.Less(t, time.Since(start), 20*time.Second, "no call waited for the silent host")
	eventually(t, 40*time.Second, "the silent browser seen as unresponsive", func() bool {
		l := r.Server.Extensions().List()
		return len(l) == 3 && l[2].State == browsers.StateUnresponsive
	})
	start = time.Now()
	stuck := w.call("interact", map[string]any{"what": "new_tab", "browser": "silent", "url": r.url("pages/relay/network.html"), "timeout_ms": 60000})
	require.Equal(t, browsers.CodeBrowserUnresponsive, stuck.code(), stuck.Text)
	require.Equal(t, true, stuck.Data["retryable"])
	require.Less(t, time.Since(start), 15*time.Second, "refused fast, not after the call's budget")
	require.Contains(t, w.observe("tabs", nil).Text, "(unresponsive)")
}

// silentHost connects to the daemon as a native host would, says hello for
// a browser, and then answers nothing (it reads and drops what it gets)
// until the test ends.
func silentHost(t *testing.T, r *relay) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+r.Server.Credential(creds.Link))
	c, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d/ws/host", r.Port), &websocket.DialOptions{HTTPHeader: hdr})
	require.NoError(t, err)
	c.SetReadLimit(protocol.MaxMessage)
	hello, _ := json.Marshal(protocol.Hello{Protocol: protocol.Version, Role: "extension", Version: "0.1.0",
		Browser: "Silent/1", BrowserID: "51e11700-0000-4000-8000-000000000001", RunID: "51e11700-0000-4000-8000-0000000000aa", Profile: "silent"})
	msg, _ := json.Marshal(protocol.Message{ID: 1, Method: protocol.MethodHello, Params: hello})
	require.NoError(t, c.Write(ctx, websocket.MessageText, msg))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); c.CloseNow(); <-done })
}
