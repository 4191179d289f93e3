package bridge

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// capTests names, for every store the daemon reports (Server.Memory), the
// test that fills it past its cap and checks that it holds it: a package
// directory under the repository and a test function in it. What is kept
// per tab is bounded by the tabs held and per session by the sessions
// kept; their test closes tabs and ends sessions in the real chain and
// checks that nothing is left.
var capTests = map[string]string{
	"session.sessions":          "internal/session TestManagerHoldsItsSessionCap",
	"session.results":           "internal/session TestResultsHoldTheirCaps",
	"mcpserver.sse_sessions":    "internal/mcpserver TestHTTPSessionEventsStayBounded",
	"mcpserver.sse_streams":     "internal/mcpserver TestEventStoreHoldsItsStreamCap TestEventStoreHoldsItsByteCap",
	"capture.tabs":              "internal/capture TestEveryBufferHoldsItsCap TestForgetAndMaxTabs",
	"capture.entries":           "internal/capture TestStoreHoldsItsByteCap TestStoreByteCountUnderConcurrency",
	"capture.console":           "internal/capture TestEveryBufferHoldsItsCap TestFloodStaysBounded",
	"capture.exception":         "internal/capture TestEveryBufferHoldsItsCap",
	"capture.network":           "internal/capture TestEveryBufferHoldsItsCap",
	"capture.websocket":         "internal/capture TestEveryBufferHoldsItsCap",
	"capture.dialog":            "internal/capture TestEveryBufferHoldsItsCap",
	"capture.navigation":        "internal/capture TestEveryBufferHoldsItsCap",
	"capture.action":            "internal/capture TestEveryBufferHoldsItsCap",
	"capture.open_requests":     "internal/capture TestPendingAndOpenBound",
	"capture.error_groups":      "internal/capture TestEveryBufferHoldsItsCap",
	"tabs.owned":                "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"tabs.sessions":             "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"tabs.gone":                 "internal/tabs TestRegistryEndSessionAndGoneBound",
	"tabs.urls":                 "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"tabs.attach":               "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"tabs.watched":              "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"tabs.opening":              "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"snapshot.tabs":             "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"snapshot.navigations":      "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"snapshot.refs":             "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"snapshot.history":          "internal/snapshot TestHistoryIsBounded",
	"snapshot.child_tabs":       "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"actions.tabs":              "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"observe.capture_locks":     "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"observe.feed_tabs":         "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"observe.feed_children":     "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"cdp.subscriptions":         "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"browsers.known":            "internal/browsers TestHubHoldsItsCaps",
	"browsers.connected":        "internal/browsers TestHubHoldsItsCaps",
	"browsers.tabs_in_flight":   "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"browsers.revoked_tabs":     "internal/browsers TestHubHoldsItsCaps",
	"approval.pending":          "internal/approval TestEngineHoldsItsCaps",
	"approval.decided":          "internal/approval TestEngineHoldsItsCaps",
	"approval.tokens":           "internal/approval TestEngineHoldsItsCaps",
	"approval.grants":           "internal/approval TestEngineHoldsItsCaps",
	"safety.redaction_counters": "internal/safety TestRedactionCountersHoldTheirCap",
	"redact.key_cache":          "internal/redact TestKeyCacheHoldsItsCap",
	"recorder.tabs":             "internal/e2e TestE2EClosedTabsAndEndedSessionsLeaveNothing",
	"recorder.sessions":         "internal/recorder TestRecorderHoldsItsCaps",
	"recorder.recordings":       "internal/recorder TestRecorderHoldsItsCaps",
	"export.sessions":           "internal/export TestRecorderHoldsItsCaps",
	"export.ended_sessions":     "internal/export TestRecorderForgetsAnEndedSession",
	"export.actions":            "internal/export TestRecorderHoldsItsCaps",
	"export.calls":              "internal/export TestRecorderHoldsItsCaps",
	"export.decisions":          "internal/export TestRecorderHoldsItsCaps",
	"watch.dedupe_keys":         "internal/watch TestWatcherHoldsItsCaps",
	"watch.recent":              "internal/watch TestWatcherHoldsItsCaps",
	"watch.fired":               "internal/watch TestRateLimitAndDedupe",
	"agent.conversations":       "internal/agent TestChatHoldsItsCaps",
	"agent.events":              "internal/agent TestChatHoldsItsCaps",
	"terminal.views":            "internal/terminal TestViewLimitAndUnavailable",
}

// TestEveryStoreHasACapTest is a house rule: every store the daemon
// reports names a test that fills it past its cap, and that test exists. A
// store added to the report without one fails here; so does a renamed or
// deleted test.
func TestEveryStoreHasACapTest(t *testing.T) {
	s := daemon(t)
	reported := map[string]bool{}
	for _, st := range s.Memory().Stores {
		reported[st.Name] = true
		where, ok := capTests[st.Name]
		if !ok {
			t.Errorf("store %s has no cap test: write one that fills it past its cap, and name it in capTests", st.Name)
			continue
		}
		dir, names, _ := strings.Cut(where, " ")
		tests := testFuncs(t, dir)
		for _, name := range strings.Fields(names) {
			if !tests[name] {
				t.Errorf("store %s: no test %s in %s", st.Name, name, dir)
			}
		}
		if st.Cap <= 0 && !perTabStore(st.Name) {
			t.Errorf("store %s reports no cap", st.Name)
		}
	}
	for name := range capTests {
		if !reported[name] {
			t.Errorf("capTests names %s, which the daemon does not report", name)
		}
	}
}

// perTabStore: a store kept per tab is bounded by the tabs held, which
// may be none.
func perTabStore(name string) bool {
	switch name {
	case "tabs.owned", "tabs.urls", "tabs.attach", "snapshot.tabs", "snapshot.navigations", "snapshot.refs",
		"snapshot.child_tabs", "actions.tabs", "observe.capture_locks", "observe.feed_tabs", "observe.feed_children",
		"recorder.tabs":
		return true
	}
	return false
}

// testFuncs lists the Test functions of a package directory.
func testFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	files, err := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no tests in %s", dir)
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		parsed, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range parsed.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				out[fn.Name.Name] = true
			}
		}
	}
	return out
}

// TestMemoryReport: /debug/memory answers the approver with the runtime's
// figures and every store within its cap; configure health carries the
// live heap and the stores holding anything.
func TestMemoryReport(t *testing.T) {
	s := daemon(t)
	cs := client(t, s)
	got, terr := call(t, cs, "configure", map[string]any{"what": "health"})
	require.Nil(t, terr)
	mem, ok := got["memory"].(map[string]any)
	require.True(t, ok, "configure health has no memory: %v", got)
	require.Positive(t, mem["heap_live_bytes"])
	require.Positive(t, mem["goroutines"])
	require.Positive(t, mem["stores"].(map[string]any)["session.sessions"], "the calling session is kept")

	req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(s.Port())+"/debug/memory", nil)
	req.Header.Set("Authorization", "Bearer "+s.Credential(creds.Approver))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var rep memory.Report
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&rep))
	require.Positive(t, rep.Runtime.HeapLive)
	require.Positive(t, rep.Runtime.Mapped)
	require.NotEmpty(t, rep.Stores)
	for _, st := range rep.Stores {
		require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
	}

	req, _ = http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(s.Port())+"/debug/pprof/heap?gc=1", nil)
	req.Header.Set("Authorization", "Bearer "+s.Credential(creds.Approver))
	resp2, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp2.Body.Close()
	require.Equal(t, http.StatusOK, resp2.StatusCode)
	var magic [2]byte
	_, err = resp2.Body.Read(magic[:])
	require.NoError(t, err)
	require.Equal(t, [2]byte{0x1f, 0x8b}, magic, "a gzipped pprof profile")
}

// TestDaemonReleasesAtRest: once nothing happened for RestAfter, the
// daemon hands memory back (Release), and again after the next burst.
func TestDaemonReleasesAtRest(t *testing.T) {
	released := make(chan struct{}, 64)
	s := daemonWith(t, Config{RestAfter: 20 * time.Millisecond, Release: func() { released <- struct{}{} }})
	waitRelease := func(what string) {
		t.Helper()
		select {
		case <-released:
		case <-time.After(10 * time.Second):
			t.Fatalf("no release at rest %s", what)
		}
	}
	waitRelease("after start")
	cs := client(t, s)
	for len(released) > 0 { // releases between the client's requests
		<-released
	}
	_, terr := call(t, cs, "configure", map[string]any{"what": "health"})
	require.Nil(t, terr)
	waitRelease("after a call")
}
