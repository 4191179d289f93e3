package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The interact tests drive the actions engine and observe snapshot the
// way agents do: over MCP (the go-sdk client on /mcp), against the daemon
// of a real chain, with the local-development policy so that mutating
// calls on http://127.0.0.1:* need no approval. Every effect is read back
// from the page with execute_js or get_value, never taken from the
// action's own answer.

// ia is one MCP session on a relay chain, acting on its current tab.
type ia struct {
	*relay
	*client
}

func startInteract(t testing.TB, name string) *ia {
	t.Helper()
	r := startRelay(t, ChainOptions{})
	return &ia{relay: r, client: r.client(t, name)}
}

// open opens testdata/pages/actions/<page> (query allowed) in a new tab
// of the session, which becomes its current tab, and returns the tab id.
func (x *ia) open(page string) int {
	x.t.Helper()
	return x.newTab(x.PageURL("pages/actions/" + page))
}

// act runs interact what with args and requires success.
func (c *client) act(what string, args map[string]any) answer {
	c.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	return c.ok("interact", m)
}

// fail runs interact what with args and requires a structured error with
// code.
func (c *client) fail(code, what string, args map[string]any) answer {
	c.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	a := c.call("interact", m)
	require.True(c.t, a.IsError, "interact %s %v succeeded: %s", what, args, a.Text)
	require.Equal(c.t, code, a.code(), "interact %s %v: %s", what, args, a.Text)
	return a
}

// js evaluates script in the current tab over MCP (execute_js) and
// decodes its value into T: the ground truth the tests check actions
// against.
func js[T any](c *client, script string, extra ...map[string]any) T {
	c.t.Helper()
	args := map[string]any{"script": script}
	for _, e := range extra {
		for k, v := range e {
			args[k] = v
		}
	}
	a := c.act("execute_js", args)
	raw, err := json.Marshal(a.Data["value"])
	require.NoError(c.t, err)
	var v T
	require.NoError(c.t, json.Unmarshal(raw, &v), "decoding %s = %s", script, raw)
	return v
}

// jsUntil evaluates a boolean script until it holds, bounded (the page's
// reaction to trusted input can land a frame later).
func jsUntil(c *client, script string, bound time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(bound)
	for !js[bool](c, script) {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s did not hold within %s", script, bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// snap takes observe snapshot with args and returns its text.
func (c *client) snap(args map[string]any) string {
	c.t.Helper()
	a := c.observe("snapshot", args)
	_, s, _ := strings.Cut(a.Page, "\n") // the first line is the header
	require.NotEmpty(c.t, s, "snapshot answered no tree: %s", a.Text)
	return s
}
