package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/agenttest"
	"github.com/gasoline-mcp/gasoline/internal/agent/anthropic"
)

// provider is a fake Messages API: it records bodies and answers the
// scripted replies in turn.
func provider(t *testing.T, wire *agenttest.Wire, replies ...string) *httptest.Server {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "sk-ant-test-provider-key", r.Header.Get("x-api-key"))
		assert.Equal(t, anthropic.Version, r.Header.Get("anthropic-version"))
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"data":[]}`))
			return
		}
		assert.Equal(t, "/v1/messages", r.URL.Path)
		body, _ := io.ReadAll(r.Body)
		wire.Add(body)
		i := min(int(n.Add(1))-1, len(replies)-1)
		if replies[i] == "overloaded" {
			w.WriteHeader(529)
			w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
			return
		}
		w.Write([]byte(replies[i]))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const toolUse = `{"content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"observe","input":{"what":"network_waterfall","status":"failed"}}],"stop_reason":"tool_use"}`
const final = `{"content":[{"type":"text","text":"The POST /login returns 500."}],"stop_reason":"end_turn"}`

func adapter(t *testing.T, url string, h *agent.HTTP) *anthropic.Adapter {
	if h.Redactor == nil {
		h.Redactor = agenttest.Redactor(t)
	}
	return anthropic.New(anthropic.Config{Name: "claude", BaseURL: url, Model: "claude-test", APIKey: "sk-ant-test-provider-key", HTTP: h})
}

func TestToolUseRoundTrip(t *testing.T) {
	var wire agenttest.Wire
	srv := provider(t, &wire, toolUse, final)
	a := adapter(t, srv.URL, &agent.HTTP{})
	ctx := context.Background()
	require.NoError(t, a.Health(ctx))
	tools := []agent.ToolDef{{Name: "observe", Description: "read", Parameters: json.RawMessage(`{"type":"object"}`)}}
	msgs := []agent.Message{{Role: agent.User, Content: "why does login fail?"}}
	r, err := a.Generate(ctx, agent.Request{System: "be brief", Messages: msgs, Tools: tools})
	require.NoError(t, err)
	assert.Equal(t, "Let me look.", r.Text)
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, "toolu_1", r.ToolCalls[0].ID)
	assert.JSONEq(t, `{"what":"network_waterfall","status":"failed"}`, string(r.ToolCalls[0].Arguments))

	msgs = append(msgs, agent.Message{Role: agent.Assistant, Content: r.Text, ToolCalls: r.ToolCalls},
		agent.Message{Role: agent.Tool, ToolCallID: "toolu_1", Content: `{"requests":[]}`, IsError: true})
	r, err = a.Generate(ctx, agent.Request{System: "be brief", Messages: msgs, Tools: tools})
	require.NoError(t, err)
	assert.Equal(t, "The POST /login returns 500.", r.Text)

	bodies := wire.Bodies()
	require.Len(t, bodies, 2)
	first := gjson.ParseBytes(bodies[0])
	assert.Equal(t, "be brief", first.Get("system").String())
	assert.Equal(t, int64(1024), first.Get("max_tokens").Int())
	assert.Equal(t, "observe", first.Get("tools.0.name").String())
	assert.Equal(t, "object", first.Get("tools.0.input_schema.type").String())
	second := gjson.ParseBytes(bodies[1])
	// user, assistant(text + tool_use), user(tool_result): roles alternate.
	assert.Equal(t, "assistant", second.Get("messages.1.role").String())
	assert.Equal(t, "tool_use", second.Get("messages.1.content.1.type").String())
	assert.Equal(t, "user", second.Get("messages.2.role").String())
	assert.Equal(t, "tool_result", second.Get("messages.2.content.0.type").String())
	assert.Equal(t, "toolu_1", second.Get("messages.2.content.0.tool_use_id").String())
	assert.True(t, second.Get("messages.2.content.0.is_error").Bool())
}

// TestOverloadedFailsSafely: 529 is retried, then surfaces as a safe
// provider error in the panel; the conversation survives and the next
// turn works.
func TestOverloadedFailsSafely(t *testing.T) {
	var wire agenttest.Wire
	srv := provider(t, &wire, "overloaded", "overloaded", final)
	red := agenttest.Redactor(t)
	a := adapter(t, srv.URL, &agent.HTTP{Redactor: red, Retry: agent.Retry{Attempts: 2, Base: 1}})
	events := make(chan agent.Event, 64)
	ctx, cancel := context.WithCancel(context.Background())
	chat := agent.NewChat(ctx, agent.ChatConfig{
		Providers: func(string) (agent.Adapter, error) { return a, nil },
		Run: func(context.Context, string, json.RawMessage) (agent.ToolResult, error) {
			t.Error("no tool may run")
			return agent.ToolResult{}, nil
		},
		Redactor: red,
		Emit:     func(ev agent.Event) { events <- ev },
	})
	defer func() { cancel(); chat.Wait() }()
	conv, _, err := chat.Send("", "hello", 0, "")
	require.NoError(t, err)
	var errText string
	for ev := range events {
		if ev.Kind == agent.KindError {
			errText = ev.Text
		}
		if ev.Kind == agent.KindDone {
			assert.False(t, *ev.OK)
			break
		}
	}
	assert.Contains(t, errText, "HTTP 529")
	assert.Contains(t, errText, "try again")
	assert.Len(t, wire.Bodies(), 2, "bounded: two attempts")

	_, _, err = chat.Send(conv, "again", 0, "")
	require.NoError(t, err)
	for ev := range events {
		if ev.Kind == agent.KindDone {
			assert.True(t, *ev.OK)
			break
		}
	}
	evs, lost := chat.History(conv, 0)
	assert.False(t, lost)
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, ev.Kind)
	}
	assert.Equal(t, "user error done user assistant done", strings.Join(kinds, " "))
	_, lost = chat.History("conv_unknown", 0)
	assert.True(t, lost)
}

func TestChatSendsNoSecret(t *testing.T) {
	corpus := agenttest.Corpus(t)
	var planted []string
	for _, s := range corpus {
		planted = append(planted, s.Value)
	}
	input, _ := json.Marshal(map[string]any{"what": "errors", "notes": planted})
	scripted, _ := json.Marshal(map[string]any{"stop_reason": "tool_use", "content": []any{
		map[string]any{"type": "text", "text": strings.Join(planted[:30], " ")},
		map[string]any{"type": "tool_use", "id": "toolu_9", "name": "observe", "input": json.RawMessage(input)},
	}})
	var wire agenttest.Wire
	srv := provider(t, &wire, string(scripted), final)
	red := agenttest.Redactor(t)
	a := adapter(t, srv.URL, &agent.HTTP{Redactor: red})
	result, _ := json.Marshal(map[string]any{"console": planted})
	events := make(chan agent.Event, 64)
	ctx, cancel := context.WithCancel(context.Background())
	chat := agent.NewChat(ctx, agent.ChatConfig{
		Providers: func(string) (agent.Adapter, error) { return a, nil },
		Run: func(context.Context, string, json.RawMessage) (agent.ToolResult, error) {
			return agent.ToolResult{Text: string(result)}, nil
		},
		Redactor: red,
		Emit:     func(ev agent.Event) { events <- ev },
	})
	defer func() { cancel(); chat.Wait() }()
	_, _, err := chat.Send("", strings.Join(planted, "\n"), 0, "")
	require.NoError(t, err)
	for ev := range events {
		if ev.Kind == agent.KindDone {
			require.True(t, *ev.OK)
			break
		}
	}
	require.Len(t, wire.Bodies(), 2)
	agenttest.AssertNoSecret(t, corpus, wire.Bodies())
}
