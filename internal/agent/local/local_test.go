package local_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/local"
)

type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(*http.Request) (*http.Response, error) {
	n.t.Error("the local adapter used the network")
	return nil, http.ErrNotSupported
}

// TestNoNetwork: the local adapter answers with no network at all, the
// same way every time.
func TestNoNetwork(t *testing.T) {
	old := http.DefaultTransport
	http.DefaultTransport = noNetwork{t}
	defer func() { http.DefaultTransport = old }()
	a := local.New("")
	require.NoError(t, a.Health(context.Background()))
	req := agent.Request{TabID: 3, Messages: []agent.Message{{Role: agent.User, Content: "why?"}}}
	r1, err := a.Generate(context.Background(), req)
	require.NoError(t, err)
	r2, _ := a.Generate(context.Background(), req)
	assert.Equal(t, r1, r2, "deterministic")
	require.Len(t, r1.ToolCalls, 2)
	for _, tc := range r1.ToolCalls {
		assert.Equal(t, "observe", tc.Name, "read-only tools only")
	}
	req.Messages = append(req.Messages,
		agent.Message{Role: agent.Assistant, ToolCalls: r1.ToolCalls},
		agent.Message{Role: agent.Tool, ToolCallID: r1.ToolCalls[0].ID, Content: `{"errors":[]}`},
		agent.Message{Role: agent.Tool, ToolCallID: r1.ToolCalls[1].ID, Content: `{"requests":[{"method":"GET","url":"http://x/a","status":200}]}`})
	r3, err := a.Generate(context.Background(), req)
	require.NoError(t, err)
	assert.Empty(t, r3.ToolCalls)
	assert.Contains(t, r3.Text, "Errors: none captured.")
	assert.Contains(t, r3.Text, "Failed requests: none captured.")
	assert.Contains(t, r3.Text, "nothing left this machine")
}
