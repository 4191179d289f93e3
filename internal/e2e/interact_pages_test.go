package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestE2EInteractSPAStaleRefs(t *testing.T) {
	x := startInteract(t, "interact-spa")
	x.open("spa.html")
	snap := x.snap(nil)
	hello := refOf(t, snap, `button "Say hello"`)

	a := x.act("click", map[string]any{"ref": refOf(t, snap, `link "Settings"`)})
	t.Log(a.Text)
	assert.Contains(t, a.Text, "#settings", "the route change shows in the answer")
	assert.Equal(t, "Settings", js[string](x.client, `document.querySelector('h1').textContent`))

	stale := x.fail("stale_ref", "click", map[string]any{"ref": hello})
	assert.Contains(t, stale.Text, `(button "Say hello") is stale`, "the error names the element")
	assert.Contains(t, stale.Text, "take a new snapshot")
	assert.Equal(t, "observe", stale.Data["next_action"].(map[string]any)["tool"])

	snap = x.snap(nil)
	x.act("type", map[string]any{"ref": refOf(t, snap, `textbox "Nickname"`), "text": "ada"})
	x.act("click", map[string]any{"selector": `role=button[name="Apply"]`})
	assert.Equal(t, "Actions: saved ada", js[string](x.client, `document.title`))

	t.Run("back and forward through routes", func(t *testing.T) {
		x.act("back", nil)
		assert.Equal(t, "Home", js[string](x.client, `document.querySelector('h1').textContent`))
		x.act("forward", nil)
		assert.Equal(t, "Settings", js[string](x.client, `document.querySelector('h1').textContent`))
	})

	t.Run("navigation clears refs", func(t *testing.T) {
		snap := x.snap(nil)
		apply := refOf(t, snap, `button "Apply"`)
		x.act("navigate", map[string]any{"url": x.PageURL("pages/actions/form.html")})
		a := x.fail("stale_ref", "click", map[string]any{"ref": apply})
		assert.Contains(t, a.Text, `(button "Apply") is stale: the tab navigated`)
		x.act("back", nil)
		assert.Contains(t, js[string](x.client, `location.href`), "spa.html")

		snap = x.snap(nil)
		link := refOf(t, snap, `link "Home"`)
		x.act("refresh", nil)
		a = x.fail("stale_ref", "click", map[string]any{"ref": link})
		assert.Contains(t, a.Text, `(link "Home") is stale: the tab navigated`, "a reload is a new document")
		a = x.act("click", map[string]any{"selector": "text=Order form"})
		t.Log(a.Text)
		assert.Contains(t, a.Text, "navigated (refs are stale")
		assert.Contains(t, js[string](x.client, `location.pathname`), "form.html")
	})
}

func TestE2EInteractFramesAndShadow(t *testing.T) {
	x := startInteract(t, "interact-frames")
	second := strings.TrimSuffix(x.site.URL, "/") // another loopback port: a second origin
	x.open("frames.html?second=" + second)
	inner := `document.getElementById('outer').contentDocument.getElementById('inner').contentDocument`
	jsUntil(x.client, `document.getElementById('outer').contentDocument?.getElementById('inner')?.contentDocument?.readyState === 'complete'`, 10*time.Second)
	var snap string
	deadline := time.Now().Add(10 * time.Second)
	for { // the cross-site and second-origin frames load on their own
		snap = x.snap(nil)
		if strings.Contains(snap, `"Frame button (cross)"`) && strings.Contains(snap, `"Frame button (second)"`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("frames:\n%s", snap)

	t.Run("nested same-origin frames", func(t *testing.T) {
		nested := section(snap, `iframe "Inner frame"`)
		x.act("click", map[string]any{"ref": refOf(t, nested, `button "Frame button (nested)"`)})
		assert.Equal(t, "1", js[string](x.client, inner+`.getElementById('btn').dataset.clicks`))
		x.act("type", map[string]any{"ref": refOf(t, nested, `textbox "Frame input"`), "text": "deep"})
		assert.Equal(t, "deep", js[string](x.client, inner+`.getElementById('field').value`))
		x.act("click", map[string]any{"selector": "text=Outer button", "frame": "#outer"})
		assert.Equal(t, "yes", js[string](x.client, `document.getElementById('outer').contentDocument.getElementById('outer-btn').dataset.clicked`))
	})

	t.Run("cross-site frame (out of process)", func(t *testing.T) {
		cross := section(snap, `iframe "Cross site frame"`)
		x.act("click", map[string]any{"ref": refOf(t, cross, `button "Frame button (cross)"`)})
		x.act("type", map[string]any{"selector": "label=Frame input", "frame": "cross", "text": "far"})
		got := js[[]string](x.client, `[document.getElementById('btn').dataset.clicks, document.getElementById('field').value, location.hostname]`, map[string]any{"frame": "#cross"})
		assert.Equal(t, "1", got[0], "the click landed in the out-of-process frame")
		assert.Equal(t, "far", got[1])
		assert.NotEqual(t, js[string](x.client, `location.hostname`), got[2])
	})

	t.Run("second origin on another loopback port", func(t *testing.T) {
		sec := section(snap, `iframe "Second origin frame"`)
		x.act("click", map[string]any{"ref": refOf(t, sec, `button "Frame button (second)"`)})
		x.act("type", map[string]any{"ref": refOf(t, sec, `textbox "Frame input"`), "text": "port"})
		got := js[[]string](x.client, `[document.getElementById('btn').dataset.clicks, document.getElementById('field').value, location.origin]`, map[string]any{"frame": "#second"})
		assert.Equal(t, []string{"1", "port", second}, got)
		fr := x.snap(map[string]any{"frame": "#second"})
		assert.Contains(t, fr, `button "Frame button (second)" [`, "a frame snapshot")
	})

	t.Run("open shadow DOM", func(t *testing.T) {
		x.open("shadow.html")
		snap := x.snap(nil)
		t.Logf("shadow:\n%s", snap)
		x.act("type", map[string]any{"ref": refOf(t, snap, `textbox "Shadow name"`), "text": "Ada"})
		x.act("click", map[string]any{"selector": "#sbtn"})
		assert.Equal(t, "saved Ada true", js[string](x.client, `document.querySelector('x-widget').shadowRoot.getElementById('sout').textContent`))
		a := x.act("get_value", map[string]any{"selector": "label=Shadow name"})
		assert.Equal(t, "Ada", a.Data["value"])
	})
}

func TestE2EInteractCoveredAndPointer(t *testing.T) {
	x := startInteract(t, "interact-covered")
	x.open("covered.html")

	a := x.fail("covered", "click", map[string]any{"selector": "text=Buy now"})
	assert.Contains(t, a.Text, `button "Buy now" is covered by div "cookie-banner"`, "the error names the cover")
	assert.Empty(t, js[string](x.client, `document.getElementById('buy').dataset.clicked || ''`), "a covered button is never clicked")
	x.fail("covered", "hover", map[string]any{"selector": "#buy"})

	x.act("click", map[string]any{"selector": `role=button[name="Accept"]`})
	assert.False(t, js[bool](x.client, `!!document.getElementById('cookie-banner')`))
	x.act("click", map[string]any{"selector": "text=Buy now"})
	assert.Equal(t, "yes", js[string](x.client, `document.getElementById('buy').dataset.clicked`))

	x.act("hover", map[string]any{"selector": "#buy"})
	assert.True(t, js[bool](x.client, `document.getElementById('buy').matches(':hover')`))
	x.act("scroll_to", map[string]any{"selector": "#footer"})
	assert.True(t, js[bool](x.client, `(r => r.top >= 0 && r.bottom <= innerHeight)(document.getElementById('footer').getBoundingClientRect())`))
	x.act("focus", map[string]any{"selector": "#footer"})
	assert.Equal(t, "footer", js[string](x.client, `document.activeElement.id`))
	x.act("scroll_to", map[string]any{"x": 0, "y": 0})
	assert.Equal(t, 0.0, js[float64](x.client, `scrollY`))

	pt := js[[]float64](x.client, `(r => [r.left + r.width / 2, r.top + r.height / 2])(document.getElementById('buy').getBoundingClientRect())`)
	js[any](x.client, `document.getElementById('buy').dataset.clicked = ''`)
	x.act("click", map[string]any{"x": pt[0], "y": pt[1]})
	assert.Equal(t, "yes", js[string](x.client, `document.getElementById('buy').dataset.clicked`))
}

func TestE2EInteractDialogs(t *testing.T) {
	x := startInteract(t, "interact-dialogs")
	x.open("dialogs.html")
	out := func() string { return js[string](x.client, `document.getElementById('out').textContent`) }

	x.fail("no_dialog", "handle_dialog", map[string]any{"accept": true})
	a := x.act("click", map[string]any{"selector": "text=Confirm"})
	assert.Contains(t, a.Text, `confirm dialog "Delete it?" is open`, "the answer reports the dialog")
	x.fail("dialog_open", "click", map[string]any{"selector": "text=Alert"})
	blocked := x.call("observe", map[string]any{"what": "snapshot"})
	assert.Equal(t, "dialog_open", blocked.code(), "a snapshot is refused while a dialog blocks the page: %s", blocked.Text)
	pg := x.observe("page", nil)
	require.Len(t, list(pg, "open_dialogs"), 1)
	a = x.act("handle_dialog", map[string]any{"accept": false})
	assert.Contains(t, a.Text, `dismissed the confirm dialog "Delete it?"`)
	assert.Equal(t, "confirm: false", out())

	x.act("click", map[string]any{"selector": "#prompt"})
	x.act("handle_dialog", map[string]any{"accept": true, "prompt_text": "Ada"})
	assert.Equal(t, "prompt: Ada", out())
	x.act("click", map[string]any{"selector": "#alert"})
	x.act("handle_dialog", map[string]any{"accept": true})
	assert.Equal(t, "alert closed", out())
}

func TestE2EInteractDragAndKeys(t *testing.T) {
	x := startInteract(t, "interact-input")
	x.open("dnd.html")
	a := x.act("drag", map[string]any{"selector": "#card", "to_selector": "label=Done column"})
	t.Log(a.Text)
	assert.Equal(t, "target", js[string](x.client, `document.getElementById('card').parentElement.id`), "the card moved to the drop zone")
	pt := js[[]float64](x.client, `(r => [r.right - 2, r.top + r.height / 2])(document.getElementById('slider').getBoundingClientRect())`)
	x.act("drag", map[string]any{"selector": "#knob", "to_x": pt[0], "to_y": pt[1]})
	assert.Equal(t, "100", js[string](x.client, `document.getElementById('slider').dataset.value`), "the knob followed the mouse to the end")

	x.open("keys.html")
	log := func() []string { return js[[]string](x.client, `keylog.splice(0)`) }
	x.act("key_press", map[string]any{"keys": "Control+K"})
	assert.Equal(t, []string{"ctrl+Control:ControlLeft:17:true", "ctrl+k:KeyK:75:true"}, log())
	assert.False(t, js[bool](x.client, `document.getElementById('palette').hidden`), "Control+K opened the palette")
	x.act("type", map[string]any{"selector": "label=Command", "text": "deploy"})
	x.act("key_press", map[string]any{"keys": "Enter"})
	assert.Equal(t, "ran deploy", js[string](x.client, `document.getElementById('log').textContent`))
	x.act("key_press", map[string]any{"keys": "Escape"})
	assert.True(t, js[bool](x.client, `document.getElementById('palette').hidden`))
	log()
	x.act("key_press", map[string]any{"selector": "label=Second", "keys": "Shift+Tab"})
	assert.Equal(t, "first", js[string](x.client, `document.activeElement.id`), "Shift+Tab moved focus back")
	x.act("key_press", map[string]any{"keys": "a B Shift+1 Space"})
	assert.Equal(t, "aB! ", js[string](x.client, `document.getElementById('first').value`))
	x.act("key_press", map[string]any{"keys": "Control+A Backspace"})
	assert.Equal(t, "", js[string](x.client, `document.getElementById('first').value`))
	x.fail("invalid_argument", "key_press", map[string]any{"keys": "Control+Nope"})
}

func TestE2EInteractWaits(t *testing.T) {
	x := startInteract(t, "interact-waits")
	api := slowAPI(t)
	x.open("slow.html?api=" + api.URL + "/slow?ms=700")

	x.act("wait_for", map[string]any{"selector": "text=Appeared late"})
	assert.True(t, js[bool](x.client, `!!document.getElementById('late')`))
	x.act("wait_for", map[string]any{"selector": "#spinner", "state": "detached"})
	assert.False(t, js[bool](x.client, `!!document.getElementById('spinner')`))

	x.act("click", map[string]any{"selector": "#load"})
	x.act("wait_for", map[string]any{"network_idle": true, "idle_ms": 200, "timeout_ms": 10000})
	assert.Equal(t, "slow data", js[string](x.client, `document.getElementById('data').textContent`), "network idle came after the slow fetch")

	x.fail("wait_timeout", "wait_for", map[string]any{"selector": "#never", "timeout_ms": 1500})
	x.act("wait_for", map[string]any{"url": "slow.html?api=*"})
	x.fail("invalid_argument", "wait_for", map[string]any{"text": "x", "url": "y"})

	js[any](x.client, `let n = 0; const t = setInterval(() => { document.body.dataset.n = ++n; if (n === 8) clearInterval(t) }, 50); n`)
	x.act("wait_for_stable", map[string]any{"idle_ms": 200})
	assert.Equal(t, "8", js[string](x.client, `document.body.dataset.n`), "stable only after the last mutation")
}

// TestE2EInteractIconButtons: a click lands on what the agent named when
// what the hit test finds is inside it — an icon drawn by a ::before
// pseudo-element, an svg, a slotted child of a shadow host — and only a
// real cover is "covered", named.
func TestE2EInteractIconButtons(t *testing.T) {
	x := startInteract(t, "interact-icons")
	x.open("icons.html")
	for _, sel := range []string{"#refresh", "role=button[name=Save]", "#slotted"} {
		a := x.act("click", map[string]any{"selector": sel})
		t.Logf("%s: %s", sel, a.Text)
	}
	assert.Equal(t, "yes yes yes", js[string](x.client, `['refresh','save','slotted'].map(id => document.getElementById(id).dataset.clicked).join(' ')`))
	a := x.fail("covered", "click", map[string]any{"selector": "#under"})
	assert.Contains(t, a.Text, `is covered by div "cover"`, "the error names the cover")
	assert.Empty(t, js[string](x.client, `document.getElementById('under').dataset.clicked || ''`), "a covered button is never clicked")
}

// TestE2EInteractDialogsEndCalls: a dialog that opens during a navigation
// ends the call at once with dialog_open naming it (the calls give a
// minute: one that waited behind the dialog would end in timeout), and
// handle_dialog clears it.
func TestE2EInteractDialogsEndCalls(t *testing.T) {
	x := startInteract(t, "interact-leave")
	x.open("unsaved.html")
	x.act("type", map[string]any{"selector": "#draft", "text": "unsaved words"}) // trusted input: the page may ask before it unloads

	a := x.call("interact", map[string]any{"what": "navigate", "url": x.PageURL("pages/actions/form.html"), "timeout_ms": 60000})
	require.True(t, a.IsError, "navigate away from unsaved work: %s", a.Text)
	assert.Equal(t, "dialog_open", a.code(), a.Text)
	assert.Contains(t, a.Text, "beforeunload", a.Text)
	x.fail("dialog_open", "navigate", map[string]any{"url": x.PageURL("pages/actions/form.html")}) // still open: said at once
	x.act("handle_dialog", map[string]any{"accept": false})
	assert.Equal(t, "unsaved words", js[string](x.client, `document.getElementById('draft').value`), "staying keeps the page")

	a = x.call("interact", map[string]any{"what": "refresh", "timeout_ms": 60000})
	assert.Equal(t, "dialog_open", a.code(), "refresh with unsaved work: %s", a.Text)
	x.act("handle_dialog", map[string]any{"accept": false})

	js[bool](x.client, `dirty = false; true`) // saved: leaving asks nothing now
	a = x.call("interact", map[string]any{"what": "navigate", "url": x.PageURL("pages/actions/alert-on-load.html"), "timeout_ms": 60000})
	assert.Equal(t, "dialog_open", a.code(), "navigate to a page that alerts while loading: %s", a.Text)
	assert.Contains(t, a.Text, `alert dialog ("Welcome back")`, a.Text)
	a = x.act("handle_dialog", map[string]any{"accept": true})
	assert.Contains(t, a.Text, "Welcome back", a.Text)
	jsUntil(x.client, `document.getElementById('out').textContent === 'after'`, 20*time.Second)
}

// TestE2ESnapshotWaitsForFirstRender: a page that has drawn nothing yet is
// waited for, bounded, and when nothing comes the snapshot says so
// instead of answering an empty tree; a page that draws shows its tree.
func TestE2ESnapshotWaitsForFirstRender(t *testing.T) {
	x := startInteract(t, "snapshot-render")
	x.open("unrendered.html")
	a := x.observe("snapshot", nil)
	assert.Contains(t, a.Text, "the page has not rendered content yet", a.Text)
	assert.Equal(t, true, a.Data["not_rendered"], a.Text)

	x.act("navigate", map[string]any{"url": x.PageURL("pages/actions/unrendered.html#ready")})
	x.act("refresh", nil)
	a = x.observe("snapshot", nil)
	assert.NotContains(t, a.Text, "not rendered", a.Text)
	assert.Contains(t, a.Page, `button "Compose"`, a.Text)
}

// TestE2EInteractTypeIntoEditors: typing is checked where the text lands.
// Editors that keep their text outside any value (CodeMirror 5's and
// Monaco's hidden textarea, emptied on every input) and contenteditable
// regions answer success once; get_value reads the editor's text; only an
// editor that truly took nothing answers not_applied.
func TestE2EInteractTypeIntoEditors(t *testing.T) {
	x := startInteract(t, "interact-editors")
	x.open("editors.html")
	a := x.act("type", map[string]any{"selector": "#cm textarea", "text": "print(6 * 7)"})
	assert.Contains(t, a.Text, `typed "print(6 * 7)"`, a.Text)
	assert.Equal(t, "print(6 * 7)", x.act("get_value", map[string]any{"selector": "#cm textarea"}).Data["value"])
	assert.Equal(t, "print(6 * 7)", x.act("get_value", map[string]any{"selector": "#cm"}).Data["value"], "the editor's box reads as its text")

	x.act("type", map[string]any{"selector": "label=Script", "text": "let a = 1;\nlet b = 2;"})
	assert.Equal(t, "let a = 1;\nlet b = 2;", x.act("get_value", map[string]any{"selector": "label=Script"}).Data["value"])
	x.act("type", map[string]any{"selector": "#monaco", "text": "\n// done"}) // the editor's box takes the text into its input
	assert.Equal(t, "let a = 1;\nlet b = 2;\n// done", x.act("get_value", map[string]any{"selector": "#monaco"}).Data["value"])

	a = x.act("type", map[string]any{"selector": "label=Notes", "text": " thanks"})
	assert.NotContains(t, a.Text, "reformatted", a.Text)
	assert.Contains(t, x.act("get_value", map[string]any{"selector": "label=Notes"}).Data["value"], "thanks")

	x.fail("not_applied", "type", map[string]any{"selector": "label=Frozen", "text": "lost"})
}

// TestE2ESnapshotLinkUnderCover: text inside a link that something paints
// over is judged like any other text. An <a> has a host (its URL's) and
// Chrome's elements a pseudo() method, which the paint-order code took for
// a pseudo-element's: the walker threw and the whole snapshot failed
// (Jupyter's Help ▸ About, over its menu bar's links).
func TestE2ESnapshotLinkUnderCover(t *testing.T) {
	x := startInteract(t, "snapshot-covered-link")
	x.open("covered-link.html")
	a := x.observe("snapshot", nil)
	assert.Contains(t, a.Page, `button "Menu item"`, a.Text)
	assert.Contains(t, a.Page, `link "More"`, a.Text)
}

// TestE2EInteractClickSettles: a click answers once what it set moving has
// stopped (bounded), so the snapshot right after it shows the dialog that
// a fade chain opened, as a person sees it then.
func TestE2EInteractClickSettles(t *testing.T) {
	x := startInteract(t, "interact-settle")
	x.open("fade-dialog.html")
	x.snap(nil)
	x.act("click", map[string]any{"selector": "#open"})
	a := x.observe("snapshot", map[string]any{"diff": true})
	assert.Contains(t, a.Page, `textbox "New name"`, "the dialog the click opened is in the next snapshot: %s", a.Text)
}
