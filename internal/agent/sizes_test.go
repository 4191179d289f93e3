package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/agenttest"
)

// TestChatHoldsItsCaps: more conversations than MaxConversations, and more
// events in one than MaxEvents, leave at most the caps.
func TestChatHoldsItsCaps(t *testing.T) {
	done := make(chan struct{}, 64)
	ctx, cancel := context.WithCancel(context.Background())
	chat := agent.NewChat(ctx, agent.ChatConfig{
		MaxConversations: 3, MaxEvents: 10, MaxToolRounds: 8,
		Providers: func(string) (agent.Adapter, error) { return &loopAdapter{}, nil },
		Run: func(context.Context, string, json.RawMessage) (agent.ToolResult, error) {
			return agent.ToolResult{Text: `{}`}, nil
		},
		Emit: func(ev agent.Event) {
			if ev.Kind == agent.KindDone {
				done <- struct{}{}
			}
		},
		Redactor: agenttest.Redactor(t),
	})
	defer func() { cancel(); chat.Wait() }()
	for range 6 {
		_, _, err := chat.Send("", "go", 7, "")
		require.NoError(t, err)
		<-done // each turn runs eight tool rounds: past MaxEvents
		for _, st := range chat.Sizes() {
			require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
		}
	}
	for _, st := range chat.Sizes() {
		require.Equal(t, st.Cap, st.Len, "%s did not fill", st.Name)
	}
}
