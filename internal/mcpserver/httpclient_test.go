package mcpserver_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// httpMCP speaks streamable HTTP to a daemon's /mcp with its token.
type httpMCP struct {
	t       testing.TB
	d       *daemon
	session string
	client  *http.Client
}

func newHTTP(t testing.TB, d *daemon) *httpMCP {
	return &httpMCP{t: t, d: d, client: &http.Client{}}
}

// post sends one message; it returns the status and the JSON-RPC messages
// of the answer (a JSON body, or the data of SSE events).
func (h *httpMCP) post(body string) (int, [][]byte) {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.d.url("/mcp"), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+h.d.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		h.session = sid
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, messagesOf(resp.Header.Get("Content-Type"), raw)
}

func messagesOf(contentType string, raw []byte) [][]byte {
	var out [][]byte
	switch {
	case strings.HasPrefix(contentType, "text/event-stream"):
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, protocol.MaxMessage)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && len(bytes.TrimSpace(d)) > 0 {
				out = append(out, bytes.Clone(d))
			}
		}
	case strings.HasPrefix(contentType, "application/json") && len(bytes.TrimSpace(raw)) > 0:
		out = append(out, bytes.TrimSpace(raw))
	}
	return out
}

// end deletes the session.
func (h *httpMCP) end() {
	if h.session == "" {
		return
	}
	req, _ := http.NewRequest("DELETE", h.d.url("/mcp"), nil)
	req.Header.Set("Authorization", "Bearer "+h.d.token)
	req.Header.Set("Mcp-Session-Id", h.session)
	if resp, err := h.client.Do(req); err == nil {
		resp.Body.Close()
	}
	h.session = ""
}
