//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The Terminal tab end to end: the panel in real Chromium, its service
// worker, the native host Chromium started, the daemon and a real PTY. The
// user switches to Terminal, picks a directory, types a command and sees
// its output; the daemon listens on nothing new meanwhile; an MCP agent
// with its credential finds no way to the terminal; closing the panel ends
// the shell within 5 s.
func TestE2ETerminal(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	hosts := hostPIDs(hostBin)
	require.Len(t, hosts, 1)
	daemonBefore, hostBefore := listening(t, os.Getpid()), listening(t, hosts[0])
	require.NotEmpty(t, daemonBefore, "the daemon's own listeners are seen")

	p := openPanelDirect(t, ctx, c)
	t.Cleanup(func() {
		if t.Failed() {
			var screen string
			p.eval(context.Background(), screenJS, &screen)
			t.Logf("terminal screen: %q", screen)
			p.fullShot(context.Background(), "zz-failed-terminal.png")
		}
	})
	p.openTerminal(ctx)
	require.Zero(t, c.Server.Terminals().Running(), "nothing runs before the first keystroke")

	// The directory, chosen in the panel's settings.
	work := t.TempDir()
	p.click(ctx, ".term-settings summary")
	p.click(ctx, "#term-cwd")
	p.typeMessageInto(ctx, work)
	p.click(ctx, `#term-settings button[type="submit"]`)
	p.waitFor(ctx, "settings saved", `document.getElementById('term-saved').textContent.startsWith('Saved')`)
	fi, err := os.Stat(c.Home + "/terminal.json")
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// The first keystroke starts the login shell; a command's output shows.
	p.typeTerminal(ctx, "")
	p.waitFor(ctx, "the shell running", `document.getElementById('term-status').dataset.state === 'running'`)
	p.typeTerminal(ctx, `echo "gas$((6*7))line $$"; pwd`)
	got := p.waitScreen(ctx, "the command's output", `^gas42line (\d+)\n(.*)$`)
	pid, err := strconv.Atoi(got[1])
	require.NoError(t, err)
	require.Equal(t, work, got[2], "the shell runs in the chosen directory")
	require.Equal(t, 1, c.Server.Terminals().Running())
	p.waitFor(ctx, "the running command and directory shown", `document.getElementById('term-status').textContent.endsWith(' · `+work+`')`)
	p.fullShot(ctx, "09-terminal.png")

	// The shell exits: the tab says so; the next key starts a new one
	// (and is not typed into it).
	p.typeTerminal(ctx, "exit 3")
	p.waitFor(ctx, "the session ended", `document.getElementById('term-status').textContent ===
	  'Session ended — press a key to start a new one. The program exited with code 3.'`)
	eventually(t, 5*time.Second, "the first shell reaped", func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) })
	p.viewShot(ctx, "10-terminal-ended.png", ".pane-tabs")
	p.key(ctx, "q", "KeyQ", 81)
	p.waitFor(ctx, "a new shell", `document.getElementById('term-status').dataset.state === 'running'`)
	p.typeTerminal(ctx, `echo "again $$"`)
	got = p.waitScreen(ctx, "the new shell's answer", `^again (\d+)$`)
	pid, err = strconv.Atoi(got[1])
	require.NoError(t, err)
	var screen string
	require.NoError(t, p.eval(ctx, screenJS, &screen))
	require.NotContains(t, screen, "gas42line", "the new session starts on a clean screen")
	require.NotRegexp(t, `(?m)^q`, screen, "the key that started it was not typed")

	// No listener added: the terminal rides the native link.
	require.Equal(t, daemonBefore, listening(t, os.Getpid()), "the daemon's listening sockets changed")
	require.Equal(t, hostBefore, listening(t, hosts[0]), "the native host's listening sockets changed")

	agentCannotReachTerminal(t, ctx, c)
	require.Equal(t, 1, c.Server.Terminals().Views(), "the agent opened nothing")
	require.Equal(t, 1, c.Server.Terminals().Running())

	// Closing the panel hangs the shell up: gone within 5 s.
	closed := time.Now()
	p.close()
	eventually(t, 5*time.Second, "the shell ended after the panel closed", func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
	t.Logf("shell %d ended %v after the panel closed", pid, time.Since(closed).Round(time.Millisecond))
	eventually(t, 5*time.Second, "the view closed", func() bool { return c.Server.Terminals().Views() == 0 })
}

// typeMessageInto types text into the focused input as the user would.
func (p *panel) typeMessageInto(ctx context.Context, text string) {
	p.t.Helper()
	require.NoError(p.t, p.eval(ctx, `document.activeElement.select?.()`, nil))
	p.insertText(ctx, text)
}

// agentCannotReachTerminal: an MCP client with the agent credential finds
// no terminal mode in tools/list, no tool takes one, and the terminal's
// link methods are unknown to MCP over both transports.
func agentCannotReachTerminal(t *testing.T, ctx context.Context, c *Chain) {
	t.Helper()
	cs := mcpClient(t, c.Server.Port(), c.Server.Token(), "terminal-agent").cs
	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, list.Tools)
	forbidden := regexp.MustCompile(`(?i)term|shell|pty|tty|exec`)
	for _, tool := range list.Tools {
		require.NotRegexp(t, forbidden, tool.Name)
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties struct {
				What struct {
					Enum []string `json:"enum"`
				} `json:"what"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		for _, mode := range schema.Properties.What.Enum {
			require.NotRegexp(t, regexp.MustCompile(`(?i)term|shell|pty|tty`), mode, "%s has mode %q", tool.Name, mode)
		}
		require.NotContains(t, string(raw), "term.", tool.Name)
	}
	for _, tool := range list.Tools {
		for _, what := range []string{"terminal", "term.open", "shell"} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{"what": what, "data": "id\r"}})
			require.True(t, err != nil || res.IsError, "%s {what: %q} was accepted", tool.Name, what)
		}
	}

	// The link's terminal methods, sent as MCP requests over the stdio
	// relay's link after a proper initialize.
	ln := dialLink(t, c.Server.Port(), c.Server.Token(), "", "")
	require.Empty(t, ln.answer.Error)
	rpc := func(msg string) map[string]any {
		b := ln.rpc(msg)
		if b == "" {
			return nil
		}
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(b), &out))
		return out
	}
	init := rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.NotNil(t, init["result"], "initialize: %v", init)
	rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rpc(`{"jsonrpc":"2.0","method":"term.input","params":{"term_id":"term_x","data":"id\r"}}`)
	for i, method := range []string{"term.open", "term.settings.set", "term.close"} {
		res := rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"cols":80,"rows":24,"command":"id"}}`, i+2, method))
		e, _ := res["error"].(map[string]any)
		require.NotNil(t, e, "%s over MCP: %v", method, res)
		require.EqualValues(t, -32601, e["code"], "%s over MCP: %v", method, res)
	}
	_, err = os.Stat(c.Home + "/terminal.json")
	require.NoError(t, err)
	b, err := os.ReadFile(c.Home + "/terminal.json")
	require.NoError(t, err)
	require.NotContains(t, string(b), `"id"`, "MCP changed the terminal's command")
}

// A flood of terminal output while CDP calls run over the same link: every
// call answers, the output arrives whole and in order, and the native host
// lives on (Chromium closes a host that writes a frame over 1 MiB).
func TestE2ETerminalFlood(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	hosts := hostPIDs(hostBin)
	tab := openTab(t, ctx, c, c.PageURL("pages/title.html"))
	p := openPanelDirect(t, ctx, c)
	p.openTerminal(ctx)
	p.typeTerminal(ctx, "")
	p.typeTerminal(ctx, `seq 1 200000; echo "FLOOD""DONE"`)
	p.waitScreen(ctx, "the flood started", `^\d{4,6}$`)
	calls, during := 0, 0
	for {
		v, err := evaluate(ctx, tab, "1+1")
		require.NoError(t, err, "a CDP call during the flood")
		require.Equal(t, "2", string(v))
		calls++
		var done bool
		require.NoError(t, p.eval(ctx, `/^FLOODDONE$/m.test(`+screenJS+`)`, &done))
		if done {
			break
		}
		during++
	}
	t.Logf("%d CDP calls answered while the flood ran", during)
	p.waitScreen(ctx, "the flood's end, in order", `^199999\n200000\nFLOODDONE$`)
	_, out := c.Server.Terminals().Bytes()
	require.Greater(t, out, int64(1_288_894), "every line of seq 1 200000 (1,288,895 bytes) and more went out")
	require.Equal(t, hosts, hostPIDs(hostBin), "the native host survived the flood")
}
