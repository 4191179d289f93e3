package devtools

import (
	"context"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/download"
	"github.com/gasoline-mcp/gasoline/internal/route"
)

// decideTimeout bounds each Fetch command that lets a paused request go
// on: a request the daemon cannot answer for is failed by Chrome when the
// debugger detaches.
const decideTimeout = 10 * time.Second

// paused decides one request the tab's interception holds: at the
// response stage a document is checked for a download; at the request
// stage the newest route that matches acts on it, and a request no route
// matches (another method, another type) goes on untouched.
func (m *Manager) paused(t *tabState, s *cdp.Session, ev *fetch.EventRequestPaused) {
	if ev.Request == nil {
		return
	}
	if ev.ResponseStatusCode != 0 || ev.ResponseErrorReason != "" {
		if ev.ResourceType == network.ResourceTypeDocument && ev.ResponseErrorReason == "" &&
			download.Detect(headerMap(ev.Request.Headers), int(ev.ResponseStatusCode), headerList(ev.ResponseHeaders)) {
			m.captureDownload(t, s, ev)
			return
		}
		m.goOn(t, s, ev.RequestID)
		return
	}
	r, ok := t.routes.Match(ev.Request.Method, ev.Request.URL, string(ev.ResourceType), time.Now())
	if !ok {
		m.goOn(t, s, ev.RequestID)
		return
	}
	if r.DelayMS > 0 {
		timer := time.NewTimer(time.Duration(r.DelayMS) * time.Millisecond)
		select {
		case <-timer.C:
		case <-t.ctx.Done(): // the tab left its session: Chrome lets the request go when it detaches
			timer.Stop()
			return
		}
	}
	ctx, cancel := context.WithTimeout(t.ctx, decideTimeout)
	defer cancel()
	var err error
	switch {
	case r.Block:
		_, err = cdproto.Call(ctx, s, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	case r.Fulfills():
		status, hs, body := r.Response(headerMap(ev.Request.Headers))
		p := fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: int64(status), Body: body}
		for _, h := range hs {
			p.ResponseHeaders = append(p.ResponseHeaders, &fetch.HeaderEntry{Name: h.Name, Value: h.Value})
		}
		_, err = cdproto.Call(ctx, s, fetch.FulfillRequest, p)
	default:
		_, err = cdproto.Call(ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	}
	if err != nil {
		m.log.Debug("route: answering a paused request failed", "tab", t.tab, "route", r.ID, "err", err)
	}
}

// goOn lets a paused request continue as it is.
func (m *Manager) goOn(t *tabState, s *cdp.Session, id fetch.RequestID) {
	ctx, cancel := context.WithTimeout(t.ctx, decideTimeout)
	defer cancel()
	if _, err := cdproto.Call(ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
		m.log.Debug("continuing a paused request failed", "tab", t.tab, "err", err)
	}
}

// abort fails a paused request as the browser's own cancel would: the
// page stays as it was, and no download starts.
func (m *Manager) abort(t *tabState, s *cdp.Session, id fetch.RequestID) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), decideTimeout)
	defer cancel()
	if _, err := cdproto.Call(ctx, s, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonAborted}); err != nil {
		m.log.Debug("aborting a paused request failed", "tab", t.tab, "err", err)
	}
}

func headerMap(h network.Headers) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func headerList(h []*fetch.HeaderEntry) []download.Header {
	out := make([]download.Header, 0, len(h))
	for _, x := range h {
		if x != nil {
			out = append(out, download.Header{Name: x.Name, Value: x.Value})
		}
	}
	return out
}

// routeError is the agent's error for a bad route.
func routeError(err error) error {
	if e, ok := err.(*route.Error); ok {
		return invalid(e.Msg)
	}
	if err == route.ErrFull {
		return invalid(fmt.Sprintf("the tab already has %d routes; interact unroute some first", route.MaxRoutes))
	}
	return err
}
