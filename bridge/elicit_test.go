package bridge

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
)

// elicitingClient connects a client whose user answers every elicitation
// with answer (recording the prompts it saw).
func elicitingClient(t *testing.T, s *Server, answer func(*mcp.ElicitRequest) *mcp.ElicitResult, seen chan<- string) *mcp.ClientSession {
	tr := &mcp.StreamableClientTransport{
		Endpoint:   "http://127.0.0.1:" + strconv.Itoa(s.Port()) + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{s.Token()}}, DisableStandaloneSSE: true,
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "elicit-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			seen <- req.Params.Message
			return answer(req), nil
		},
	})
	cs, err := c.Connect(t.Context(), tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func policyArgs(timeoutMS int) map[string]any {
	args := map[string]any{}
	for k, v := range setPolicy {
		args[k] = v
	}
	args["timeout_ms"] = timeoutMS
	return args
}

// TestElicitationApproves: a client that declares elicitation is asked
// while the call waits; the user's "approve once" there lets the call run.
func TestElicitationApproves(t *testing.T) {
	s := daemon(t)
	seen := make(chan string, 4)
	cs := elicitingClient(t, s, func(*mcp.ElicitRequest) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve_once"}}
	}, seen)
	got, terr := call(t, cs, "configure", policyArgs(60000))
	require.Nil(t, terr, "%+v", terr)
	require.EqualValues(t, 1, got["policy"].(map[string]any)["version"])
	msg := <-seen
	require.Contains(t, msg, "configure.policy")
	require.Contains(t, msg, "req_")
}

// TestElicitationDeclines: "decline" denies; nothing changes.
func TestElicitationDeclines(t *testing.T) {
	s := daemon(t)
	seen := make(chan string, 4)
	cs := elicitingClient(t, s, func(*mcp.ElicitRequest) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "decline"}
	}, seen)
	_, terr := call(t, cs, "configure", policyArgs(60000))
	require.NotNil(t, terr)
	require.Equal(t, approval.CodeDenied, terr.Code)
	require.Contains(t, terr.Message, "MCP client")
	_, err := os.Stat(filepath.Join(s.cfg.Dir, "policy.json"))
	require.True(t, os.IsNotExist(err))
}

// TestElicitationCancelLeavesThePanel: a dismissed elicitation decides
// nothing; the panel (here the engine) still can, and the call resumes.
func TestElicitationCancelLeavesThePanel(t *testing.T) {
	s := daemon(t)
	seen := make(chan string, 4)
	cs := elicitingClient(t, s, func(*mcp.ElicitRequest) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "cancel"}
	}, seen)
	events, stop := s.Approvals().Subscribe()
	defer stop()
	go func() {
		<-seen // the client was asked and dismissed it
		for ev := range events {
			if ev.Type == approval.Requested || len(s.Approvals().Pending("")) > 0 {
				for _, r := range s.Approvals().Pending("") {
					s.Approvals().Approve(r.RequestID, approval.Decision{Kind: approval.Once})
				}
				return
			}
		}
	}()
	got, terr := call(t, cs, "configure", policyArgs(60000))
	require.Nil(t, terr, "%+v", terr)
	require.EqualValues(t, 1, got["policy"].(map[string]any)["version"])
}

// TestNoElicitationWithoutCapability: a client without the capability is
// never asked (the SDK would refuse), the panel path works as before.
func TestNoElicitationWithoutCapability(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	_, terr := call(t, cs, "configure", policyArgs(50))
	require.NotNil(t, terr)
	require.Equal(t, approval.CodeRequired, terr.Code)
	require.False(t, strings.Contains(terr.Message, "elicit"))
}

// TestElicitationShowsThePageWarning: a request whose session received
// instruction-like page text says so in the client's prompt too.
func TestElicitationShowsThePageWarning(t *testing.T) {
	r := approval.Request{RequestID: "req_1", Action: "interact.click", Target: `button "Pay"`, Scope: approval.Scope{TabID: 3},
		PageWarning: `The page contained instruction-like text (asks to ignore previous instructions): "ignore previous instructions".`}
	msg := elicitParams(r).Message
	require.Contains(t, msg, "WARNING: The page contained instruction-like text")
	r.PageWarning = ""
	require.NotContains(t, elicitParams(r).Message, "WARNING")
}
