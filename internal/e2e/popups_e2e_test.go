//go:build linux

package e2e

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openedRe reads "opened tab N: <url>" from an action's answer.
var openedRe = regexp.MustCompile(`opened tab (\d+): (\S+)`)

// TestE2EInteractPopups: a tab the session's page opens — a link with a
// target, window.open, a blank window the page fills in later, a form
// target, a middle-click — joins the session at once: the action's answer
// names it, it is in the session's group, observe tabs lists it with its
// opener, it is the current tab, and it closes when the session ends.
func TestE2EInteractPopups(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	x := &ia{relay: r, client: r.client(t, "interact-popups")}
	opener := x.open("popups.html")
	group := tabGroups(t, r)[opener]

	cases := []struct {
		click map[string]any
		page  string
	}{
		{map[string]any{"selector": "#blank"}, "form.html"},
		{map[string]any{"selector": "#winopen"}, "keys.html"},
		{map[string]any{"selector": "#later"}, "covered.html"},
		{map[string]any{"selector": "#formtarget"}, "dnd.html"},
		{map[string]any{"selector": "#plain", "button": "middle"}, "spa.html"},
	}
	var popups []int
	for _, c := range cases {
		c.click["tab_id"] = opener
		a := x.act("click", c.click)
		m := openedRe.FindStringSubmatch(a.Text)
		require.NotNil(t, m, "%v: the answer names no tab it opened: %s", c.click, a.Text)
		var tab int
		fmt.Sscan(m[1], &tab)
		popups = append(popups, tab)
		// The popup is the current tab: a call without tab_id reads it.
		x.act("wait_for", map[string]any{"url": c.page, "timeout_ms": 20000})
		assert.Equal(t, group, tabGroups(t, r)[tab], "%v: tab %d is not in the session's group", c.click, tab)
	}
	tabs := x.observe("tabs", nil)
	for _, p := range popups {
		e := tabIn(tabs, p)
		require.NotNil(t, e, "observe tabs does not list popup %d: %s", p, tabs.Text)
		assert.EqualValues(t, opener, e["opener"], "popup %d: %s", p, tabs.Text)
	}
	assert.Contains(t, tabs.Text, fmt.Sprintf("opened by tab %d's page", opener))

	// A popup's page acts like any other tab's.
	x.act("type", map[string]any{"selector": "#name", "text": "Bo", "clear": true, "tab_id": popups[0]})
	assert.Equal(t, "Bo", js[string](x.client, `document.getElementById('name').value`))

	require.NoError(t, x.client.cs.Close()) // the session ends: its tabs close, popups too
	eventually(t, 10*time.Second, "the popups closed with the session", func() bool {
		open := tabGroups(t, r)
		for _, p := range append(popups, opener) {
			if _, ok := open[p]; ok {
				return false
			}
		}
		return true
	})
}
