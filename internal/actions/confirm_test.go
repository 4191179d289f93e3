package actions

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/target/targettest"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// crossFrame is the frame (and target) id of the fake out-of-process
// frame; its child session is "S1".
const crossFrame = "0123456789ABCDEF0123456789ABCDEF"

// steppingClock is a clock that moves on by step at each reading.
func steppingClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	at := time.Unix(0, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(step)
		return at
	}
}

// oopifBrowser fakes a tab with one out-of-process frame holding a button
// (backend node 42) inside an iframe (backend node 7). Both renderers'
// hit tests say the button is at the click's point; where Chrome routes
// each press or move is route's answer, by try (1, 2, …): "frame" (on
// the button), "frame-body" (elsewhere in the frame), "parent" (on the
// iframe element in the page), "nowhere" (neither saw it) or "gone" (the
// frame's document was replaced); for a press, "taken" (the frame's page
// took it before the arm saw it, the pointer on the button),
// "taken-body" (the same, the pointer elsewhere in the frame) or
// "taken-parent" (the page around the frame took it).
type oopifBrowser struct {
	route func(try int) string
	// main puts the button in the tab's main frame (the tab's hit test
	// finds it).
	main bool
	// below puts the iframe 2,400 px down the page (outside the tab's
	// 437 px viewport) until a scroll into view brings it to y 200, or
	// never when stuck.
	below, stuck bool
	// unarmed: the page around the frame cannot be armed.
	unarmed bool
	// clock is the engine's (Config.Now); nil: a second passes at each
	// reading.
	clock func() time.Time

	scrolls []string       // DOM.scrollIntoViewIfNeeded: session and params
	metrics map[string]int // Page.getLayoutMetrics per session

	mu      sync.Mutex
	presses int    // Input.dispatchMouseEvent mousePressed
	moves   int    // Input.dispatchMouseEvent mouseMoved
	last    string // where the last press or move landed
	armed   int    // target arms set
	frames  int    // waits for the tab's next frame
	asked   int    // where-is-the-pointer checks after a move
}

func (b *oopifBrowser) engine(t *testing.T) (*Engine, *targettest.Link) {
	link := targettest.New()
	tree := func(id, parent, url string) json.RawMessage {
		p := ""
		if parent != "" {
			p = `"parentId":"` + parent + `",`
		}
		return json.RawMessage(`{"frameTree":{"frame":{"id":"` + id + `",` + p + `"loaderId":"L","url":"` + url +
			`","domainAndRegistry":"","securityOrigin":"x","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]}}}`)
	}
	link.CDP["Page.getFrameTree"] = func(_ int, sid string, _ json.RawMessage) (any, error) {
		if sid == "S1" {
			return tree(crossFrame, "MAIN", "http://localhost/frame"), nil
		}
		return tree("MAIN", "", "http://127.0.0.1/page"), nil
	}
	link.CDP["Page.createIsolatedWorld"] = func(_ int, sid string, _ json.RawMessage) (any, error) {
		return map[string]any{"executionContextId": map[string]int{"": 11, "S1": 22}[sid]}, nil
	}
	link.CDP["Runtime.evaluate"] = func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"result":{"type":"object","value":{"u":"http://127.0.0.1/page","t":"Page"}}}`), nil
	}
	link.CDP["Runtime.callFunctionOn"] = b.callFunctionOn
	link.CDP["DOM.getContentQuads"] = func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"quads":[[10,10,30,10,30,30,10,30]]}`), nil
	}
	link.CDP["DOM.getFrameOwner"] = func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"backendNodeId":7,"frameId":"MAIN"}`), nil
	}
	link.CDP["DOM.getBoxModel"] = func(int, string, json.RawMessage) (any, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		q := `[100,200,460,200,460,420,100,420]`
		if b.below {
			q = `[100,2400,460,2400,460,2620,100,2620]`
		}
		return json.RawMessage(`{"model":{"content":` + q + `,"padding":` + q + `,"border":` + q + `,"margin":` + q + `,"width":360,"height":220}}`), nil
	}
	link.CDP["DOM.scrollIntoViewIfNeeded"] = func(_ int, sid string, p json.RawMessage) (any, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.scrolls = append(b.scrolls, sid+" "+string(p))
		b.below = b.below && b.stuck
		return json.RawMessage(`{}`), nil
	}
	link.CDP["Page.getLayoutMetrics"] = func(_ int, sid string, _ json.RawMessage) (any, error) {
		b.mu.Lock()
		if b.metrics == nil {
			b.metrics = map[string]int{}
		}
		b.metrics[sid]++
		b.mu.Unlock()
		v := `{"pageX":0,"pageY":0,"clientWidth":780,"clientHeight":437}`
		return json.RawMessage(`{"layoutViewport":` + v + `,"cssLayoutViewport":` + v + `}`), nil
	}
	link.CDP["DOM.getNodeForLocation"] = func(_ int, sid string, _ json.RawMessage) (any, error) {
		if sid == "S1" {
			return json.RawMessage(`{"backendNodeId":42,"frameId":"` + crossFrame + `"}`), nil
		}
		if b.main {
			return json.RawMessage(`{"backendNodeId":42,"frameId":"MAIN"}`), nil
		}
		return json.RawMessage(`{"backendNodeId":7,"frameId":"MAIN"}`), nil
	}
	link.CDP["Input.dispatchMouseEvent"] = func(_ int, _ string, p json.RawMessage) (any, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch {
		case strings.Contains(string(p), `"mousePressed"`):
			b.presses++
			b.last = b.route(b.presses)
		case strings.Contains(string(p), `"mouseMoved"`):
			b.moves++
			b.last = b.route(b.moves)
		}
		return json.RawMessage(`{}`), nil
	}
	set := target.NewSet(t.Context(), target.Config{Caller: link})
	set.Get(7)
	set.Event(7, "", "Target.attachedToTarget", json.RawMessage(`{"sessionId":"S1","targetInfo":{"targetId":"`+crossFrame+
		`","type":"iframe","title":"","url":"http://localhost/frame","attached":true,"canAccessOpener":false}}`))
	now := b.clock
	if now == nil { // the window is always over: confirmTries decide
		now = steppingClock(time.Second)
	}
	return New(Config{Target: set.Get, Snapshots: snapshot.New(snapshot.Config{Target: set.Get}), Now: now}), link
}

// callFunctionOn answers the page helpers by what they do.
func (b *oopifBrowser) callFunctionOn(_ int, sid string, raw json.RawMessage) (any, error) {
	var p struct {
		FunctionDeclaration string `json:"functionDeclaration"`
		ObjectID            string `json:"objectId"`
	}
	_ = json.Unmarshal(raw, &p)
	fn := p.FunctionDeclaration
	str := func(s string) any { return json.RawMessage(fmt.Sprintf(`{"result":{"type":"string","value":%q}}`, s)) }
	null := json.RawMessage(`{"result":{"type":"object","subtype":"null","value":null}}`)
	read := func(v string) any { return json.RawMessage(`{"result":{"type":"object","value":` + v + `}}`) }
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case strings.Contains(fn, "G.find(q, strict)"): // findPrepJS
		return json.RawMessage(`{"result":{"type":"object","objectId":"WRAP","deepSerializedValue":{"type":"object","value":[` +
			`["el",{"type":"node","value":{"backendNodeId":42}}],["desc",{"type":"string","value":"button \"Go\""}],` +
			`["visible",{"type":"boolean","value":true}],["inMain",{"type":"boolean","value":true}]]}}}`), nil
	case strings.Contains(fn, "return this.el"):
		return json.RawMessage(`{"result":{"type":"object","subtype":"node","objectId":"EL"}}`), nil
	case fn == armJS && p.ObjectID != "": // on the target
		b.armed++
		return json.RawMessage(`{"result":{"type":"object","objectId":"ARM"}}`), nil
	case fn == armJS: // in the parent's world
		if b.unarmed {
			return nil, fmt.Errorf("cdp_error: %s", `{"code":-32000,"message":"Execution context was destroyed."}`)
		}
		return json.RawMessage(`{"result":{"type":"object","objectId":"PARENT-ARM"}}`), nil
	case fn == disarmJS && p.ObjectID == "ARM":
		switch b.last {
		case "frame":
			return read(`{"hit":""}`), nil
		case "frame-body":
			return read(`{"hit":"body"}`), nil
		case "taken":
			return read(`{"hit":"","took":true}`), nil
		case "taken-body":
			return read(`{"hit":"body","took":true}`), nil
		case "gone":
			return nil, fmt.Errorf("cdp_error: %s", `{"code":-32000,"message":"Cannot find context with specified id"}`)
		}
		return read(`{"hit":null,"took":false}`), nil
	case fn == disarmJS && p.ObjectID == "PARENT-ARM":
		switch b.last {
		case "parent":
			return read(`{"hit":"iframe \"Cross site frame\"","took":false}`), nil
		case "taken-parent":
			return read(`{"hit":"iframe \"Cross site frame\"","took":true}`), nil
		}
		return read(`{"hit":null,"took":false}`), nil
	case fn == pointedJS:
		b.asked++
		switch b.last {
		case "frame":
			return str(""), nil
		case "frame-body":
			return str("body"), nil
		case "gone":
			return nil, fmt.Errorf("cdp_error: %s", `{"code":-32000,"message":"Cannot find context with specified id"}`)
		}
		return null, nil
	case fn == pointedParentJS:
		if b.last == "parent" {
			return str(`iframe "Cross site frame"`), nil
		}
		return str(""), nil
	case fn == nextFrameJS:
		b.frames++
	}
	return json.RawMessage(`{"result":{"type":"boolean","value":true}}`), nil
}

func (b *oopifBrowser) counts() (presses, armed, frames int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.presses, b.armed, b.frames
}

// A click into an out-of-process frame is answered "clicked" only when
// the frame saw its press land on the target. Both renderers' hit tests
// pass in every case here; where Chrome routed the press decides.
func TestClickIntoAFrameIsConfirmed(t *testing.T) {
	btn := Target{Selector: "#go", Frame: crossFrame}
	click := func(t *testing.T, route func(int) string) (*oopifBrowser, *Result, error) {
		b := &oopifBrowser{route: route}
		e, _ := b.engine(t)
		r, err := e.Click(t.Context(), 7, ClickArgs{Target: btn})
		return b, r, err
	}
	always := func(where string) func(int) string { return func(int) string { return where } }

	t.Run("the press reached the button", func(t *testing.T) {
		b, r, err := click(t, always("frame"))
		require.NoError(t, err)
		assert.Equal(t, `clicked button "Go"`, r.Message)
		presses, armed, frames := b.counts()
		assert.Equal(t, []int{1, 1, 0}, []int{presses, armed, frames})
	})

	t.Run("routed to the iframe element in the page every time", func(t *testing.T) {
		b, _, err := click(t, always("parent"))
		te := codeErr(t, err, CodeClickMissed)
		assert.Contains(t, te.Message, `meant for button "Go" landed on iframe "Cross site frame" in the page around its frame`)
		assert.Contains(t, te.Message, "nothing was clicked")
		assert.True(t, te.Retryable)
		presses, _, frames := b.counts()
		assert.Equal(t, confirmTries, presses, "tried again after each drawn frame, then gave up")
		assert.Equal(t, confirmTries-1, frames)
	})

	t.Run("routed by the frame's old place, then by its new one", func(t *testing.T) {
		b, r, err := click(t, func(try int) string { return map[bool]string{true: "frame-body", false: "frame"}[try == 1] })
		require.NoError(t, err)
		assert.Equal(t, `clicked button "Go"`, r.Message)
		presses, armed, frames := b.counts()
		assert.Equal(t, []int{2, 2, 1}, []int{presses, armed, frames})
	})

	t.Run("a press nobody saw is not retried", func(t *testing.T) {
		b, _, err := click(t, always("nowhere"))
		te := codeErr(t, err, CodeClickMissed)
		assert.Contains(t, te.Message, "did not reach it")
		presses, _, _ := b.counts()
		assert.Equal(t, 1, presses)
	})

	t.Run("the page took the press on the button before the arm saw it", func(t *testing.T) {
		b, r, err := click(t, always("taken"))
		require.NoError(t, err, "the press landed on the button: clicked, though only the page saw it")
		assert.Equal(t, `clicked button "Go"`, r.Message)
		presses, _, frames := b.counts()
		assert.Equal(t, []int{1, 0}, []int{presses, frames})
	})

	t.Run("the page took a press that landed elsewhere in the frame", func(t *testing.T) {
		b, _, err := click(t, always("taken-body"))
		te := codeErr(t, err, CodeClickUnconfirmed)
		assert.Contains(t, te.Message, `meant for button "Go" landed on body in its frame`)
		assert.Contains(t, te.Message, "so it may have clicked body")
		assert.NotContains(t, te.Message, "nothing was clicked")
		assert.False(t, te.Retryable, "the page may have acted: clicking again may act twice")
		presses, _, _ := b.counts()
		assert.Equal(t, 1, presses, "not tried again")
	})

	t.Run("the page around the frame took the press", func(t *testing.T) {
		b, _, err := click(t, always("taken-parent"))
		te := codeErr(t, err, CodeClickUnconfirmed)
		assert.Contains(t, te.Message, `landed on iframe "Cross site frame" in the page around its frame`)
		assert.Contains(t, te.Message, "may have clicked")
		assert.False(t, te.Retryable)
		presses, _, _ := b.counts()
		assert.Equal(t, 1, presses)
	})

	t.Run("tried again until the window passed", func(t *testing.T) {
		// Tries that come fast (the tab held painting) go on past
		// confirmTries until confirmWindow passed: here 200 ms a try.
		b := &oopifBrowser{route: always("parent"), clock: steppingClock(200 * time.Millisecond)}
		e, _ := b.engine(t)
		_, err := e.Click(t.Context(), 7, ClickArgs{Target: btn})
		codeErr(t, err, CodeClickMissed)
		presses, _, _ := b.counts()
		assert.Equal(t, int(confirmWindow/(200*time.Millisecond))+1, presses, "a try every 200 ms for 1.5 s")

		b = &oopifBrowser{route: always("parent"), clock: func() time.Time { return time.Unix(0, 0) }}
		e, _ = b.engine(t)
		_, err = e.Click(t.Context(), 7, ClickArgs{Target: btn})
		codeErr(t, err, CodeClickMissed)
		presses, _, _ = b.counts()
		assert.Equal(t, confirmMaxTries, presses, "a clock that never moves: the tries' cap")
	})

	t.Run("the page around the frame could not be watched", func(t *testing.T) {
		b := &oopifBrowser{route: always("parent"), unarmed: true}
		e, _ := b.engine(t)
		_, err := e.Click(t.Context(), 7, ClickArgs{Target: btn})
		te := codeErr(t, err, CodeClickUnconfirmed)
		assert.Contains(t, te.Message, "could not be watched, so the press may have clicked something there")
		assert.NotContains(t, te.Message, "neither its frame nor the page")
		assert.False(t, te.Retryable, "an unseen press may have acted: clicking again may act twice")
		presses, _, _ := b.counts()
		assert.Equal(t, 1, presses, "not tried again")
	})

	t.Run("the frame's document replaced before the click was confirmed", func(t *testing.T) {
		_, _, err := click(t, always("gone"))
		te := codeErr(t, err, "page_changed")
		assert.Contains(t, te.Message, `on button "Go" could not be confirmed`)
		assert.False(t, te.Retryable, "the click may have navigated: look before acting again")
	})
}

// A hover into an out-of-process frame is answered "hovered over" only
// when the frame says the pointer is on the target; a main-frame hover is
// one move and nothing more.
func TestHoverIntoAFrameIsConfirmed(t *testing.T) {
	hover := func(t *testing.T, b *oopifBrowser, tg Target) (*Result, error) {
		e, _ := b.engine(t)
		return e.Hover(t.Context(), 7, HoverArgs{Target: tg})
	}
	btn := Target{Selector: "#go", Frame: crossFrame}
	always := func(where string) func(int) string { return func(int) string { return where } }
	counts := func(b *oopifBrowser) []int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return []int{b.moves, b.asked, b.frames, b.armed, b.presses}
	}

	t.Run("the move reached the button", func(t *testing.T) {
		b := &oopifBrowser{route: always("frame")}
		r, err := hover(t, b, btn)
		require.NoError(t, err)
		assert.Equal(t, `hovered over button "Go"`, r.Message)
		assert.Equal(t, []int{1, 1, 0, 0, 0}, counts(b), "one move, one look, no arm, nothing pressed")
	})

	t.Run("routed by the frame's old place, then by its new one", func(t *testing.T) {
		b := &oopifBrowser{route: func(try int) string { return map[bool]string{true: "frame-body", false: "frame"}[try == 1] }}
		r, err := hover(t, b, btn)
		require.NoError(t, err)
		assert.Equal(t, `hovered over button "Go"`, r.Message)
		assert.Equal(t, []int{2, 2, 1, 0, 0}, counts(b), "moved again after the tab drew a frame")
	})

	t.Run("landed elsewhere in the frame every time", func(t *testing.T) {
		b := &oopifBrowser{route: always("frame-body")}
		_, err := hover(t, b, btn)
		te := codeErr(t, err, CodeHoverMissed)
		assert.Contains(t, te.Message, `for button "Go" landed on body in its frame`)
		assert.Contains(t, te.Message, fmt.Sprintf("(%d tries)", confirmTries))
		assert.Contains(t, te.Message, "nothing was clicked")
		assert.True(t, te.Retryable)
		assert.Equal(t, []int{confirmTries, confirmTries, confirmTries - 1, 0, 0}, counts(b))
	})

	t.Run("routed to the page around the frame", func(t *testing.T) {
		b := &oopifBrowser{route: func(try int) string { return map[bool]string{true: "parent", false: "frame"}[try < confirmTries] }}
		r, err := hover(t, b, btn)
		require.NoError(t, err, "the last try landed")
		assert.Equal(t, `hovered over button "Go"`, r.Message)
		b = &oopifBrowser{route: always("parent")}
		_, err = hover(t, b, btn)
		te := codeErr(t, err, CodeHoverMissed)
		assert.Contains(t, te.Message, `landed on iframe "Cross site frame" in the page around its frame`)
	})

	t.Run("the frame's document replaced", func(t *testing.T) {
		_, err := hover(t, &oopifBrowser{route: always("gone")}, btn)
		te := codeErr(t, err, "page_changed")
		assert.Contains(t, te.Message, `the hover at (120, 220) on button "Go" could not be confirmed`)
	})

	t.Run("a main-frame hover is one move", func(t *testing.T) {
		b := &oopifBrowser{route: always("nowhere"), main: true}
		r, err := hover(t, b, Target{Selector: "#go"})
		require.NoError(t, err)
		assert.Equal(t, `hovered over button "Go"`, r.Message)
		assert.Equal(t, []int{1, 0, 0, 0, 0}, counts(b), "no look after the move")
	})
}

// A frame below the tab's viewport: the page around it is scrolled (the
// iframe, in its parent's session, to the element's point) before the
// hit tests, which would find nothing outside the viewport; a page that
// does not scroll gets not_visible, and nothing is pressed.
func TestClickIntoAFrameBelowTheFold(t *testing.T) {
	btn := Target{Selector: "#go", Frame: crossFrame}
	t.Run("scrolled to, then clicked", func(t *testing.T) {
		b := &oopifBrowser{route: func(int) string { return "frame" }, below: true}
		e, _ := b.engine(t)
		r, err := e.Click(t.Context(), 7, ClickArgs{Target: btn})
		require.NoError(t, err)
		assert.Equal(t, `clicked button "Go"`, r.Message)
		require.Len(t, b.scrolls, 1)
		assert.JSONEq(t, `{"backendNodeId":7,"rect":{"x":20,"y":20,"width":1,"height":1}}`, strings.TrimPrefix(b.scrolls[0], " "),
			"the iframe, in the page's session, to the button's centre")
	})
	t.Run("in view: the tab's layout is read once", func(t *testing.T) {
		b := &oopifBrowser{route: func(int) string { return "frame" }}
		e, _ := b.engine(t)
		_, err := e.Click(t.Context(), 7, ClickArgs{Target: btn})
		require.NoError(t, err)
		assert.Empty(t, b.scrolls)
		assert.Equal(t, 1, b.metrics[""], "the viewport check's read serves the hit test in the page around the frame")
	})
	t.Run("a page that does not scroll", func(t *testing.T) {
		b := &oopifBrowser{route: func(int) string { return "frame" }, below: true, stuck: true}
		e, _ := b.engine(t)
		_, err := e.Click(t.Context(), 7, ClickArgs{Target: btn})
		te := codeErr(t, err, CodeNotVisible)
		assert.Contains(t, te.Message, "outside the visible page")
		presses, _, _ := b.counts()
		assert.Zero(t, presses)
	})
}

func codeErr(t *testing.T, err error, code string) *tools.Error {
	t.Helper()
	var te *tools.Error
	require.ErrorAs(t, err, &te)
	require.Equal(t, code, te.Code, te.Message)
	return te
}
