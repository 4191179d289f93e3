package actions

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/target/targettest"
)

// pageFake answers the commands of a click or a prompt's look at a
// selector on a fake link: a world, the helpers, and the page functions
// by what they run (fns maps a piece of a function's source to its
// result); every function run is recorded.
type pageFake struct {
	mu  sync.Mutex
	ran []string
}

func (p *pageFake) install(link *targettest.Link, fns map[string]string) {
	link.CDP["Page.createIsolatedWorld"] = func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"executionContextId":5}`), nil
	}
	link.CDP["Runtime.callFunctionOn"] = func(_ int, _ string, raw json.RawMessage) (any, error) {
		var c struct{ FunctionDeclaration string }
		_ = json.Unmarshal(raw, &c)
		p.mu.Lock()
		p.ran = append(p.ran, c.FunctionDeclaration)
		p.mu.Unlock()
		for piece, res := range fns {
			if strings.Contains(c.FunctionDeclaration, piece) {
				return json.RawMessage(`{"result":` + res + `}`), nil
			}
		}
		return json.RawMessage(`{"result":{"type":"undefined"}}`), nil
	}
}

func (p *pageFake) functions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ran...)
}

// A click reads the page's url and title for its answer in the round trip
// that waits for what it set moving (settleJS), not in a probe of its own
// after it: the answer reports the title the click set, and the only
// Runtime.evaluate sent is the helpers' install.
func TestClickReadsTheAfterStateWhileSettling(t *testing.T) {
	e, _, link := fakeEngine(t, func(_ int, _ string, raw json.RawMessage) (any, error) {
		if strings.Contains(string(raw), "location.href") { // the after probe: the page as it was
			return json.RawMessage(`{"result":{"type":"object","value":{"u":"http://127.0.0.1/page","t":"Before"}}}`), nil
		}
		return json.RawMessage(`{"result":{"type":"undefined"}}`), nil
	})
	link.CDP["DOM.getNodeForLocation"] = func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"backendNodeId":42,"frameId":"MAIN"}`), nil
	}
	var p pageFake
	p.install(link, map[string]string{
		"G.prepare(el, o)": `{"type":"object","objectId":"W1","deepSerializedValue":{"type":"object","value":[` +
			`["el",{"type":"node","value":{"backendNodeId":42}}],["desc",{"type":"string","value":"tab \"Open\""}],` +
			`["visible",{"type":"boolean","value":true}],["inMain",{"type":"boolean","value":true}],` +
			`["x",{"type":"number","value":10}],["y",{"type":"number","value":20}],` +
			`["u",{"type":"string","value":"http://127.0.0.1/page"}],["t",{"type":"string","value":"Before"}]]}}`,
		"getAnimations": `{"type":"object","value":{"s":true,"u":"http://127.0.0.1/page","t":"After"}}`,
	})
	r, err := e.Click(t.Context(), 7, ClickArgs{Target: Target{Selector: `role=tab[name="Open"]`}})
	require.NoError(t, err)
	assert.Equal(t, `clicked tab "Open"`, r.Message)
	require.NotNil(t, r.Changes.Title, "the title the click set is in the answer: %s", r.Text())
	assert.Equal(t, Delta{From: "Before", To: "After"}, *r.Changes.Title)
	assert.Nil(t, r.Changes.URL)
	assert.Equal(t, 1, link.Count("Runtime.evaluate"), "the helpers' install only: no after probe (%v)", link.Calls())
	assert.Equal(t, 2, link.Count("Input.dispatchMouseEvent"))
}

// A prompt's look at a selector finds the element and names it in one
// round trip in its frame's world.
func TestSeeFindsAndNamesInOneRoundTrip(t *testing.T) {
	e, _, link := fakeEngine(t, value(nil))
	var p pageFake
	p.install(link, map[string]string{
		"G.sees(G.find(q, false), how)": `{"type":"object","value":{"d":"button \"Pay\"","e":{"found":true,"submits":true,"action":"https://shop.example/pay"}}}`,
	})
	s, err := e.See(t.Context(), 7, Target{Selector: "#pay"}, HowClick)
	require.NoError(t, err)
	assert.Equal(t, `button "Pay"`, s.Desc)
	assert.Equal(t, Effect{Found: true, Submits: true, Action: "https://shop.example/pay"}, s.Effect)
	assert.Len(t, p.functions(), 1, "one page function run: %v", p.functions())
}
