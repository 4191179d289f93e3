package tabs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/scheme"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestOffLimitsPages: no tab is opened or navigated to a page off-limits
// to agents (the extension is never asked), and a tab that went to one
// (a redirect, the user) refuses every call but close_tab.
func TestOffLimitsPages(t *testing.T) {
	m, ext, _ := newTestManager(t)
	a := owner{"A", make(chan struct{})}
	for _, u := range []string{"file:///home/u/.gasoline/credentials/approver.token", "javascript:alert(1)",
		"chrome-extension://efmkjhahfhlpnniaiinagccopblhbdkc/sidepanel.html", "view-source:http://127.0.0.1/"} {
		_, _, err := m.Open(t.Context(), a, Req{URL: u})
		if te := (*tools.Error)(nil); !errors.As(err, &te) || te.Code != scheme.Code {
			t.Fatalf("Open(%s) = %v, want %s", u, err, scheme.Code)
		}
	}
	if n := ext.count("tabs.create"); n != 0 {
		t.Fatalf("the extension was asked to create %d tabs for refused URLs", n)
	}
	tab, _, err := m.Open(t.Context(), a, Req{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = m.Navigate(t.Context(), a, Req{URL: "file:///etc/passwd"})
	if te := (*tools.Error)(nil); !errors.As(err, &te) || te.Code != scheme.Code {
		t.Fatalf("Navigate(file:) = %v, want %s", err, scheme.Code)
	}
	if n := ext.count("cdp.send Page.navigate"); n != 0 {
		t.Fatalf("Page.navigate sent %d times for a refused URL", n)
	}

	// The tab goes to a file: page on its own (the user, a redirect).
	m.OnEvent("tabs.updated", json.RawMessage(`{"tab_id":`+itoa(tab.ID)+`,"url":"file:///etc/passwd"}`))
	e := m.Check("A", tab.ID)
	if e == nil || e.Code != scheme.Code || !strings.Contains(e.Message, "close_tab") || strings.Contains(e.Message, "passwd") {
		t.Fatalf("Check on a tab at file: = %v, want %s naming close_tab and not the URL", e, scheme.Code)
	}
	if _, err := m.Session(t.Context(), "A", 0); err == nil {
		t.Fatal("a call on a tab at file: got its CDP session")
	}
	if _, err := m.Close(t.Context(), "A", tab.ID); err != nil {
		t.Fatalf("close_tab on it: %v", err)
	}
}
