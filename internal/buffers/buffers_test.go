package buffers

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func call(t *testing.T, sess *session.Session, args string) *mcpserver.Call {
	tc, terr := tools.Parse("configure", json.RawMessage(args))
	require.Nil(t, terr)
	return &mcpserver.Call{Call: tc, Session: sess}
}

func TestClearSessionTabsOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sessions := session.New(ctx, &session.Options{})
	mine, _, _, err := sessions.Attach("mine", session.Transport("stdio"))
	require.NoError(t, err)
	store, err := capture.NewStore(nil)
	require.NoError(t, err)
	reg := tabs.NewRegistry()
	reg.Own("mine", 1)
	reg.Own("theirs", 2)
	for _, tab := range []int{1, 2} {
		store.AddAction(tab, capture.Action{Type: "click"})
		store.Ingest(tab, "Runtime.consoleAPICalled", json.RawMessage(`{"type":"log","args":[{"type":"string","value":"x"}],"timestamp":1}`))
	}
	cfg := Config{Store: store, Tabs: reg}

	v, err := clearBuffers(cfg, call(t, mine, `{"what":"clear","buffer":"actions"}`))
	require.NoError(t, err)
	res := v.(*mcp.CallToolResult)
	var got Result
	raw, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, Result{Buffer: "actions", Tabs: []TabResult{{TabID: 1, Cleared: map[string]int{"action": 1}}}, Cleared: 1}, got)
	assert.Len(t, store.Logs(1, capture.LogQuery{}).Entries, 1, "the console stays")
	assert.Len(t, store.Activity(2, 0, 0).Entries, 1, "another session's tab is untouched")

	_, terr := tools.Parse("configure", json.RawMessage(`{"what":"clear","buffer":"cookies"}`))
	require.NotNil(t, terr, "the table's enum refuses an unknown buffer")
	for name := range Names {
		_, terr := tools.Parse("configure", json.RawMessage(`{"what":"clear","buffer":"`+name+`"}`))
		assert.Nil(t, terr, "every buffer the mode knows is in the table: %s", name)
	}
}
