//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A model provider that fails, in the real panel: agent.json names an
// OpenAI-compatible provider on a local server that first answers 500 (the
// daemon retries it, with its real backoff, then gives up), and later a
// valid chat completion. The panel shows the failure as an error card, the
// daemon keeps serving, the conversation stays, and the next message
// succeeds in it.

// flakyProvider is an OpenAI-compatible endpoint: GET /v1/models answers
// (the provider is healthy), POST /v1/chat/completions fails with 500 while
// failing is set, else answers with reply. Every chat request body is kept.
type flakyProvider struct {
	srv     *httptest.Server
	failing atomic.Bool
	reply   string

	mu     sync.Mutex
	bodies []string // chat request bodies, in order
	fails  int      // chat requests answered 500
}

func newFlakyProvider(t *testing.T, reply string) *flakyProvider {
	f := &flakyProvider{reply: reply}
	f.failing.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"test-model","object":"model"}]}`))
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, string(body))
		failing := f.failing.Load()
		if failing {
			f.fails++
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if failing {
			w.WriteHeader(http.StatusInternalServerError)
			// The provider's message is shown in the panel, redacted: the
			// token it echoes must not be.
			w.Write([]byte(`{"error":{"message":"upstream model overloaded (request token ` + chatSecret + `)","type":"server_error"}}`))
			return
		}
		out, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": f.reply}}}})
		w.Write(out)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *flakyProvider) requests() (bodies []string, fails int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...), f.fails
}

func TestE2ESidePanelProviderFailure(t *testing.T) {
	const reply = "The checkout page looks fine now: no errors, no failed requests."
	prov := newFlakyProvider(t, reply)
	agentJSON, _ := json.Marshal(map[string]any{"default": "flaky", "providers": []any{map[string]any{
		"name": "flaky", "type": "openai", "base_url": prov.srv.URL + "/v1", "model": "test-model", "api_key": "test-key-not-secret"}}})
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true, Files: map[string]string{"agent.json": string(agentJSON)}})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	mcpClient(t, c.Server.Port(), c.Server.Token(), "provider-e2e")

	_, err := c.Link.Call(ctx, "tabs.create", map[string]any{"url": c.PageURL("pages/title.html"), "active": true, "wait_until": "load"})
	require.NoError(t, err)
	p, _ := openPanelWith(t, ctx, c)
	require.NoError(t, p.eval(ctx, `window.__panel_errors = [];
	  addEventListener('error', (e) => __panel_errors.push(String(e.message)));
	  addEventListener('unhandledrejection', (e) => __panel_errors.push(String(e.reason)))`, nil))
	t.Cleanup(func() {
		if t.Failed() {
			p.fullShot(context.Background(), "zz-failed-provider.png")
			for _, e := range p.entries(context.Background()) {
				t.Logf("entry %s: %.300s", e.Kind, e.Text)
			}
		}
	})

	p.waitState(ctx, "ready")
	p.waitFor(ctx, "the provider listed", `[...document.querySelectorAll('#provider option')].some((o) => o.value === 'flaky')`)
	require.Equal(t, "flaky (healthy)", p.statusRow(ctx, "Model provider"))

	// The first message: the provider answers 500 to every attempt.
	p.typeMessage(ctx, "Why does checkout fail?")
	p.pressEnter(ctx)
	p.wait = 45 * time.Second // the daemon's real backoff between attempts
	p.waitFor(ctx, "the error card", `document.querySelector('#conversation > li[data-kind="error"]')`)
	p.waitFor(ctx, "the turn over", `!document.getElementById('chat-send').disabled`)
	p.wait = 25 * time.Second
	_, fails := prov.requests()
	require.Equal(t, 3, fails, "a 500 is retried: 3 attempts in all, then the turn fails")

	card := p.text(ctx, `#conversation > li[data-kind="error"]`)
	t.Logf("error card: %s", card)
	require.Contains(t, card, "Something went wrong")
	require.Contains(t, card, "flaky: HTTP 500")
	require.Contains(t, card, "upstream model overloaded")
	require.Contains(t, card, "try again")
	require.NotContains(t, card, chatSecret, "the provider's message is redacted")
	var role string
	require.NoError(t, p.eval(ctx, `document.querySelector('#conversation > li[data-kind="error"]').getAttribute('role')`, &role))
	require.Equal(t, "alert", role)
	conv := p.statusRow(ctx, "Conversation")
	require.True(t, strings.HasPrefix(conv, "conv_"), "the conversation exists: %q", conv)
	p.fullShot(ctx, "10-provider-error.png")
	p.viewShot(ctx, "10b-provider-error-card.png", `#conversation > li[data-kind="user"]`)

	// The daemon is up and the link with it: the panel still reads its
	// status, and the daemon answers over the link.
	p.waitState(ctx, "ready")
	require.Equal(t, "flaky (healthy)", p.statusRow(ctx, "Model provider"))
	_, err = c.Link.Call(ctx, "ping", nil)
	require.NoError(t, err)

	// The provider is back: the next message succeeds in the same
	// conversation, which still holds the first message.
	prov.failing.Store(false)
	p.typeMessage(ctx, "Try again, please.")
	p.pressEnter(ctx)
	p.waitTurn(ctx, 1)
	require.Equal(t, conv, p.statusRow(ctx, "Conversation"), "the same conversation")
	es := p.entries(ctx)
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, e.Kind)
		require.NotContains(t, e.Text, chatSecret)
	}
	require.Equal(t, []string{"user", "error", "user", "assistant"}, kinds, "%v", es)
	require.Contains(t, es[3].Text, reply)
	bodies, fails := prov.requests()
	require.Equal(t, 3, fails)
	require.Len(t, bodies, 4, "one successful request after the three failed ones")
	last := bodies[3]
	require.Contains(t, last, "Why does checkout fail?", "the conversation kept the first message")
	require.Contains(t, last, "Try again, please.")
	require.NotContains(t, last, "test-key-not-secret", "the key travels in the header only")

	var pageErrors []string
	require.NoError(t, p.eval(ctx, `window.__panel_errors`, &pageErrors))
	require.Empty(t, pageErrors, "the panel threw")
	p.fullShot(ctx, "11-provider-recovered.png")
	p.close()
}
