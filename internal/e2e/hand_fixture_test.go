package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

// hand drives a tab the way a person does: trusted input (CDP Input.*)
// sent from the test straight through the extension's debugger, outside
// any agent call — what Chrome does with the user's mouse and keyboard.
type hand struct {
	t testing.TB
	s *cdp.Session
}

// hand returns a person's hands on a tab of the chain's browser. The tab
// is made to behave as the focused, visible one the person looks at (a
// background tab delivers mouse moves only with a frame it rarely draws).
func (r *relay) hand(t testing.TB, tab int) hand {
	h := hand{t: t, s: r.Server.CDP(tab)}
	h.call("Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
	return h
}

func (h hand) call(method string, params, result any) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(h.t, h.s.Call(ctx, method, params, result), method)
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func (h hand) eval(expr string, out any) {
	h.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	h.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	require.Nil(h.t, res.ExceptionDetails, expr)
	if out != nil {
		require.NoError(h.t, json.Unmarshal(res.Result.Value, out), expr)
	}
}

// click clicks the middle of the element selector names, scrolled into
// view, with the left button.
func (h hand) click(selector string) {
	h.t.Helper()
	var pt struct{ X, Y float64 }
	sel, _ := json.Marshal(selector)
	h.eval(`(() => { const e = document.querySelector(`+string(sel)+`); e.scrollIntoView({block: 'center'});
		const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &pt)
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": pt.X, "y": pt.Y}
		if typ != "mouseMoved" {
			p["button"], p["clickCount"] = "left", 1
		}
		h.call("Input.dispatchMouseEvent", p, nil)
	}
}

// typeText types text into the focused element, as an input method does.
func (h hand) typeText(text string) {
	h.t.Helper()
	h.call("Input.insertText", map[string]any{"text": text}, nil)
}

// keyCodes are the Windows virtual key codes of the keys press knows.
var keyCodes = map[string]int{"Enter": 13, "Escape": 27, "ArrowDown": 40, "ArrowUp": 38}

// press presses and releases a key: a named one (Enter, Escape, ArrowDown)
// or one letter.
func (h hand) press(key string) {
	h.t.Helper()
	down := map[string]any{"type": "keyDown", "key": key}
	if code, ok := keyCodes[key]; ok {
		down["code"], down["windowsVirtualKeyCode"] = key, code
		if key == "Enter" {
			down["text"] = "\r"
		}
	} else {
		down["code"], down["text"] = "Key"+strings.ToUpper(key), key
		down["windowsVirtualKeyCode"] = int(strings.ToUpper(key)[0])
	}
	h.call("Input.dispatchKeyEvent", down, nil)
	up := map[string]any{"type": "keyUp", "key": key, "code": down["code"], "windowsVirtualKeyCode": down["windowsVirtualKeyCode"]}
	h.call("Input.dispatchKeyEvent", up, nil)
}

// navigate loads a URL as the address bar does (a browser-initiated
// navigation) and waits for the new document's load event.
func (h hand) navigate(url string) {
	h.t.Helper()
	h.newDocument(func() { h.call("Page.navigate", map[string]any{"url": url}, nil) })
}

// reload reloads the page as the reload button does and waits for the new
// document's load event.
func (h hand) reload() {
	h.t.Helper()
	h.newDocument(func() { h.call("Page.reload", map[string]any{}, nil) })
}

// newDocument runs start, which replaces the tab's document, and waits
// (bounded) until the new one has loaded: the old one carries a mark the
// new one lacks.
func (h hand) newDocument(start func()) {
	h.t.Helper()
	h.eval("window.__handMark = true", nil)
	start()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var loaded bool
		h.eval("!window.__handMark && document.readyState === 'complete'", &loaded)
		if loaded {
			return
		}
		require.True(h.t, time.Now().Before(deadline), "the new document did not load")
	}
}

// refused calls tool and requires the structured error code.
func (c *client) refused(code, tool string, args map[string]any) answer {
	c.t.Helper()
	a := c.call(tool, args)
	require.True(c.t, a.IsError, "%s %v succeeded: %s", tool, args, a.Text)
	require.Equal(c.t, code, a.code(), "%s %v: %s", tool, args, a.Text)
	return a
}
