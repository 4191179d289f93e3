package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/agenttest"
	"github.com/gasoline-mcp/gasoline/internal/agent/local"
)

// runTurn sends message and collects the turn's events up to done.
func runTurn(t *testing.T, cfg agent.ChatConfig, message string) []agent.Event {
	t.Helper()
	events := make(chan agent.Event, 256)
	cfg.Emit = func(ev agent.Event) { events <- ev }
	if cfg.Redactor == nil {
		cfg.Redactor = agenttest.Redactor(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	chat := agent.NewChat(ctx, cfg)
	defer func() { cancel(); chat.Wait() }()
	_, _, err := chat.Send("", message, 7, "")
	require.NoError(t, err)
	var out []agent.Event
	for ev := range events {
		out = append(out, ev)
		if ev.Kind == agent.KindDone {
			return out
		}
	}
	return out
}

func kinds(evs []agent.Event) string {
	var k []string
	for _, ev := range evs {
		k = append(k, ev.Kind)
	}
	return strings.Join(k, " ")
}

// TestLocalTriage: the local adapter reads errors and failed requests with
// read-only calls and summarizes them, with no network.
func TestLocalTriage(t *testing.T) {
	var calls []string
	evs := runTurn(t, agent.ChatConfig{
		Providers: func(string) (agent.Adapter, error) { return local.New(""), nil },
		Run: func(_ context.Context, tool string, args json.RawMessage) (agent.ToolResult, error) {
			calls = append(calls, tool+" "+string(args))
			if strings.Contains(string(args), `"errors"`) {
				return agent.ToolResult{Text: `{"tab_id":7,"groups":2,"errors":[{"kind":"exception","message":"Uncaught TypeError: x is undefined","count":3,"url":"http://127.0.0.1/app.js","line":12},{"kind":"console","message":"boom","count":1}]}`}, nil
			}
			return agent.ToolResult{Text: `{"tab_id":7,"requests":[{"method":"POST","url":"http://127.0.0.1/login","status":500},{"method":"GET","url":"http://127.0.0.1/x","failed":true,"error_text":"net::ERR_CONNECTION_REFUSED"}]}`}, nil
		},
	}, "what is wrong with this page?")
	assert.Equal(t, []string{
		`observe {"what":"errors","limit":20,"tab_id":7}`,
		`observe {"what":"network_waterfall","status":"failed","limit":50,"tab_id":7}`,
	}, calls)
	assert.Equal(t, "user tool_call tool_result evidence tool_call tool_result evidence assistant done", kinds(evs))
	summary := evs[len(evs)-2].Text
	assert.Contains(t, summary, "Errors: 2 distinct.")
	assert.Contains(t, summary, "Uncaught TypeError: x is undefined ×3 at http://127.0.0.1/app.js:12")
	assert.Contains(t, summary, "Failed requests: 2.")
	assert.Contains(t, summary, "POST http://127.0.0.1/login → HTTP 500")
	assert.Equal(t, "error", evs[3].Evidence.Kind)
	assert.Equal(t, "network", evs[6].Evidence.Kind)
	assert.True(t, *evs[len(evs)-1].OK)
	for i, ev := range evs {
		assert.EqualValues(t, i+1, ev.Seq)
		assert.Equal(t, "t1", ev.TurnID)
	}
}

type loopAdapter struct{ n atomic.Int32 }

func (a *loopAdapter) Name() string                 { return "loop" }
func (a *loopAdapter) Health(context.Context) error { return nil }
func (a *loopAdapter) Generate(context.Context, agent.Request) (agent.Response, error) {
	a.n.Add(1)
	return agent.Response{ToolCalls: []agent.ToolCall{{Name: "observe", Arguments: json.RawMessage(`{"what":"page"}`)}}}, nil
}

// TestMaxToolRounds: a model that never stops calling tools is stopped
// after MaxToolRounds rounds.
func TestMaxToolRounds(t *testing.T) {
	var ran atomic.Int32
	ad := &loopAdapter{}
	evs := runTurn(t, agent.ChatConfig{
		Providers:     func(string) (agent.Adapter, error) { return ad, nil },
		MaxToolRounds: 2,
		Run: func(context.Context, string, json.RawMessage) (agent.ToolResult, error) {
			ran.Add(1)
			return agent.ToolResult{Text: "{}"}, nil
		},
	}, "loop")
	assert.EqualValues(t, 2, ran.Load())
	assert.EqualValues(t, 3, ad.n.Load())
	assert.Contains(t, evs[len(evs)-2].Text, "stopped after 2 tool rounds")
	assert.False(t, *evs[len(evs)-1].OK)
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := agent.LoadConfig(dir)
	require.NoError(t, err)
	assert.Equal(t, "local", c.Default)
	assert.Equal(t, 8, c.MaxToolRounds)

	path := filepath.Join(dir, agent.ConfigFile)
	body := `{"default":"claude","providers":[{"name":"claude","type":"anthropic","model":"m","api_key":"sk-ant-x"}]}`
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	c, err = agent.LoadConfig(dir)
	require.NoError(t, err)
	assert.Equal(t, "claude", c.Default)
	assert.Equal(t, "sk-ant-x", c.Providers[0].Key())

	if runtime.GOOS != "windows" {
		require.NoError(t, os.Chmod(path, 0o644))
		_, err = agent.LoadConfig(dir)
		require.ErrorIs(t, err, agent.ErrConfigMode)
		assert.Contains(t, err.Error(), "chmod 600")
		require.NoError(t, os.Chmod(path, 0o600))
	}
	require.NoError(t, os.WriteFile(path, []byte(`{"providers":[{"name":"x","type":"gemini"}]}`), 0o600))
	_, err = agent.LoadConfig(dir)
	assert.ErrorContains(t, err, `type "gemini"`)
}
