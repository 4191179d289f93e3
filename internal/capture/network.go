package capture

import (
	"container/list"
	"slices"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/network"
)

// openRequest is a request between requestWillBeSent and loadingFinished or
// loadingFailed. It is not stored (nor redacted) until it ends.
type openRequest struct {
	rec       Request
	startMono float64 // CDP monotonic seconds at requestWillBeSent
	elem      *list.Element
}

// maxShortText bounds short protocol strings (status text, MIME type, errors).
const maxShortText = 256

// onRequest records Network.requestWillBeSent: it opens a request, and when
// it carries a redirectResponse it first ends the previous hop with that id.
func (t *tab) onRequest(p []byte) error {
	var ev network.EventRequestWillBeSent
	if err := decode(p, &ev); err != nil {
		return err
	}
	if ev.Request == nil || ev.RequestID == "" {
		return errMalformed
	}
	o := t.opts
	id, ts := string(ev.RequestID), float64(ev.Timestamp)
	r := &openRequest{startMono: ts}
	c := &r.rec.Truncated
	r.rec.ID = limit(id, maxShortText, c)
	r.rec.Method = limit(ev.Request.Method, maxShortText, c)
	r.rec.URL = limit(ev.Request.URL, o.MaxURLBytes, c)
	r.rec.ResourceType = limit(string(ev.Type), maxShortText, c)
	r.rec.LoaderID = limit(string(ev.LoaderID), maxShortText, c)
	if r.rec.LoaderID == r.rec.ID {
		r.rec.LoaderID = r.rec.ID // a document's own request: one string
	}
	r.rec.Start = secTime(float64(ev.WallTime))
	if r.rec.Start.IsZero() {
		r.rec.Start = o.Now()
	}
	if in := ev.Initiator; in != nil {
		r.rec.InitiatorType = limit(string(in.Type), maxShortText, c)
		r.rec.InitiatorURL = initiatorURL(in, o.MaxURLBytes, c)
	}

	var hop *Request
	t.mu.Lock()
	if ev.WallTime > 0 && ts > 0 {
		t.wallOffset = float64(ev.WallTime) - ts
	}
	t.sent++
	r.rec.sent = t.sent
	if string(ev.LoaderID) == id && ev.Type == network.ResourceTypeDocument {
		t.docStarts[t.docNext] = docStart{loaderID: r.rec.ID, mono: ts, sent: t.sent}
		t.docNext = (t.docNext + 1) % len(t.docStarts)
		r.rec.mainDoc = t.mainFrame != "" && string(ev.FrameID) == t.mainFrame
	}
	if prev := t.open[r.rec.ID]; prev != nil {
		t.closeOpen(prev)
		if rr := ev.RedirectResponse; rr != nil {
			applyResponse(&prev.rec, prev.startMono, rr, ts)
			prev.rec.DurationMs = roundMs((ts - prev.startMono) * 1000)
			hop = &prev.rec
		}
	}
	t.addOpen(r)
	t.mu.Unlock()
	if hop != nil {
		store(t, t.network, kNetwork, *hop)
	}
	return nil
}

// initiatorURL names where a request came from: the top script frame, or
// the parser document, as url:line.
func initiatorURL(in *network.Initiator, maxURL int, cut *bool) string {
	url, line := in.URL, int(in.LineNumber)
	if in.Stack != nil && len(in.Stack.CallFrames) > 0 && in.Stack.CallFrames[0] != nil {
		f := in.Stack.CallFrames[0]
		url, line = f.URL, int(f.LineNumber)
	}
	if url == "" {
		return ""
	}
	return limit(url, maxURL, cut) + ":" + strconv.Itoa(line+1)
}

// addOpen tracks r, dropping the oldest open request when at
// MaxOpenRequests. Called with t.mu held.
func (t *tab) addOpen(r *openRequest) {
	for len(t.open) >= t.opts.MaxOpenRequests {
		t.closeOpen(t.openFIFO.Front().Value.(*openRequest))
		t.openEvicted++
	}
	r.elem = t.openFIFO.PushBack(r)
	t.open[r.rec.ID] = r
}

// closeOpen stops tracking r. Called with t.mu held.
func (t *tab) closeOpen(r *openRequest) {
	t.openFIFO.Remove(r.elem)
	delete(t.open, r.rec.ID)
}

// takeOpen removes and returns the open request with id, or nil.
func (t *tab) takeOpen(id string) *openRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.open[id]
	if r != nil {
		t.closeOpen(r)
	}
	return r
}

// applyResponse merges a response (final or redirect) into rec.
func applyResponse(rec *Request, startMono float64, resp *network.Response, respMono float64) {
	c := &rec.Truncated
	rec.Status = int(resp.Status)
	rec.StatusText = limit(resp.StatusText, maxShortText, c)
	rec.MimeType = limit(resp.MimeType, maxShortText, c)
	rec.FromCache = resp.FromDiskCache || resp.FromPrefetchCache
	rec.EncodedDataLength = int64(resp.EncodedDataLength)
	rec.TTFBMs = ttfb(resp.Timing, startMono, respMono)
	if rec.ResourceType == string(network.ResourceTypeDocument) {
		rec.Headers = securityHeaders(resp.Headers)
	}
}

// SecurityHeaders are the response headers capture keeps for documents:
// what analyze security_audit checks. Their values carry no secrets, and
// pass the Redactor like every other field.
var SecurityHeaders = []string{
	"content-security-policy", "content-security-policy-report-only", "strict-transport-security",
	"x-content-type-options", "x-frame-options", "referrer-policy", "permissions-policy",
	"cross-origin-opener-policy",
}

// securityHeaders picks SecurityHeaders from a response's headers (names
// matched case-insensitively; repeated headers arrive joined by newlines).
func securityHeaders(h network.Headers) map[string]string {
	var out map[string]string
	for name, v := range h {
		n := strings.ToLower(name)
		if !slices.Contains(SecurityHeaders, n) {
			continue
		}
		s, ok := v.(string)
		if !ok {
			continue
		}
		if out == nil {
			out = make(map[string]string, 4)
		}
		out[n], _ = truncate(s, maxHeaderValue)
	}
	return out
}

// maxHeaderValue bounds one kept header value (a CSP can be long).
const maxHeaderValue = 4096

// ttfb is milliseconds from the request's start to its first response byte:
// from the resource timing when Chrome sent one, else from the event times.
func ttfb(tm *network.ResourceTiming, startMono, respMono float64) float64 {
	if tm != nil && tm.RequestTime > 0 {
		h := tm.ReceiveHeadersStart
		if h <= 0 {
			h = tm.ReceiveHeadersEnd
		}
		if h > 0 {
			return roundMs((tm.RequestTime-startMono)*1000 + h)
		}
	}
	return roundMs((respMono - startMono) * 1000)
}

// onResponse records Network.responseReceived into the open request.
func (t *tab) onResponse(p []byte) error {
	var ev network.EventResponseReceived
	if err := decode(p, &ev); err != nil {
		return err
	}
	if ev.Response == nil {
		return errMalformed
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.open[string(ev.RequestID)]
	if r == nil {
		return nil // started before capture, or dropped at MaxOpenRequests
	}
	applyResponse(&r.rec, r.startMono, ev.Response, float64(ev.Timestamp))
	if r.rec.ResourceType == "" {
		r.rec.ResourceType = limit(string(ev.Type), maxShortText, &r.rec.Truncated)
	}
	return nil
}

// onFinished records Network.loadingFinished: the request ends and is stored.
func (t *tab) onFinished(p []byte) error {
	var ev network.EventLoadingFinished
	if err := decode(p, &ev); err != nil {
		return err
	}
	r := t.takeOpen(string(ev.RequestID))
	if r == nil {
		return nil
	}
	r.rec.DurationMs = roundMs((float64(ev.Timestamp) - r.startMono) * 1000)
	r.rec.EncodedDataLength = int64(ev.EncodedDataLength)
	store(t, t.network, kNetwork, r.rec)
	return nil
}

// onFailed records Network.loadingFailed: the request ends as failed.
func (t *tab) onFailed(p []byte) error {
	var ev network.EventLoadingFailed
	if err := decode(p, &ev); err != nil {
		return err
	}
	r := t.takeOpen(string(ev.RequestID))
	if r == nil {
		return nil
	}
	c := &r.rec.Truncated
	r.rec.DurationMs = roundMs((float64(ev.Timestamp) - r.startMono) * 1000)
	r.rec.Failed, r.rec.Canceled = true, ev.Canceled
	r.rec.ErrorText = limit(ev.ErrorText, maxShortText, c)
	r.rec.BlockedReason = limit(string(ev.BlockedReason), maxShortText, c)
	if ev.CorsErrorStatus != nil {
		r.rec.CORSError = limit(string(ev.CorsErrorStatus.CorsError), maxShortText, c)
	}
	if r.rec.ResourceType == "" {
		r.rec.ResourceType = limit(string(ev.Type), maxShortText, c)
	}
	store(t, t.network, kNetwork, r.rec)
	return nil
}
