package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/agenttest"
	"github.com/gasoline-mcp/gasoline/internal/agent/openai"
)

// provider is a fake chat-completions server: it records every body and
// answers with the scripted replies in turn.
func provider(t *testing.T, wire *agenttest.Wire, replies ...func(w http.ResponseWriter, body []byte)) *httptest.Server {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"data":[]}`))
			return
		}
		assert.Equal(t, "/v1/chat/completions", r.URL.Path)
		assert.Equal(t, "Bearer sk-test-provider-key", r.Header.Get("Authorization"))
		body, _ := io.ReadAll(r.Body)
		wire.Add(body)
		i := int(n.Add(1)) - 1
		if i >= len(replies) {
			i = len(replies) - 1
		}
		replies[i](w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func reply(v string) func(w http.ResponseWriter, _ []byte) {
	return func(w http.ResponseWriter, _ []byte) { w.Write([]byte(v)) }
}

const toolCallReply = `{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
 "tool_calls":[{"id":"call_1","type":"function","function":{"name":"observe","arguments":"{\"what\":\"errors\"}"}}]}}]}`

const finalReply = `{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"Two errors; the login request fails."}}]}`

func adapter(t *testing.T, url string, h *agent.HTTP) *openai.Adapter {
	if h.Redactor == nil {
		h.Redactor = agenttest.Redactor(t)
	}
	return openai.New(openai.Config{Name: "openai", BaseURL: url + "/v1", Model: "gpt-test", APIKey: "sk-test-provider-key", HTTP: h})
}

func TestGenerateToolCallRoundTrip(t *testing.T) {
	var wire agenttest.Wire
	srv := provider(t, &wire, reply(toolCallReply), reply(finalReply))
	a := adapter(t, srv.URL, &agent.HTTP{})
	ctx := context.Background()
	require.NoError(t, a.Health(ctx))

	tools := []agent.ToolDef{{Name: "observe", Description: "read", Parameters: json.RawMessage(`{"type":"object"}`)}}
	msgs := []agent.Message{{Role: agent.User, Content: "what is wrong?"}}
	r, err := a.Generate(ctx, agent.Request{System: "be brief", Messages: msgs, Tools: tools})
	require.NoError(t, err)
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, "observe", r.ToolCalls[0].Name)
	assert.JSONEq(t, `{"what":"errors"}`, string(r.ToolCalls[0].Arguments))

	msgs = append(msgs, agent.Message{Role: agent.Assistant, ToolCalls: r.ToolCalls},
		agent.Message{Role: agent.Tool, ToolCallID: "call_1", Content: `{"groups":2}`})
	r, err = a.Generate(ctx, agent.Request{Messages: msgs, Tools: tools})
	require.NoError(t, err)
	assert.Equal(t, "Two errors; the login request fails.", r.Text)

	bodies := wire.Bodies()
	require.Len(t, bodies, 2)
	first := gjson.ParseBytes(bodies[0])
	assert.Equal(t, "gpt-test", first.Get("model").String())
	assert.Equal(t, "system", first.Get("messages.0.role").String())
	assert.Equal(t, "function", first.Get("tools.0.type").String())
	assert.Equal(t, "observe", first.Get("tools.0.function.name").String())
	second := gjson.ParseBytes(bodies[1])
	assert.Equal(t, "tool", second.Get("messages.2.role").String())
	assert.Equal(t, "call_1", second.Get("messages.2.tool_call_id").String())
	assert.Equal(t, "observe", second.Get("messages.1.tool_calls.0.function.name").String())
}

// fakeClock fires every wait at once and records it (virtual time).
type fakeClock struct{ waits []time.Duration }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

// TestRetry: 429 and 5xx are retried with backoff (virtual time), honoring
// Retry-After; 4xx other than 429 is not, and its error is safe to show.
func TestRetry(t *testing.T) {
	var wire agenttest.Wire
	srv := provider(t, &wire,
		func(w http.ResponseWriter, _ []byte) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			w.Write([]byte(`{"error":{"message":"slow down"}}`))
		},
		func(w http.ResponseWriter, _ []byte) { w.WriteHeader(503) },
		reply(finalReply))
	clock := &fakeClock{}
	a := adapter(t, srv.URL, &agent.HTTP{Clock: clock, Retry: agent.Retry{Attempts: 3, Base: time.Second}})
	r, err := a.Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.User, Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, "Two errors; the login request fails.", r.Text)
	assert.Len(t, wire.Bodies(), 3)
	assert.Equal(t, []time.Duration{7 * time.Second, 2 * time.Second}, clock.waits)

	t.Run("bounded", func(t *testing.T) {
		var wire agenttest.Wire
		srv := provider(t, &wire, func(w http.ResponseWriter, _ []byte) { w.WriteHeader(500) })
		clock := &fakeClock{}
		a := adapter(t, srv.URL, &agent.HTTP{Clock: clock})
		_, err := a.Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.User, Content: "hi"}}})
		var pe *agent.ProviderError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, 500, pe.Status)
		assert.True(t, pe.Retryable)
		assert.Len(t, wire.Bodies(), 3, "3 attempts, no more")
		assert.Len(t, clock.waits, 2)
	})
	t.Run("not retried", func(t *testing.T) {
		var wire agenttest.Wire
		srv := provider(t, &wire, func(w http.ResponseWriter, _ []byte) {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided: sk-DIcUjJzQhDTDyNCcWLmS7Y7vzr8bRV5syZcj2y65p7mFPj6D"}}`))
		})
		clock := &fakeClock{}
		a := adapter(t, srv.URL, &agent.HTTP{Clock: clock})
		_, err := a.Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.User, Content: "hi"}}})
		var pe *agent.ProviderError
		require.ErrorAs(t, err, &pe)
		assert.False(t, pe.Retryable)
		assert.Len(t, wire.Bodies(), 1)
		assert.Empty(t, clock.waits)
		assert.Contains(t, err.Error(), "HTTP 401")
		assert.NotContains(t, err.Error(), "sk-DIcUjJzQhDTDyNCcWLmS7Y7vzr8bRV5syZcj2y65p7mFPj6D", "a key echoed by the provider is redacted")
	})
}

// TestNoRedactorNoSend: without an egress redactor nothing is sent.
func TestNoRedactorNoSend(t *testing.T) {
	var wire agenttest.Wire
	srv := provider(t, &wire, reply(finalReply))
	a := openai.New(openai.Config{Name: "openai", BaseURL: srv.URL + "/v1", Model: "m", HTTP: &agent.HTTP{}})
	_, err := a.Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.User, Content: "hi"}}})
	require.ErrorIs(t, err, agent.ErrNoRedactor)
	assert.Empty(t, wire.Bodies())
}

// TestChatSendsNoSecret runs a whole panel turn through the adapter: the
// user's message, the tool's result and the model's own tool arguments
// carry every corpus secret, and none of them reaches the provider.
func TestChatSendsNoSecret(t *testing.T) {
	corpus := agenttest.Corpus(t)
	var planted []string
	for _, s := range corpus {
		planted = append(planted, s.Value)
	}
	argsWithSecrets, _ := json.Marshal(map[string]any{"what": "errors", "text": planted})
	scripted, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "tool_calls", "message": map[string]any{
		"role": "assistant", "content": "Looking. " + strings.Join(planted[:20], " "),
		"tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "observe", "arguments": string(argsWithSecrets)}}},
	}}}})
	var wire agenttest.Wire
	srv := provider(t, &wire, reply(string(scripted)), reply(finalReply))
	red := agenttest.Redactor(t)
	a := adapter(t, srv.URL, &agent.HTTP{Redactor: red})

	result, _ := json.Marshal(map[string]any{"errors": planted, "headers": map[string]string{"Authorization": corpus[0].Value, "Cookie": "sid=abc; session=" + corpus[1].Secret}})
	var ran atomic.Int32
	events := make(chan agent.Event, 64)
	ctx, cancel := context.WithCancel(context.Background())
	chat := agent.NewChat(ctx, agent.ChatConfig{
		Providers: func(string) (agent.Adapter, error) { return a, nil },
		Tools:     []agent.ToolDef{{Name: "observe", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Run: func(ctx context.Context, tool string, args json.RawMessage) (agent.ToolResult, error) {
			ran.Add(1)
			return agent.ToolResult{Text: string(result)}, nil
		},
		Redactor: red,
		Emit:     func(ev agent.Event) { events <- ev },
	})
	defer func() { cancel(); chat.Wait() }()
	_, _, err := chat.Send("", "Why does login fail? "+strings.Join(planted, "\n"), 0, "")
	require.NoError(t, err)
	var all []agent.Event
	for ev := range events {
		all = append(all, ev)
		if ev.Kind == agent.KindDone {
			require.True(t, *ev.OK, "turn failed: %+v", all)
			break
		}
	}
	assert.EqualValues(t, 1, ran.Load())
	bodies := wire.Bodies()
	require.Len(t, bodies, 2)
	agenttest.AssertNoSecret(t, corpus, bodies)
	// The panel's events are redacted too, and say so.
	raw, _ := json.Marshal(all)
	agenttest.AssertNoSecret(t, corpus, [][]byte{raw})
	// Control: the same turn without redaction would have sent them.
	leaked := 0
	for _, s := range corpus {
		if strings.Contains(string(result), s.Secret) {
			leaked++
		}
	}
	assert.Greater(t, leaked, len(corpus)/2, "the scripted tool result really carries the corpus")
	last := all[len(all)-1]
	assert.Greater(t, last.Redaction.RedactedCount, int64(len(corpus)))
}
