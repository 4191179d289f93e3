package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/safety"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// daemon runs the real daemon in-process on a free port.
func daemon(t *testing.T) *Server { return daemonWith(t, Config{Dir: t.TempDir()}) }

// daemonIn runs a daemon on state directory dir until the test ends.
func daemonIn(t *testing.T, dir string) *Server { return daemonWith(t, Config{Dir: dir}) }

// daemonWith starts a daemon with cfg (its Port is the test's; Dir too
// when cfg has none).
func daemonWith(t *testing.T, cfg Config) *Server {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *Server, 1)
	done := make(chan error, 1)
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	cfg.Port, cfg.Ready = port, func(s *Server) { ready <- s }
	go func() { done <- Run(ctx, cfg) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	select {
	case s := <-ready:
		return s
	case err := <-done:
		t.Fatal(err)
	}
	return nil
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func client(t *testing.T, s *Server) *mcp.ClientSession {
	tr := &mcp.StreamableClientTransport{
		Endpoint:   "http://127.0.0.1:" + strconv.Itoa(s.Port()) + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{s.Token()}}, DisableStandaloneSSE: true,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "gate-test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

type toolErr struct {
	Code       string         `json:"code"`
	Message    string         `json:"message"`
	NextAction map[string]any `json:"next_action"`
	Details    struct {
		RequestID string `json:"request_id"`
		Action    string `json:"action"`
	} `json:"details"`
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, *toolErr) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var e toolErr
		require.NoError(t, json.Unmarshal(raw, &e), "%s", raw)
		return nil, &e
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m, nil
}

func decide(t *testing.T, s *Server, id, verb, body string) (int, map[string]any) {
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(s.Port())+"/approvals/"+id+"/"+verb, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.Credential(creds.Approver))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// setPolicy tightens the policy (a deny rule): an agent may ask for that.
var setPolicy = map[string]any{
	"what": "policy", "op": "set", "timeout_ms": 50,
	"rules": map[string]any{"rules": []any{map[string]any{"effect": "deny", "class": "sensitive", "action": "interact.upload", "origin": "*"}}},
}

func TestGatedCallNeedsApprovalThenRunsOnce(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)

	// Viewing the policy is a read: no approval.
	got, terr := call(t, cs, "configure", map[string]any{"what": "policy", "op": "get"})
	require.Nil(t, terr)
	require.Contains(t, got["file"], "policy.json")

	// Changing it without approval: the structured request, nothing saved.
	_, terr = call(t, cs, "configure", setPolicy)
	require.NotNil(t, terr)
	require.Equal(t, approval.CodeRequired, terr.Code)
	require.Equal(t, "configure.policy", terr.Details.Action)
	id := terr.Details.RequestID
	require.True(t, strings.HasPrefix(id, "req_"), id)
	require.Equal(t, id, terr.NextAction["arguments"].(map[string]any)["approval_id"])
	_, err := os.Stat(filepath.Join(s.cfg.Dir, "policy.json"))
	require.True(t, os.IsNotExist(err), "nothing may change before the user's yes")

	// The user approves from the terminal path; the agent retries.
	code, body := decide(t, s, id, "approve", `{"kind":"once"}`)
	require.Equal(t, 200, code, body)
	apr := body["approval_id"].(string)
	args := map[string]any{"approval_id": apr}
	for k, v := range setPolicy {
		args[k] = v
	}
	// The approved call runs at once; 50 ms (which keeps the unapproved
	// call from waiting on the user) is too short for writing the policy
	// on a loaded machine: it answered still_processing.
	args["timeout_ms"] = 60000
	got, terr = call(t, cs, "configure", args)
	require.Nil(t, terr, "%+v", terr)
	require.EqualValues(t, 1, got["policy"].(map[string]any)["version"])

	// The token is single use.
	_, terr = call(t, cs, "configure", args)
	require.NotNil(t, terr)
	require.Equal(t, "approval_rejected", terr.Code)
	require.Contains(t, terr.Message, "replayed")

	// Another session cannot use a token minted for this one.
	_, terr = call(t, cs, "configure", setPolicy)
	id = terr.Details.RequestID
	_, body = decide(t, s, id, "approve", ``)
	other := client(t, s)
	args["approval_id"] = body["approval_id"]
	_, terr = call(t, other, "configure", args)
	require.NotNil(t, terr)
	require.Contains(t, terr.Message, "other session")

	// The audit log has the calls and decisions, and the request in the
	// words the user was shown (the exact change), not the raw arguments.
	raw, err := os.ReadFile(safety.AuditPath(s.cfg.Dir))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"decision":"approved"`)
	require.Contains(t, string(raw), `"action":"configure.policy"`)
	require.Contains(t, string(raw), `"notes":["adds: Sensitive calls of interact.upload on every site are refused outright`)
	require.NotContains(t, string(raw), `"timeout_ms"`, "arguments are not audited")
}

func TestWaitingCallResumesOnApproval(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	events, stop := s.Approvals().Subscribe()
	defer stop()
	go func() {
		for ev := range events {
			if ev.Type == approval.Requested {
				s.Approvals().Approve(ev.Request.RequestID, approval.Decision{Kind: approval.Once})
				return
			}
		}
	}()
	args := map[string]any{}
	for k, v := range setPolicy {
		args[k] = v
	}
	args["timeout_ms"] = 60000 // the call waits for the user within its budget
	got, terr := call(t, cs, "configure", args)
	require.Nil(t, terr, "%+v", terr)
	require.EqualValues(t, 1, got["policy"].(map[string]any)["version"])
}

func TestDeniedCallChangesNothing(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	_, terr := call(t, cs, "configure", setPolicy)
	code, _ := decide(t, s, terr.Details.RequestID, "deny", `{"reason":"no"}`)
	require.Equal(t, 204, code)
	args := map[string]any{"approval_id": terr.Details.RequestID}
	for k, v := range setPolicy {
		args[k] = v
	}
	_, terr = call(t, cs, "configure", args)
	require.NotNil(t, terr)
	require.Equal(t, "approval_denied", terr.Code)
	_, err := os.Stat(filepath.Join(s.cfg.Dir, "policy.json"))
	require.True(t, os.IsNotExist(err))
}

func TestApprovalEndpointsNeedToken(t *testing.T) {
	s := daemon(t)
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(s.Port())+"/approvals/req_x/approve", bytes.NewReader(nil))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode)
	code, _ := decide(t, s, "req_unknown", "approve", "")
	require.Equal(t, 404, code)
}

func TestStateFileWrittenAndRemoved(t *testing.T) {
	s := daemon(t)
	st, err := state.Read(s.cfg.Dir)
	require.NoError(t, err)
	require.Equal(t, s.Port(), st.Port)
	require.Empty(t, st.LegacyToken, "state.json carries no credential")
	raw, err := os.ReadFile(state.Path(s.cfg.Dir))
	require.NoError(t, err)
	for _, r := range creds.Roles {
		require.NotContains(t, string(raw), s.Credential(r), "state.json must not carry the %s credential", r)
	}
}

// TestEveryGatedModeWaitsForTheUser walks tools/list on the real daemon
// (default policy, no extension): every mutating or sensitive mode called
// without approval comes back approval_required — or, for a call on a tab
// the session cannot use, the tab error that precedes any approval, or
// not_available for a mode this build does not serve — and never runs.
func TestEveryGatedModeWaitsForTheUser(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	res, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	seen := 0
	for _, tl := range res.Tools {
		raw, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Properties struct {
				What struct{ Enum []string } `json:"what"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		for _, what := range schema.Properties.What.Enum {
			m, ok := tools.Lookup(tl.Name, what)
			require.True(t, ok, "%s.%s listed but not in the table", tl.Name, what)
			if !m.Class.Gated() {
				continue
			}
			seen++
			args := m.Example()
			args["what"], args["timeout_ms"] = what, 20
			if op, ok := args["op"].(string); ok && readOnlyOp[op] {
				args["op"] = mutatingOp(m)
			}
			if m.Key() == "configure.redaction" {
				args["pattern"] = "acct-[0-9]+"
			}
			_, terr := call(t, cs, tl.Name, args)
			require.NotNil(t, terr, "%s ran without the user's approval", m.Key())
			switch terr.Code {
			case approval.CodeRequired:
				require.Equal(t, m.Key(), terr.Details.Action)
			case "no_tab", "tab_not_owned", "tab_closed":
				require.Equal(t, "interact", tl.Name, "%s: %s", m.Key(), terr.Message)
			case tools.CodeNotAvailable: // not served by this build: nothing runs
			default:
				t.Errorf("%s: %s (%s); want approval_required", m.Key(), terr.Code, terr.Message)
			}
		}
	}
	require.Greater(t, seen, 20, "the walk found the gated modes")
}

// readOnlyOp are the ops of mutating modes that only read (readOnlyUse).
var readOnlyOp = map[string]bool{"get": true, "list": true, "status": true}

// mutatingOp is the first op of m that changes something.
func mutatingOp(m *tools.Mode) string {
	for _, a := range m.Args {
		if a.Name == "op" {
			for _, v := range a.Enum {
				if !readOnlyOp[v] {
					return v
				}
			}
		}
	}
	return "set"
}

// The guards are the user's: an agent cannot loosen the policy or remove
// a redaction pattern, approval or not; nothing is asked, nothing saved.
func TestAgentCannotLoosenTheGuards(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	loosen := map[string]any{"what": "policy", "op": "set", "timeout_ms": 50,
		"rules": map[string]any{"rules": []any{map[string]any{"effect": "allow", "class": "*", "action": "*", "origin": "*"}}}}
	_, terr := call(t, cs, "configure", loosen)
	require.NotNil(t, terr)
	require.Equal(t, safety.CodeUserOnly, terr.Code, terr.Message)
	require.Contains(t, terr.Message, "gasoline-host policy")
	_, terr = call(t, cs, "configure", map[string]any{"what": "redaction", "op": "remove_pattern", "pattern": "user_1", "timeout_ms": 50})
	require.NotNil(t, terr)
	require.Equal(t, safety.CodeUserOnly, terr.Code, terr.Message)
	require.Contains(t, terr.Message, "gasoline-host redaction remove 'user_1'")
	require.Empty(t, s.Approvals().Pending(""), "nothing was put to the user")
	_, err := os.Stat(filepath.Join(s.cfg.Dir, "policy.json"))
	require.True(t, os.IsNotExist(err), "nothing was saved")

	// Tightening is asked, with the exact change.
	_, terr = call(t, cs, "configure", setPolicy)
	require.Equal(t, approval.CodeRequired, terr.Code)
	p := s.Approvals().Pending("")
	require.Len(t, p, 1)
	require.Equal(t, "change the approval policy: add 1 rule (each below)", p[0].Target)
	require.Equal(t, []string{"adds: Sensitive calls of interact.upload on every site are refused outright (deny sensitive interact.upload *)"}, p[0].Notes)
	require.Contains(t, p[0].Detail, `"effect": "deny"`)
	require.Equal(t, []approval.Kind{approval.Once}, p[0].Offers, "a change of the guards is approved every time")
}
