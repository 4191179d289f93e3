package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

type tab struct {
	ID  int    `json:"id"`
	URL string `json:"url"`
}

// openTab opens a background tab, navigates it to url through typed CDP,
// and returns its session once the load event fired.
func openTab(t testing.TB, ctx context.Context, c *Chain, url string) *cdp.Session {
	t.Helper()
	raw, err := c.Link.Call(ctx, "tabs.create", map[string]any{"url": "about:blank"})
	require.NoError(t, err)
	var res struct {
		Tab tab `json:"tab"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	s := c.Server.CDP(res.Tab.ID)
	_, err = cdproto.Call(ctx, s, page.Enable, page.EnableParams{})
	require.NoError(t, err)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loaded := cdproto.Events(lctx, s, page.LoadEventFired) // subscribed before navigating
	nav, err := cdproto.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url})
	require.NoError(t, err)
	require.Empty(t, nav.ErrorText)
	for _, err := range loaded {
		require.NoError(t, err)
		break
	}
	return s
}

// evaluate runs expression in the page and returns its JSON value.
func evaluate(ctx context.Context, s *cdp.Session, expression string) (json.RawMessage, error) {
	yes := true
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expression, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("page threw: %s", res.ExceptionDetails.Text)
	}
	return json.RawMessage(res.Result.Value), nil
}

func TestE2EEvaluateTitleThroughChain(t *testing.T) {
	c := StartChain(t, hostBin)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	h := c.Server.Health()
	require.Equal(t, "connected", h.TransportStatus.Extension)

	raw, err := c.Link.Call(ctx, "ping", map[string]any{"echo": "hi"})
	require.NoError(t, err)
	require.JSONEq(t, `{"pong":true,"echo":"hi"}`, string(raw))

	tabSession := openTab(t, ctx, c, c.PageURL("pages/title.html"))
	title, err := evaluate(ctx, tabSession, "document.title")
	require.NoError(t, err)
	require.JSONEq(t, `"Gasoline e2e: title page"`, string(title))
}
