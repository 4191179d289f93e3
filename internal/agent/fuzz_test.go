package agent_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/agenttest"
	"github.com/gasoline-mcp/gasoline/internal/agent/anthropic"
	"github.com/gasoline-mcp/gasoline/internal/agent/openai"
)

// FuzzProviderAnswer feeds untrusted provider bytes to both adapters:
// whatever arrives, Generate returns a response or an error — never a
// panic — and an error never echoes more than the redacted reason.
func FuzzProviderAnswer(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"1","function":{"name":"observe","arguments":"{\"what\":\"errors\"}"}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"not json"}}]}}]}`,
		`{"content":[{"type":"tool_use","id":"t","name":"observe","input":{"what":"page"}},{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"tool_use","input":"x"}]}`,
		`{"error":{"message":"Bearer abcdefghijklmnopqrstuvwxyz012345"}}`,
		`[]`, `null`, ``, `{`,
	} {
		f.Add(200, []byte(s))
		f.Add(500, []byte(s))
	}
	red := agenttest.Redactor(f)
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			status = 200
		}
		h := &agent.HTTP{Client: &http.Client{Transport: agenttest.Canned{Status: status, Body: body}}, Redactor: red,
			Retry: agent.Retry{Attempts: 1}}
		req := agent.Request{Messages: []agent.Message{{Role: agent.User, Content: "hi"}}}
		for _, a := range []agent.Adapter{
			openai.New(openai.Config{Name: "o", BaseURL: "http://127.0.0.1:1/v1", Model: "m", HTTP: h}),
			anthropic.New(anthropic.Config{Name: "a", BaseURL: "http://127.0.0.1:1", Model: "m", HTTP: h}),
		} {
			r, err := a.Generate(context.Background(), req)
			if err == nil {
				for _, tc := range r.ToolCalls {
					if len(tc.Arguments) == 0 {
						t.Fatalf("%s: a tool call without arguments", a.Name())
					}
				}
			}
		}
	})
}
