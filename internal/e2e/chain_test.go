package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type tab struct {
	ID  int    `json:"id"`
	URL string `json:"url"`
}

// openTab opens a tab on url and returns its id once the page has loaded.
func openTab(t testing.TB, ctx context.Context, c *Chain, url string) int {
	t.Helper()
	raw, err := c.Link.Call(ctx, "tabs.create", map[string]any{"url": "about:blank"})
	require.NoError(t, err)
	var res struct {
		Tab tab `json:"tab"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	id := res.Tab.ID
	_, err = cdp(ctx, c, id, "Page.navigate", map[string]any{"url": url})
	require.NoError(t, err)
	return id
}

func cdp(ctx context.Context, c *Chain, tabID int, method string, params any) (json.RawMessage, error) {
	return c.Link.Call(ctx, "cdp.send", map[string]any{"tab_id": tabID, "method": method, "params": params})
}

// evaluate runs expression in the tab after its document has loaded.
func evaluate(ctx context.Context, c *Chain, tabID int, expression string) (json.RawMessage, error) {
	waitLoad := `new Promise(r => document.readyState === 'complete' ? r() : addEventListener('load', () => r(), {once: true}))`
	raw, err := cdp(ctx, c, tabID, "Runtime.evaluate", map[string]any{
		"expression":    "(async () => { await " + waitLoad + "; return " + expression + "; })()",
		"awaitPromise":  true,
		"returnByValue": true,
	})
	if err != nil {
		return nil, err
	}
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, &jsError{string(res.ExceptionDetails)}
	}
	return res.Result.Value, nil
}

type jsError struct{ detail string }

func (e *jsError) Error() string { return "page threw: " + e.detail }

func TestE2EEvaluateTitleThroughChain(t *testing.T) {
	c := StartChain(t, hostBin)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	h := c.Server.Health()
	require.Equal(t, "connected", h.TransportStatus.Extension)

	raw, err := c.Link.Call(ctx, "ping", map[string]any{"echo": "hi"})
	require.NoError(t, err)
	require.JSONEq(t, `{"pong":true,"echo":"hi"}`, string(raw))

	id := openTab(t, ctx, c, c.PageURL("pages/title.html"))
	title, err := evaluate(ctx, c, id, "document.title")
	require.NoError(t, err)
	require.JSONEq(t, `"Gasoline e2e: title page"`, string(title))
}
