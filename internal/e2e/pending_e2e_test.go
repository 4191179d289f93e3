//go:build linux

package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestE2EPendingCommandSaysItWaitsForTheTab: a call queued behind another
// call on the same tab is listed by observe pending_commands as waiting
// for that tab and naming the call that holds it; once the holder ends it
// runs, and its entry no longer says it waits.
func TestE2EPendingCommandSaysItWaitsForTheTab(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "pending-wait")
	tab := c.newTab(r.url("pages/actions/form.html"))

	// The holder: a script awaiting a request the test holds open. Its
	// request reaching the server means it runs, holding the tab.
	holder := c.ok("interact", map[string]any{"what": "execute_js", "background": true,
		"script": "fetch('/api/gate').then((r) => r.text())"}).Data["correlation_id"].(string)
	select {
	case <-r.gateHit:
	case <-time.After(30 * time.Second):
		t.Fatal("the holding script's request never reached the server")
	}
	queued := c.ok("interact", map[string]any{"what": "click", "selector": "#count", "background": true}).Data["correlation_id"].(string)
	entry := func(a answer, id string) map[string]any {
		i := slices.IndexFunc(list(a, "commands"), func(m map[string]any) bool { return m["correlation_id"] == id })
		if i < 0 {
			return nil
		}
		return list(a, "commands")[i]
	}
	want := fmt.Sprintf("tab %d: call %s acts on it", tab, holder)
	got := c.until("pending_commands", nil, 15*time.Second, func(a answer) bool {
		e := entry(a, queued)
		return e != nil && e["waiting_for"] == want
	})
	require.Equal(t, "pending", entry(got, queued)["status"], got.Text)
	require.Nil(t, entry(got, holder)["waiting_for"], "the holder runs: %s", got.Text)

	close(r.gate)
	got = c.until("pending_commands", nil, 30*time.Second, func(a answer) bool {
		return entry(a, queued) != nil && entry(a, queued)["status"] == "complete" && entry(a, holder)["status"] == "complete"
	})
	require.Nil(t, entry(got, queued)["waiting_for"], got.Text)
	res := c.ok("observe", map[string]any{"what": "command_result", "correlation_id": queued})
	require.Contains(t, res.Text, "clicked", "the queued click ran once the tab was free: %s", res.Text)
	held := c.ok("observe", map[string]any{"what": "command_result", "correlation_id": holder})
	require.Contains(t, held.Text, "open", held.Text)
}
