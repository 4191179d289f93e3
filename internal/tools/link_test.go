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
