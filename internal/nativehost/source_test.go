package nativehost

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

const (
	srcJWT    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	srcGitHub = "ghp_R8x2Lq9Vt4Wm6Yp1Zs3Ka5Nb7Dc0Ef2Gh4Jk"
)

// startSourceRelay is startRelay with the source stage on, reading the
// redaction policy at policyPath.
func startSourceRelay(t *testing.T, ctx context.Context, d *fakeDaemon, policyPath string) (*fakeExt, <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, Config{In: inR, Out: outW, Ensure: d.ensure, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
			Redaction: redact.OpenStore(policyPath)})
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return &fakeExt{t: t, w: nativemsg.NewWriter(inW), r: nativemsg.NewReader(outR, 0), in: inW}, done
}

func cdpEvent(method, session string, params any) protocol.Message {
	p, _ := json.Marshal(map[string]any{"tab_id": 7, "session_id": session, "method": method, "params": params})
	return protocol.Message{Method: "cdp.event", Params: p}
}

// TestSourceStageRedactsPageData: page-data events and results are
// redacted in the host; the envelope (ids, CDP session ids) and other
// messages pass byte for byte; a broken policy drops events and turns
// results into redaction_failed errors.
func TestSourceStageRedactsPageData(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	policy := filepath.Join(t.TempDir(), "redaction.json")
	d := newFakeDaemon(t)
	ext, done := startSourceRelay(t, ctx, d, policy)
	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	require.Equal(t, "hello", readWS(t, ctx, c).Method)

	// An event with headers, a URL and a console value.
	ext.send(cdpEvent("Network.requestWillBeSent", "SESSION-ABC", map[string]any{
		"requestId": "r1", "request": map[string]any{"url": "https://a.test/cb?access_token=" + srcGitHub + "&page=2",
			"headers": map[string]any{"Authorization": "Bearer " + srcJWT, "Accept": "*/*"}}}))
	got := readWS(t, ctx, c)
	raw := string(got.Params)
	require.NotContains(t, raw, srcJWT)
	require.NotContains(t, raw, srcGitHub)
	require.Contains(t, raw, `"session_id":"SESSION-ABC"`, "the envelope's session id routes child sessions: never redacted")
	require.Contains(t, raw, `"requestId":"r1"`)
	require.Contains(t, raw, `"Accept":"*/*"`)
	require.Contains(t, raw, "page=2")

	// Events without page data pass unchanged.
	ext.send(cdpEvent("Page.loadEventFired", "", map[string]any{"timestamp": 1.5, "note": srcGitHub}))
	require.Contains(t, string(readWS(t, ctx, c).Params), srcGitHub, "only page-data events are rewritten")

	// A daemon request for cookies: its reply is redacted; another
	// command's reply is not touched.
	writeWS(t, ctx, c, protocol.Message{ID: 40, Method: "cdp.send", Params: json.RawMessage(`{"tab_id":7,"method":"Network.getCookies","params":{}}`)})
	require.Equal(t, int64(40), ext.recv().ID)
	ext.send(protocol.Message{ID: 40, Result: json.RawMessage(`{"cookies":[{"name":"sid","value":"s3cr3t-cookie-value-123","httpOnly":true}]}`)})
	reply := readWS(t, ctx, c)
	require.NotContains(t, string(reply.Result), "s3cr3t-cookie-value-123")
	require.Contains(t, string(reply.Result), `"name":"sid"`)
	writeWS(t, ctx, c, protocol.Message{ID: 41, Method: "cdp.send", Params: json.RawMessage(`{"tab_id":7,"method":"Runtime.evaluate","params":{}}`)})
	ext.recv()
	ext.send(protocol.Message{ID: 41, Result: json.RawMessage(`{"result":{"value":"x"}}`)})
	require.JSONEq(t, `{"result":{"value":"x"}}`, string(readWS(t, ctx, c).Result))

	// A sequence naming a page-data command is refused by the host (its
	// results would skip the source stage); another goes to Chrome.
	writeWS(t, ctx, c, protocol.Message{ID: 42, Method: "cdp.sequence", Params: json.RawMessage(
		`{"tab_id":7,"steps":[{"method":"Runtime.evaluate","params":{}},{"method":"Network.getResponseBody","params":{"requestId":"r1"}}]}`)})
	refused := readWS(t, ctx, c)
	require.Equal(t, int64(42), refused.ID)
	require.NotNil(t, refused.Error)
	require.Equal(t, protocol.CodeBadRequest, refused.Error.Code)
	writeWS(t, ctx, c, protocol.Message{ID: 43, Method: "cdp.sequence", Params: json.RawMessage(
		`{"tab_id":7,"steps":[{"method":"Page.captureScreenshot","params":{}}]}`)})
	require.Equal(t, int64(43), ext.recv().ID, "a sequence without page data goes through")

	ext.in.Close()
	require.NoError(t, <-done)
}

// TestSourceStageKeepsCDPTypes: an HTTPS response event (securityDetails
// has numbers under secret-sounding names) still decodes with cdproto after
// the source stage, with its cookie redacted.
func TestSourceStageKeepsCDPTypes(t *testing.T) {
	src := newSource(redact.OpenStore(filepath.Join(t.TempDir(), "redaction.json")), nil)
	raw, _ := json.Marshal(cdpEvent("Network.responseReceived", "", json.RawMessage(`{"requestId":"1","loaderId":"L","timestamp":1.5,"type":"Document",`+
		`"response":{"url":"https://a.test/","status":200,"statusText":"OK","headers":{"set-cookie":"sid=abc123secret; Secure"},"mimeType":"text/html",`+
		`"charset":"utf-8","connectionReused":false,"connectionId":12,"encodedDataLength":100,"securityState":"secure","protocol":"h2",`+
		`"securityDetails":{"protocol":"TLS 1.3","keyExchange":"","keyExchangeGroup":"X25519","cipher":"AES_128_GCM","certificateId":0,`+
		`"subjectName":"a.test","sanList":["a.test"],"issuer":"R3","validFrom":1700000000,"validTo":1800000000,"signedCertificateTimestampList":[],`+
		`"certificateTransparencyCompliance":"compliant","serverSignatureAlgorithm":1027,"encryptedClientHello":false}},"hasExtraInfo":true,"frameId":"F"}`)))
	out := src.up(raw, peek(raw))
	require.NotNil(t, out)
	require.NotContains(t, string(out), "abc123secret")
	var env struct {
		Params struct {
			Params json.RawMessage `json:"params"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(out, &env))
	var ev network.EventResponseReceived
	require.NoError(t, jsonv2.Unmarshal(env.Params.Params, &ev), "%s", env.Params.Params)
	require.EqualValues(t, 1027, ev.Response.SecurityDetails.ServerSignatureAlgorithm)
}

// TestSourceStageFailsClosed: with a broken policy, page-data events are
// dropped and page-data results become redaction_failed errors.
func TestSourceStageFailsClosed(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	policy := filepath.Join(t.TempDir(), "redaction.json")
	require.NoError(t, os.WriteFile(policy, []byte(`{"version":`), 0o600))
	d := newFakeDaemon(t)
	ext, done := startSourceRelay(t, ctx, d, policy)
	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	require.Equal(t, "hello", readWS(t, ctx, c).Method)

	ext.send(cdpEvent("Runtime.consoleAPICalled", "", map[string]any{"type": "log", "args": []any{map[string]any{"value": "token " + srcGitHub}}}))
	ext.send(cdpEvent("Page.loadEventFired", "", map[string]any{"timestamp": 1.5}))
	got := readWS(t, ctx, c)
	require.True(t, strings.Contains(string(got.Params), "Page.loadEventFired"), "the console event was dropped, the next one arrives: %s", got.Params)

	writeWS(t, ctx, c, protocol.Message{ID: 42, Method: "cdp.send", Params: json.RawMessage(`{"tab_id":7,"method":"Storage.getCookies","params":{}}`)})
	ext.recv()
	ext.send(protocol.Message{ID: 42, Result: json.RawMessage(`{"cookies":[{"name":"sid","value":"v"}]}`)})
	m := readWS(t, ctx, c)
	require.Equal(t, int64(42), m.ID)
	require.NotNil(t, m.Error, "a result the host cannot redact is an error")
	require.Equal(t, "redaction_failed", m.Error.Code)
	require.Nil(t, m.Result)

	ext.in.Close()
	require.NoError(t, <-done)
}

// BenchmarkSourceStage: the host's cost per page-data event (a request
// with headers and a URL, as Chrome sends it) and per event it only peeks
// at (a load event).
func BenchmarkSourceStage(b *testing.B) {
	src := newSource(redact.OpenStore(filepath.Join(b.TempDir(), "redaction.json")), nil)
	ev := func(m protocol.Message) ([]byte, head) {
		raw, _ := json.Marshal(m)
		return raw, peek(raw)
	}
	req, rh := ev(cdpEvent("Network.requestWillBeSent", "", map[string]any{"requestId": "1000.1", "loaderId": "L",
		"request": map[string]any{"url": "https://app.example.test/api/items?page=2&access_token=" + srcGitHub, "method": "GET",
			"headers": map[string]any{"Accept": "application/json", "Authorization": "Bearer " + srcJWT, "User-Agent": "Mozilla/5.0"}},
		"timestamp": 1.5, "wallTime": 1.7e9, "initiator": map[string]any{"type": "script"}, "type": "Fetch"}))
	load, lh := ev(cdpEvent("Page.loadEventFired", "", map[string]any{"timestamp": 1.5}))
	b.Run("page data", func(b *testing.B) {
		b.SetBytes(int64(len(req)))
		for b.Loop() {
			if src.up(req, rh) == nil {
				b.Fatal("dropped")
			}
		}
	})
	b.Run("other", func(b *testing.B) {
		for b.Loop() {
			src.up(load, lh)
		}
	})
}
