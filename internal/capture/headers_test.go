package capture

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A document's response keeps its security headers (names lowercased,
// nothing else); other requests keep none.
func TestDocumentSecurityHeaders(t *testing.T) {
	b := newBrowse(t, nil)
	respond := func(id string, headers map[string]any) {
		b.ingest("Network.responseReceived", map[string]any{"requestId": id, "timestamp": b.ts,
			"response": map[string]any{"url": "x", "status": 200, "statusText": "OK", "mimeType": "text/html", "headers": headers}})
		b.ingest("Network.loadingFinished", map[string]any{"requestId": id, "timestamp": b.ts, "encodedDataLength": 10})
	}
	b.send("D1", "D1", "Document", mainFrameID, "/")
	b.commit(mainFrameID, "", "D1", "/", "Navigation")
	respond("D1", map[string]any{"Content-Security-Policy": "default-src 'self'", "X-Frame-Options": "DENY",
		"Set-Cookie": "sid=1", "Server": "x", "strict-transport-security": "max-age=1"})
	b.send("F1", "D1", "Fetch", mainFrameID, "/api")
	respond("F1", map[string]any{"Content-Security-Policy": "default-src 'none'"})

	got := b.s.Network(tabID, NetworkQuery{}).Entries
	require.Len(t, got, 2)
	assert.Equal(t, map[string]string{"content-security-policy": "default-src 'self'", "x-frame-options": "DENY",
		"strict-transport-security": "max-age=1"}, got[0].Headers)
	assert.Nil(t, got[1].Headers)
}
