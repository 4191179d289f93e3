package devtools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/download"
	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Downloads. Chrome gives an extension no way to choose where a download
// goes (Page/Browser.setDownloadBehavior answer "Cannot access
// browser-level commands" to chrome.debugger), so Gasoline keeps a
// session's downloads from ever reaching the browser's download manager:
// a document response that is a download (download.Detect) is held at the
// Fetch response stage, saved from its body stream into downloads/ once
// approved, and aborted in the browser. One that slips past (a file the
// page builds as a blob: or data: URL, or a response Detect took for a
// page) is cancelled by the extension before Chrome names its file
// (extension/lib/downloads.js), and Gasoline saves its content itself
// when it can read it (data: from the URL, blob: from the page).

// downloadWait bounds how long a download waits for the user's decision
// (the browser holds the response meanwhile).
const downloadWait = 2 * time.Minute

// downloadWillBegin is Chrome's event for a download a frame started
// (deprecated in the protocol in favour of Browser.*, which extensions do
// not get; Chromium 156 still sends it).
const downloadWillBegin = "Page.downloadWillBegin"

type downloadStart struct {
	FrameID           string `json:"frameId"`
	URL               string `json:"url"`
	SuggestedFilename string `json:"suggestedFilename"`
}

// heldMax bounds a download read into memory while the user decides: the
// page is released at once, so no action waits on the user, and nothing
// is written before the download is approved.
const heldMax = 64 << 20

// captureDownload saves a download held at the response stage and aborts
// it in the browser. When the policy lets it through, its body streams
// straight into downloads/; when the user must decide, it is read into
// memory first (at most heldMax), the browser is released, and it is
// written only once approved.
func (m *Manager) captureDownload(t *tabState, s *cdp.Session, ev *fetch.EventRequestPaused) {
	aborted := false
	abort := func() {
		if !aborted {
			aborted = true
			m.abort(t, s, ev.RequestID)
		}
	}
	defer abort()
	hs := headerList(ev.ResponseHeaders)
	name, typ := download.Filename(ev.Request.URL, hs), headerOf(hs, "Content-Type")
	size, _ := strconv.ParseInt(headerOf(hs, "Content-Length"), 10, 64)
	sid, ok := m.cfg.Tabs.Registry().Owner(t.tab)
	if !ok {
		return
	}
	t.markCaptured(ev.Request.URL, time.Now())
	id := m.downloads.Begin(sid, t.tab, ev.Request.URL, name, mediaType(typ), size, download.Pending)
	body := func(max int64, put func([]byte) error) error {
		ctx, cancel := context.WithTimeout(t.ctx, 5*time.Minute)
		defer cancel()
		r, err := cdproto.Call(ctx, s, fetch.TakeResponseBodyAsStream, fetch.TakeResponseBodyAsStreamParams{RequestID: ev.RequestID})
		if err != nil {
			return fmt.Errorf("reading the response: %w", err)
		}
		return s.ReadStream(ctx, r.Stream, max, put)
	}
	req, gated, err := m.request(t, sid, id)
	if err != nil {
		m.refuse(id, err.Error())
		return
	}
	if !gated {
		m.downloads.Update(id, func(r *download.Record) { r.State = download.Saving })
		m.save(t, id, name, func(put func([]byte) error) error { return body(download.MaxBytes, put) })
		return
	}
	var held []byte
	err = body(heldMax, func(b []byte) error { held = append(held, b...); return nil })
	abort()
	if err != nil {
		if errors.Is(err, cdp.ErrStreamTooLarge) {
			err = fmt.Errorf("larger than %d MiB, too large to hold while you decide; allow %s in the approval policy to save it without asking", heldMax>>20, download.Action)
		}
		m.refuse(id, err.Error())
		return
	}
	m.downloads.Update(id, func(r *download.Record) { r.Size = int64(len(held)) })
	if m.approve(t, id, req) {
		m.save(t, id, name, func(put func([]byte) error) error { return put(held) })
	}
}

// downloadBegan handles a download Chrome started in the tab past the
// interception. The extension cancels it before any file is written;
// Gasoline saves what it can read of it.
func (m *Manager) downloadBegan(t *tabState, s *cdp.Session, ev *downloadStart) {
	sid, ok := m.cfg.Tabs.Registry().Owner(t.tab)
	if !ok || t.wasCaptured(ev.URL, time.Now()) {
		return // Gasoline has it already; the extension cancels Chrome's copy
	}
	name := download.SafeName(ev.SuggestedFilename)
	if ev.SuggestedFilename == "" {
		name = download.Filename(ev.URL, nil)
	}
	var read func(ctx context.Context) ([]byte, string, error)
	switch {
	case strings.HasPrefix(ev.URL, "data:"):
		read = func(context.Context) ([]byte, string, error) { return dataURL(ev.URL) }
	case strings.HasPrefix(ev.URL, "blob:"):
		read = func(ctx context.Context) ([]byte, string, error) { return readBlob(ctx, s, ev.URL) }
	default:
		id := m.downloads.Begin(sid, t.tab, ev.URL, name, "", 0, download.Canceled)
		m.downloads.Update(id, func(r *download.Record) {
			r.Note = "Chrome started this download past Gasoline's interception; the extension cancelled it before any file was written"
		})
		return
	}
	// Read first: the page may revoke a blob: URL soon after the click.
	ctx, cancel := context.WithTimeout(t.ctx, time.Minute)
	body, typ, err := read(ctx)
	cancel()
	id := m.downloads.Begin(sid, t.tab, ev.URL, name, typ, int64(len(body)), download.Pending)
	if err != nil {
		m.downloads.Update(id, func(r *download.Record) {
			r.State, r.Note = download.Canceled, "the extension cancelled it before Chrome wrote a file; its content could not be read ("+err.Error()+")"
		})
		return
	}
	req, _, err := m.request(t, sid, id)
	if err != nil {
		m.refuse(id, err.Error())
		return
	}
	if m.approve(t, id, req) {
		m.save(t, id, name, func(put func([]byte) error) error { return put(body) })
	}
}

// request is the approval request of a download, in words, and whether
// the policy leaves it to the user (false: allowed outright); a policy
// that refuses it is the error.
func (m *Manager) request(t *tabState, sid, id string) (approval.Request, bool, error) {
	var rec download.Record
	m.downloads.Update(id, func(r *download.Record) { rec = *r })
	why, _ := tools.HighRisk(download.Action)
	target := fmt.Sprintf("save %q (%s, %s) that tab %d is downloading from %s into Gasoline's downloads folder %s (never your Downloads folder)",
		rec.Name, orUnknown(rec.Type), sizeText(rec.Size), t.tab, rec.URL, m.downloads.Dir())
	target, err := m.cfg.Redact(sid, target)
	if err != nil {
		return approval.Request{}, false, fmt.Errorf("the approval request could not be redacted: %w", err)
	}
	origin := gate.OriginOf(m.cfg.Tabs.URL(t.tab))
	req := approval.Request{SessionID: sid, Action: download.Action, Class: policy.Mutating, Target: target,
		Reason: "high risk: " + why, Scope: approval.Scope{TabID: t.tab, Origin: origin},
		Risk: &approval.Risk{Tier: approval.High, Why: why, Reasons: []approval.Reason{
			{Mode: "download", Kind: approval.RiskDownload, To: gate.OriginOf(rec.URL), Why: why}}}}
	gated, err := m.cfg.Approvals.Gates(req)
	return req, gated, err
}

// approve asks for a download (the policy, a grant, then the user) and
// records the outcome; it reports whether the download may be saved.
func (m *Manager) approve(t *tabState, id string, req approval.Request) bool {
	m.downloads.Update(id, func(r *download.Record) { r.Note = "waiting for the user to approve it in the Gasoline panel" })
	_, err := m.cfg.Approvals.Require(t.ctx, req, downloadWait)
	var re *approval.RequiredError
	switch {
	case err == nil:
		m.downloads.Update(id, func(r *download.Record) { r.State, r.Note = download.Saving, "" })
		return true
	case errors.As(err, &re):
		// Nobody decided in time: the request is withdrawn, so a late
		// approval cannot refer to a download that is gone.
		m.cfg.Approvals.Deny(re.Result().RequestID, "the download was abandoned after "+downloadWait.String())
		m.refuse(id, "not approved within "+downloadWait.String()+"; nothing was saved")
	default:
		m.refuse(id, err.Error())
	}
	return false
}

func (m *Manager) refuse(id, why string) {
	m.downloads.Update(id, func(r *download.Record) { r.State, r.Note = download.Refused, why })
}

// save writes an approved download and records the outcome.
func (m *Manager) save(t *tabState, id, name string, fill func(put func([]byte) error) error) {
	path, size, sum, text, err := m.downloads.Write(name, fill)
	m.downloads.Update(id, func(r *download.Record) {
		if err != nil {
			r.State, r.Note = download.Failed, err.Error()
			return
		}
		r.State, r.Path, r.Size, r.SHA256, r.Content, r.Note = download.Saved, path, size, sum, text, ""
	})
	if err != nil {
		m.log.Info("download failed", "tab", t.tab, "id", id, "err", err)
	}
}

// dataURL decodes a data: URL.
func dataURL(raw string) ([]byte, string, error) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(raw, "data:"), ",")
	if !ok {
		return nil, "", errors.New("a malformed data: URL")
	}
	typ := strings.TrimSuffix(meta, ";base64")
	if meta != typ {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			b, err = base64.URLEncoding.DecodeString(data)
		}
		return b, mediaType(typ), err
	}
	s, err := url.PathUnescape(data)
	return []byte(s), mediaType(typ), err
}

// blobMax bounds a file the page built that Gasoline reads back.
const blobMax = 16 << 20

// readBlobJS reads a blob: URL in the page (its own origin's), as base64.
const readBlobJS = `(async (u, max) => {
  const b = await (await fetch(u)).blob();
  if (b.size > max) return {error: 'larger than ' + max + ' bytes'};
  const a = new Uint8Array(await b.arrayBuffer());
  let s = '';
  for (let i = 0; i < a.length; i += 0x8000) s += String.fromCharCode.apply(null, a.subarray(i, i + 0x8000));
  return {type: b.type, data: btoa(s)};
})(%q, %d)`

func readBlob(ctx context.Context, s *cdp.Session, u string) ([]byte, string, error) {
	yes := true
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: fmt.Sprintf(readBlobJS, u, blobMax),
		AwaitPromise: &yes, ReturnByValue: &yes, Silent: &yes})
	if err != nil {
		return nil, "", err
	}
	if res.ExceptionDetails != nil {
		return nil, "", errors.New("the page's file is gone (its blob: URL was revoked)")
	}
	var v struct {
		Type  string `json:"type"`
		Data  string `json:"data"`
		Error string `json:"error"`
	}
	if res.Result == nil || json.Unmarshal(res.Result.Value, &v) != nil {
		return nil, "", errors.New("the page returned nothing")
	}
	if v.Error != "" {
		return nil, "", errors.New(v.Error)
	}
	b, err := base64.StdEncoding.DecodeString(v.Data)
	return b, mediaType(v.Type), err
}

func headerOf(hs []download.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// mediaType is a Content-Type without its parameters.
func mediaType(ct string) string {
	if t, _, err := mime.ParseMediaType(ct); err == nil {
		return t
	}
	return strings.TrimSpace(ct)
}

func orUnknown(s string) string {
	if s == "" {
		return "type unknown"
	}
	return s
}

func sizeText(n int64) string {
	switch {
	case n <= 0:
		return "size unknown"
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
