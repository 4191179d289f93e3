package tools

import (
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

func TestFromLinkNamesToolsNotLinkMethods(t *testing.T) {
	e := FromLink(&protocol.Error{Code: CodeTabUnloaded, TabID: 12,
		Message: "tab 12 is discarded (Chrome unloaded it to save memory); it must be reloaded before other commands"})
	if !strings.HasPrefix(e.Message, "tab 12 is discarded") || !strings.Contains(e.Message, "interact refresh") || strings.Contains(e.Message, "tabs.reload") {
		t.Errorf("message %q", e.Message)
	}
	if e.NextAction == nil || e.NextAction.Tool != "interact" || e.NextAction.Arguments["what"] != "refresh" || e.NextAction.Arguments["tab_id"] != 12 {
		t.Errorf("next_action %+v", e.NextAction)
	}
	if e := FromLink(&protocol.Error{Code: protocol.CodeNotReady, Message: "m"}); !e.Retryable || e.Message != "m" {
		t.Errorf("not_ready: %+v", e)
	}
}

// The extension's refusal of a tab whose page is off-limits names the one
// call that still works on it, close_tab, as the daemon's own refusal does
// (the extension can refuse before the tab's new address reaches the
// daemon); Chrome's text, when quoted, stays. A refusal of a navigation
// keeps its own advice.
func TestFromLinkRestrictedPageNamesCloseTab(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Chrome will not let extensions debug tab 7: it shows an extension's page; use a tab with a web page",
			"Chrome will not let extensions debug tab 7: it shows an extension's page; an agent may drive only web pages: close it with interact close_tab, or use another tab"},
		{"Chrome will not let extensions debug tab 7: it shows a browser, DevTools or extension page; use a tab with a web page (Chrome said: Cannot attach to this target.)",
			"Chrome will not let extensions debug tab 7: it shows a browser, DevTools or extension page; an agent may drive only web pages: close it with interact close_tab, or use another tab (Chrome said: Cannot attach to this target.)"},
		{"Chrome does not let extensions open chrome:// pages; use a web page URL", "Chrome does not let extensions open chrome:// pages; use a web page URL"},
	} {
		e := FromLink(&protocol.Error{Code: protocol.CodeRestrictedPage, Message: c.in})
		if e.Code != protocol.CodeRestrictedPage || e.Message != c.want {
			t.Errorf("FromLink(%q) = %s %q; want %q", c.in, e.Code, e.Message, c.want)
		}
	}
}
