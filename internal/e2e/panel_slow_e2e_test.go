//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A slow panel request (panel.providers waiting on a provider that does
// not answer) is served off the extension link's reader: an MCP client's
// calls, whose CDP round trips cross the same link, complete while it is
// still in flight.
func TestE2EPanelSlowRequestLinkFlows(t *testing.T) {
	entered := make(chan struct{}, 16)
	release := make(chan struct{})
	var answered atomic.Int32 // health checks that returned
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		select {
		case entered <- struct{}{}:
		default:
		}
		select { // held until the test lets go (or the daemon's 5 s bound)
		case <-release:
		case <-r.Context().Done():
		}
		answered.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
	}))
	t.Cleanup(prov.Close)
	released := false
	t.Cleanup(func() {
		if !released {
			close(release)
		}
	})
	agentJSON, _ := json.Marshal(map[string]any{"default": "slow", "providers": []any{map[string]any{
		"name": "slow", "type": "openai", "base_url": prov.URL + "/v1", "model": "m", "api_key": "test-key-not-secret"}}})
	r := startRelay(t, ChainOptions{RemoteDebugging: true, Files: map[string]string{"agent.json": string(agentJSON)}})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	a := r.client(t, "slow-panel")
	tab := a.newTab(r.url("pages/title.html"))

	p := openPanelDirect(t, ctx, r.Chain)
	select { // the panel asked for the providers; the answer is held
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the panel never asked for the providers")
	}
	for range 3 {
		page := a.ok("observe", map[string]any{"what": "page", "tab_id": tab})
		require.Contains(t, page.Text, "title.html")
	}
	require.Zero(t, answered.Load(), "the MCP calls waited for the slow panel request")

	released = true
	close(release)
	p.waitFor(ctx, "the providers listed", `[...document.querySelectorAll('#provider option')].some((o) => o.value === 'slow')`)
}
