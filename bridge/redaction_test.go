package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/safety"
)

const (
	tGitHub = "ghp_R8x2Lq9Vt4Wm6Yp1Zs3Ka5Nb7Dc0Ef2Gh4Jk"
	tJWT    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

// rawCall returns the whole result of a tool call, as the client sees it.
func rawCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	raw, _ := json.Marshal(res)
	return res, string(raw)
}

// TestApprovalPromptAndResultsRedacted: a secret in a gated call's
// arguments never reaches the approval request (result, panel list,
// audit log); the counters count it.
func TestApprovalPromptAndResultsRedacted(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	url := "https://shop.example/cb?access_token=" + tGitHub + "&page=2"
	res, raw := rawCall(t, cs, "interact", map[string]any{"what": "navigate", "url": url, "timeout_ms": 50})
	require.True(t, res.IsError)
	require.Contains(t, raw, approval.CodeRequired, raw)
	require.NotContains(t, raw, tGitHub, "the tool result (text and structured) is redacted")

	pending := s.Approvals().Pending("")
	require.Len(t, pending, 1)
	require.NotContains(t, pending[0].Target+pending[0].Reason, tGitHub, "the panel's prompt is redacted")

	audit, err := os.ReadFile(safety.AuditPath(s.cfg.Dir))
	require.NoError(t, err)
	require.NotContains(t, string(audit), tGitHub)

	st := s.panelStatus()["redaction"].(map[string]any)
	require.Equal(t, redact.DefaultVersion, st["policy_version"])
	require.Greater(t, st["redacted_count"].(int64), int64(0))

	got, terr := call(t, cs, "configure", map[string]any{"what": "redaction", "op": "get"})
	require.Nil(t, terr)
	require.Equal(t, redact.DefaultVersion, got["policy_version"])
	require.Greater(t, got["redacted_count"].(float64), 0.0, "the session's own counters: %v", got)
	require.IsType(t, map[string]any{}, got["counters"], "the session's breakdown survives the server stage: %v", got)
	require.EqualValues(t, 0, got["blocked_count"])
}

// TestBrokenRedactionPolicyBlocksOutput: a policy that does not parse
// blocks every result with redaction_failed (never passes it through),
// counts the blocks, and says how to fix it.
func TestBrokenRedactionPolicyBlocksOutput(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	require.NoError(t, os.WriteFile(filepath.Join(s.cfg.Dir, redact.FileName), []byte(`{"version":`), 0o600))
	require.ErrorIs(t, s.safe.ReloadRedaction(), redact.ErrPolicy)

	for _, args := range []map[string]any{
		{"what": "health"},
		{"what": "redaction", "op": "get"},
	} {
		res, raw := rawCall(t, cs, "configure", args)
		require.True(t, res.IsError, raw)
		require.Contains(t, raw, mcpserver.CodeRedactionFailed)
		require.Contains(t, raw, "redaction policy")
		require.NotContains(t, raw, `"pid"`, "the result is blocked, not passed through")
	}
	st := s.panelStatus()["redaction"].(map[string]any)
	require.GreaterOrEqual(t, st["blocked_count"].(int64), int64(2))
	require.Contains(t, st["error"], "blocked")

	// Capture fails closed too: the entry is dropped.
	_, err := s.safe.CaptureRedactor(capture.KindConsole, capture.ConsoleEntry{Text: "token " + tGitHub})
	require.Error(t, err)

	// A fixed file is picked up; output flows again.
	require.NoError(t, os.Remove(filepath.Join(s.cfg.Dir, redact.FileName)))
	require.NoError(t, s.safe.ReloadRedaction())
	res, raw := rawCall(t, cs, "configure", map[string]any{"what": "health"})
	require.False(t, res.IsError, raw)
}

// TestCaptureEntriesRedacted: the capture hook redacts every text and URL
// field of every entry kind.
func TestCaptureEntriesRedacted(t *testing.T) {
	s := daemon(t)
	entries := []any{
		capture.ConsoleEntry{Text: "auth " + tJWT, URL: "https://a.test/x?token=" + tGitHub, Stack: []capture.Frame{{URL: "https://a.test/?api_key=" + tGitHub}}},
		capture.Exception{Message: "Error: bad key " + tGitHub},
		capture.Request{URL: "https://a.test/cb?access_token=" + tGitHub, InitiatorURL: "https://a.test/?session=" + tGitHub},
		capture.WebSocketEvent{Payload: `{"token":"` + tGitHub + `"}`, URL: "wss://a.test/?auth=" + tGitHub},
		capture.Dialog{Message: "your key is " + tGitHub, DefaultPrompt: tJWT, UserInput: tJWT},
		capture.Navigation{URL: "https://a.test/#access_token=" + tGitHub},
	}
	for _, e := range entries {
		out, err := s.safe.CaptureRedactor("x", e)
		require.NoError(t, err)
		raw, _ := json.Marshal(out)
		require.NotContains(t, string(raw), tGitHub, "%T", e)
		require.NotContains(t, string(raw), tJWT, "%T", e)
		require.IsType(t, e, out)
	}
	// Markers the host's source stage left are not counted again: the host
	// reports its own counts (TestSourceCountsFromHost).
	before := s.safe.RedactionStatus("")["total"]
	out, err := s.safe.CaptureRedactor("x", capture.ConsoleEntry{Text: "a [REDACTED:jwt] b [REDACTED:cookie]"})
	require.NoError(t, err)
	require.Equal(t, "a [REDACTED:jwt] b [REDACTED:cookie]", out.(capture.ConsoleEntry).Text)
	require.Equal(t, before, s.safe.RedactionStatus("")["total"])
	_, err = s.safe.CaptureRedactor("x", struct{}{})
	require.ErrorIs(t, err, redact.ErrBlocked, "an unknown entry type is refused")

	// A document's kept headers (Headers is not in JSON) pass too, in a
	// copy: the entry handed in is not changed.
	in := capture.Request{Headers: map[string]string{"content-security-policy": "report-uri https://a.test/r?token=" + tGitHub}}
	out, err = s.safe.CaptureRedactor("x", in)
	require.NoError(t, err)
	require.NotContains(t, out.(capture.Request).Headers["content-security-policy"], tGitHub)
	require.Contains(t, in.Headers["content-security-policy"], tGitHub)
}

// TestConfigureRedactionPatterns: adding a user pattern is gated, then in
// force for every output; removing it works by label.
func TestConfigureRedactionPatterns(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	args := map[string]any{"what": "redaction", "op": "add_pattern", "pattern": `\bEMP-\d{6}\b`, "timeout_ms": 50}
	_, terr := call(t, cs, "configure", args)
	require.NotNil(t, terr)
	require.Equal(t, approval.CodeRequired, terr.Code)
	code, body := decide(t, s, terr.Details.RequestID, "approve", `{"kind":"once"}`)
	require.Equal(t, 200, code)
	args["approval_id"] = body["approval_id"]
	args["timeout_ms"] = 60000 // the approved call runs at once; 50 ms is too short on a loaded machine
	got, terr := call(t, cs, "configure", args)
	require.Nil(t, terr, "%+v", terr)
	require.Equal(t, redact.DefaultVersion+"+1", got["policy_version"])
	out, err := s.safe.Server().Text("", "badge EMP-123456")
	require.NoError(t, err)
	require.Equal(t, "badge [REDACTED:user_1]", out)
	require.True(t, strings.HasSuffix(got["file"].(string), redact.FileName))
}

// TestSourceCountsFromHost: a native host's redaction.counts event adds to
// the daemon's total (panel.status) and to the counters of the session
// owning each tab; a tab no session owns counts in the total only; other
// stages and malformed reports are refused.
func TestSourceCountsFromHost(t *testing.T) {
	s := daemon(t)
	require.True(t, s.Tabs().Registry().Own("sess-a", 7))
	ev := func(params string) {
		s.onExtensionEvent(nil, extlink.Event{Method: "redaction.counts", Params: json.RawMessage(params)})
	}
	ev(`{"stage":"source","tabs":[{"tab_id":7,"redacted":3,"blocked":1,"by_class":{"github_token":2,"jwt":1}},{"tab_id":9,"redacted":2,"by_class":{"cookie":2}}]}`)
	ev(`{"stage":"source","tabs":[{"tab_id":7,"redacted":1,"by_class":{"jwt":1}}]}`)
	// Refused: another stage, negative numbers, junk.
	ev(`{"stage":"server","tabs":[{"tab_id":7,"redacted":50}]}`)
	ev(`{"stage":"source","tabs":[{"tab_id":7,"redacted":-5,"blocked":-2}]}`)
	ev(`not json`)

	st := s.panelStatus()["redaction"].(map[string]any)
	require.EqualValues(t, 6, st["redacted_count"], "%v", st)
	require.EqualValues(t, 1, st["blocked_count"])
	tot := st["total"].(redact.Snapshot)
	require.Equal(t, redact.StageCount{Redacted: 6, Blocked: 1}, tot.ByStage[redact.StageSource])
	require.Equal(t, map[string]int64{"github_token": 2, "jwt": 2, "cookie": 2}, tot.ByClass)

	sess := s.safe.RedactionStatus("sess-a")
	require.EqualValues(t, 4, sess["redacted_count"], "tab 7's counts only: %v", sess)
	require.EqualValues(t, 1, sess["blocked_count"])
	snap := sess["counters"].(redact.Snapshot)
	require.Equal(t, redact.StageCount{Redacted: 4, Blocked: 1}, snap.ByStage[redact.StageSource])
	require.Equal(t, map[string]int64{"github_token": 2, "jwt": 2}, snap.ByClass)
	require.Equal(t, redact.DefaultVersion, snap.PolicyVersion)
}
