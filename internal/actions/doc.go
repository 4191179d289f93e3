// Package actions is Gasoline's interact engine: the actions an agent
// takes on a tab (click, type, fill_form, select, check, hover, focus,
// scroll_to, key_press, drag, upload, execute_js, handle_dialog, wait_for,
// wait_for_stable, the reads get_text, get_value, get_attribute and query,
// explore_page and batch), each as trusted CDP input over the extension
// relay, each answering compactly with what it changed.
//
// # Targets
//
// A target is a ref from the tab's latest snapshot (resolved by the
// snapshot package: a stale ref fails naming its element), else a
// selector — CSS (piercing open shadow roots), or text=Submit,
// text="Submit" (exact), role=button[name="Save"], label=Email,
// placeholder=Search, with an optional ` >> nth=N` — else x/y viewport
// coordinates. frame scopes a selector to an iframe (by ref, selector,
// name, id or URL); out-of-process frames are reached through their
// child CDP session. A semantic selector that matches several visible
// elements is refused for actions (ambiguous_target), never guessed.
//
// # How actions run
//
// Actions on one tab run one at a time, in arrival order (a FIFO lock per
// tab, bounded by the caller's context); actions on different tabs run
// concurrently. Page-side work runs in Gasoline's isolated world of each
// frame (page.js and forms.js, installed once per world), where the page's
// scripts cannot interfere. Pointer actions scroll the element into view,
// take its center (from the element's client rects in the main frame, from
// DOM.getContentQuads in frames, offset by an out-of-process frame's
// position), hit-test it with DOM.getNodeForLocation and refuse when
// something else is on top, naming it. Input goes through Input.* on the
// tab's session; a JavaScript dialog that opens mid-action ends the action
// with the dialog reported instead of hanging on it.
//
// Agents' tabs are usually background tabs, which Chrome draws about once
// a second, and it delivers a mouse move only with the page's next frame.
// So a click sends no move (press and release set the hover state
// themselves), a page found hidden is switched to focus emulation
// (Emulation.setFocusEmulationEnabled, as Playwright does) before pointer
// input, and hover and drag, which need moves, may take up to a second per
// move in a background tab.
//
// # What changed
//
// Every answer carries Changes: url and title before → after (probes that
// ride on the action's own page calls where they can; execute_js skips them
// and reports navigations from events; an action that makes the page
// follow a link waits, bounded, for the new document), whether the
// main frame navigated (every ref is then stale), dialogs opened, new
// console errors and exceptions, failed requests and requests still in
// flight (from the capture buffers when Config.Capture is set, else from
// the CDP events seen during the action), and whether the snapshot
// generation moved.
package actions
