package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/gasoline-mcp/gasoline/internal/target"
)

// fakeTab answers the CDP commands the Snapshotter sends, per session:
// its walker returns canned records, its elements have backend ids, and
// tests can remove elements, kill worlds or make a frame out of process.
type fakeTab struct {
	mu       sync.Mutex
	records  map[string]string // session → walker records
	frames   map[string]string // session → its main frame id
	backend  map[int]int       // ref → backend node id; absent = removed
	iframe   map[int]string    // ref of an iframe → its frame id
	dead     map[int]bool      // execution contexts that are gone
	ctxs     int
	calls    []string // methods, in order
	rendered *bool    // what the page says of its first content (nil: drawn)
	keepNext bool     // the walker answers the next it was given
	walks    []map[string]any
	walker   map[int]int // execution context → times the walker was installed in it
}

func newFakeTab() *fakeTab {
	return &fakeTab{records: map[string]string{}, frames: map[string]string{"": "MAIN"},
		backend: map[int]int{}, iframe: map[int]string{}, dead: map[int]bool{}, walker: map[int]int{}}
}

// killWorlds makes every execution context so far gone (a navigation).
func (f *fakeTab) killWorlds() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := 1; i <= f.ctxs; i++ {
		f.dead[i] = true
	}
}

func (f *fakeTab) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.calls {
		if m == method {
			n++
		}
	}
	return n
}

// Call makes the fake a cdp.Caller, the extension link's side: every
// command a target's session (or child session) sends arrives here as
// cdp.send and is answered as Chrome would.
func (f *fakeTab) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	if method != "cdp.send" {
		return nil, fmt.Errorf("fake: unexpected link method %s", method)
	}
	var send struct {
		Method    string         `json:"method"`
		Params    map[string]any `json:"params"`
		SessionID string         `json:"session_id"`
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &send); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.calls = append(f.calls, send.Method)
	reply, err := f.answer(send.SessionID, send.Method, send.Params)
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return jsonv2.Marshal(reply)
}

// testSnap is a Snapshotter over the fake, its tab's target held by a
// target set as the tab manager holds it.
type testSnap struct {
	*Snapshotter
	set *target.Set
}

func newTestSnapshotter(f *fakeTab) testSnap {
	set := target.NewSet(context.Background(), target.Config{Caller: f})
	return testSnap{New(Config{Target: set.Get}), set}
}

// Invalidate is what the daemon does when the tab's main frame navigates.
func (s testSnap) Invalidate(tab int) { Invalidate(s.set.Get(tab)) }

// Forget closes the tab's target (it left its session).
func (s testSnap) Forget(tab int) { s.set.Close(tab) }

// attach reports an out-of-process iframe's child session to the tab's
// target, as the extension does.
func (s testSnap) attach(tab int, session, frame string) {
	s.set.Get(tab)
	s.set.Event(tab, "", "Target.attachedToTarget", json.RawMessage(
		`{"sessionId":"`+session+`","targetInfo":{"targetId":"`+frame+`","type":"iframe","title":"","url":"","attached":true,"canAccessOpener":false},"waitingForDebugger":false}`))
}

func (s testSnap) detach(tab int, session string) {
	s.set.Event(tab, "", "Target.detachedFromTarget", json.RawMessage(`{"sessionId":"`+session+`"}`))
}

func (f *fakeTab) answer(sid, method string, p map[string]any) (any, error) {
	switch method {
	case "Page.getFrameTree":
		return map[string]any{"frameTree": map[string]any{"frame": map[string]any{"id": f.frames[sid], "loaderId": "L", "url": "http://x/", "domainAndRegistry": "", "securityOrigin": "http://x", "mimeType": "text/html", "secureContextType": "Secure", "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []string{}}}}, nil
	case "Page.createIsolatedWorld":
		f.ctxs++
		return map[string]any{"executionContextId": f.ctxs}, nil
	case "Runtime.releaseObjectGroup":
		return map[string]any{}, nil
	case "DOM.describeNode":
		ref, _ := atoi(strings.TrimPrefix(p["objectId"].(string), "obj-"))
		return map[string]any{"node": map[string]any{"nodeId": 0, "backendNodeId": f.backend[ref], "nodeType": 1, "nodeName": "IFRAME", "localName": "iframe", "nodeValue": "", "frameId": f.iframe[ref]}}, nil
	case "Runtime.callFunctionOn":
		return f.call(sid, p)
	}
	return nil, fmt.Errorf("fake: unexpected %s", method)
}

func (f *fakeTab) call(sid string, p map[string]any) (any, error) {
	if ec := int(p["executionContextId"].(float64)); f.dead[ec] {
		return nil, errors.New("cdp_error: Cannot find context with specified id")
	}
	ec := int(p["executionContextId"].(float64))
	if p["functionDeclaration"] == installWalkerJS() {
		f.walker[ec]++
		return map[string]any{"result": map[string]any{"type": "boolean", "value": true}}, nil
	}
	args := p["arguments"].([]any)
	arg := args[0].(map[string]any)["value"]
	switch p["functionDeclaration"] {
	case walkCallJS:
		if f.walker[ec] == 0 {
			return map[string]any{"result": map[string]any{"type": "object"}, "exceptionDetails": map[string]any{"text": "Uncaught", "exceptionId": 1, "lineNumber": 0, "columnNumber": 0}}, nil
		}
		a := arg.(map[string]any)
		f.walks = append(f.walks, a)
		if r, ok := a["rootRef"].(float64); ok {
			if _, live := f.backend[int(r)]; !live {
				return map[string]any{"result": map[string]any{"type": "object", "value": map[string]any{"gone": true}}}, nil
			}
		}
		next := int(a["next"].(float64))
		recs := f.records[sid]
		for strings.Contains(recs, "{n}") { // fresh refs, numbered from next, then kept
			recs = strings.Replace(recs, "{n}", fmt.Sprint(next), 1)
			next++
		}
		f.records[sid] = recs
		for _, l := range strings.Split(recs, "\n") {
			if fs := strings.Split(l, "\t"); len(fs) == 6 && fs[4] != "" {
				n, _ := atoi(fs[4])
				next = max(next, n+1)
			}
		}
		if f.keepNext { // the page's world kept numbers from a walk that was not committed
			next = int(a["next"].(float64))
		}
		_, waits := a["render"]
		return map[string]any{"result": map[string]any{"type": "object", "value": map[string]any{"records": recs, "next": next, "nodes": 1, "ms": 1.5,
			"notRendered": waits && f.rendered != nil && !*f.rendered}}}, nil
	case resolveJS:
		ref := int(arg.(float64))
		id, ok := f.backend[ref]
		if !ok {
			return map[string]any{"result": map[string]any{"type": "object", "subtype": "null", "value": nil}}, nil
		}
		if _, deep := p["serializationOptions"]; deep {
			return map[string]any{"result": map[string]any{"type": "object", "subtype": "node", "objectId": fmt.Sprint("obj-", ref),
				"deepSerializedValue": map[string]any{"type": "node", "value": map[string]any{"backendNodeId": id}}}}, nil
		}
		return map[string]any{"result": map[string]any{"type": "object", "subtype": "node", "objectId": fmt.Sprint("obj-", ref)}}, nil
	case frameJS:
		for ref, frame := range f.iframe {
			if frame != "" && arg == "#"+frame {
				return map[string]any{"result": map[string]any{"type": "object", "subtype": "node", "objectId": fmt.Sprint("obj-", ref)}}, nil
			}
		}
		return map[string]any{"result": map[string]any{"type": "object", "subtype": "null", "value": nil}}, nil
	}
	return nil, errors.New("fake: unknown function")
}

func atoi(s string) (int, error) {
	var n int
	_, err := fmt.Sscan(s, &n)
	return n, err
}
