package pagetools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestMain fails the package's tests when a goroutine outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The fake wire: a tab (7) whose page has a main frame F1 on
// http://a.test, a same-origin frame F2 and a frame F3 of another origin.
// Chrome's answers are scripted per test; events are handed to the
// Manager as the extension link would.

const tab = 7

type fakePage struct {
	t      *testing.T
	m      *Manager
	mu     sync.Mutex
	sent   []string                       // CDP methods, in order
	sweeps map[string]string              // frame → sweep.js's answer (JSON)
	invoke func(frame, name string) event // what the page does when a tool is invoked
	// order is when the page's answer comes: "" after invokeTool's own
	// answer; "early" before it, after toolInvoked; "unannounced" before
	// it, with no toolInvoked at all.
	order string
	ids   int
	late  map[string]event // answers held until the call knows its id
}

// event is what the page sends back for an invocation: a method and its
// params, or nothing (the tool hangs).
type event struct {
	method string
	params string
}

func newPage(t *testing.T) *fakePage {
	p := &fakePage{t: t, sweeps: map[string]string{}, late: map[string]event{}}
	m, err := New(Config{Tabs: p, Lock: func(context.Context, int) (func(), error) { return func() {}, nil },
		Audit: func(audit.Entry) error { return nil }})
	require.NoError(t, err)
	p.m = m
	m.boundHook = func(id string) {
		p.mu.Lock()
		ev, ok := p.late[id]
		delete(p.late, id)
		p.mu.Unlock()
		if ok {
			p.emit(ev.method, ev.params)
		}
	}
	require.NoError(t, m.Enable(t.Context(), p.session()))
	return p
}

func (p *fakePage) session() *cdp.Session { return cdp.NewRouter().Session(p, tab) }

// Session and Resolve are Tabs.
func (p *fakePage) Session(context.Context, string, int) (*cdp.Session, error) {
	return p.session(), nil
}
func (p *fakePage) Resolve(string, int) (int, bool) { return tab, true }

// emit hands an event of the top-level session to the Manager.
func (p *fakePage) emit(method, params string) {
	p.m.Event("cdp.event", tab, "", method, json.RawMessage(params))
}

func (p *fakePage) methods() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

// Call is cdp.Caller: the scripted Chrome.
func (p *fakePage) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	raw, _ := json.Marshal(params)
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	json.Unmarshal(raw, &req)
	p.mu.Lock()
	p.sent = append(p.sent, req.Method)
	p.mu.Unlock()
	switch req.Method {
	case "WebMCP.enable", "WebMCP.cancelInvocation":
		return json.RawMessage(`{}`), nil
	case "Page.getFrameTree":
		return json.RawMessage(`{"frameTree":{"frame":{"id":"F1","loaderId":"L","url":"http://a.test/","securityOrigin":"http://a.test","mimeType":"text/html"},
			"childFrames":[{"frame":{"id":"F2","parentId":"F1","loaderId":"L","url":"http://a.test/f","securityOrigin":"http://a.test","mimeType":"text/html"}},
			{"frame":{"id":"F3","parentId":"F1","loaderId":"L","url":"http://b.test/","securityOrigin":"http://b.test","mimeType":"text/html"}}]}}`), nil
	case "Page.createIsolatedWorld":
		var w struct{ FrameID string }
		json.Unmarshal(req.Params, &w)
		p.mu.Lock()
		p.sent = append(p.sent, "world "+w.FrameID)
		p.mu.Unlock()
		return json.RawMessage(fmt.Sprintf(`{"executionContextId":%d}`, map[string]int{"F1": 1, "F2": 2, "F3": 3}[w.FrameID])), nil
	case "Runtime.evaluate":
		var ev struct{ ContextID int }
		json.Unmarshal(req.Params, &ev)
		frame := []string{"", "F1", "F2", "F3"}[ev.ContextID]
		ans := p.sweeps[frame]
		if ans == "" {
			ans = `{"webmcp":true,"tools":[]}`
		}
		return json.RawMessage(`{"result":{"type":"object","value":` + ans + `}}`), nil
	case "WebMCP.invokeTool":
		var in struct{ FrameID, ToolName string }
		json.Unmarshal(req.Params, &in)
		p.mu.Lock()
		p.ids++
		id := fmt.Sprintf("inv%d", p.ids)
		p.mu.Unlock()
		if p.order != "unannounced" {
			p.emit(evToolInvoked, fmt.Sprintf(`{"toolName":%q,"frameId":%q,"invocationId":%q,"input":"{}"}`, in.ToolName, in.FrameID, id))
		}
		ev := p.invoke(in.FrameID, in.ToolName)
		if ev.method == "" {
			return json.RawMessage(`{"invocationId":"` + id + `"}`), nil // the tool hangs
		}
		if ev.method == evToolResponded {
			ev.params = fmt.Sprintf(ev.params, id)
		}
		if p.order == "" {
			p.mu.Lock()
			p.late[id] = ev
			p.mu.Unlock()
		} else {
			p.emit(ev.method, ev.params)
		}
		return json.RawMessage(`{"invocationId":"` + id + `"}`), nil
	}
	return nil, fmt.Errorf("unexpected %s", req.Method)
}

// call builds a dispatcher call of interact call_page_tool for session s1.
func call(t *testing.T, args string) *mcpserver.Call {
	t.Helper()
	tc, e := tools.Parse("interact", json.RawMessage(args))
	require.Nil(t, e, args)
	m := session.New(t.Context(), &session.Options{})
	t.Cleanup(m.Wait)
	s, _, _, err := m.Attach("s1", session.Transport("test"))
	require.NoError(t, err)
	return &mcpserver.Call{Call: tc, Session: s}
}

// addTools has Chrome report tools (JSON tool objects).
func (p *fakePage) addTools(tools ...string) {
	p.emit(evToolsAdded, `{"tools":[`+strings.Join(tools, ",")+`]}`)
}
