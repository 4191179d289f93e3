package tools

import (
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

func TestFromLinkNamesToolsNotLinkMethods(t *testing.T) {
	e := FromLink(&protocol.Error{Code: CodeTabUnloaded, TabID: 12, Why: protocol.UnloadedDiscarded,
		Message: "words the daemon does not read"})
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
// daemon). The daemon knows it is about a tab from the error's tab_id,
// never from its words; a refusal of a URL to open has none and keeps its
// own advice.
func TestFromLinkRestrictedPageNamesCloseTab(t *testing.T) {
	const words = "any words (Chrome said: Cannot attach to this target.)"
	e := FromLink(&protocol.Error{Code: protocol.CodeRestrictedPage, TabID: 7, Message: words})
	if e.Code != protocol.CodeRestrictedPage || !strings.HasPrefix(e.Message, words) || !strings.Contains(e.Message, "close it with interact close_tab") {
		t.Errorf("tab refusal: %s %q", e.Code, e.Message)
	}
	if n := e.NextAction; n == nil || n.Tool != "interact" || n.Arguments["what"] != "close_tab" || n.Arguments["tab_id"] != 7 {
		t.Errorf("next_action %+v", e.NextAction)
	}
	const open = "Chrome does not let extensions open chrome:// pages; use a web page URL"
	if e := FromLink(&protocol.Error{Code: protocol.CodeRestrictedPage, Message: open}); e.Message != open || e.NextAction != nil {
		t.Errorf("URL refusal: %q %+v", e.Message, e.NextAction)
	}
}
