package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Storage limits: items listed per area, and bytes kept of one value.
const (
	maxItems     = 500
	maxItemValue = 1024
)

// StorageResult is observe storage's answer. Cookie values are never read.
type StorageResult struct {
	TabID          int           `json:"tab_id"`
	Origin         string        `json:"origin"`
	LocalStorage   StorageArea   `json:"local_storage"`
	SessionStorage StorageArea   `json:"session_storage"`
	Cookies        []CookieFlags `json:"cookies"`
}

// StorageArea is one Web Storage area.
type StorageArea struct {
	Count int           `json:"count"`
	Items []StorageItem `json:"items"`
	Error string        `json:"error,omitempty"` // e.g. storage blocked
}

// StorageItem is one key and its value (cut at 1 KiB).
type StorageItem struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	Truncated bool   `json:"truncated,omitempty"`
}

// CookieFlags is a cookie without its value.
type CookieFlags struct {
	Name     string  `json:"name"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires,omitempty"` // seconds since the epoch; 0 for session cookies
	Size     int64   `json:"size"`
	HTTPOnly bool    `json:"http_only"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"same_site,omitempty"`
	Session  bool    `json:"session"`
}

const storageProbe = `(() => { const dump = (name) => { try { const st = window[name]; const items = [];
for (let i = 0; i < st.length && i < %d; i++) { const k = st.key(i); items.push([k, st.getItem(k)]); }
return {count: st.length, items}; } catch (e) { return {count: 0, items: [], error: String(e && e.message || e)}; } };
return {origin: location.origin, url: location.href, local: dump('localStorage'), session: dump('sessionStorage')}; })()`

type rawArea struct {
	Count int         `json:"count"`
	Items [][2]string `json:"items"`
	Error string      `json:"error"`
}

func (o *Observer) storage(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := Budget(ctx, c)
	defer cancel()
	s, err := o.session(ctx, c)
	if err != nil {
		return nil, err
	}
	if len(o.cfg.Store.OpenDialogs(s.TabID())) > 0 {
		return nil, dialogBlocks(s.TabID())
	}
	ctxID, err := contextFor(ctx, s, strings.TrimSuffix(c.Str("origin"), "/"))
	if err != nil {
		return nil, err
	}
	var raw struct {
		Origin, URL    string
		Local, Session rawArea
	}
	if err := evalIn(ctx, s, ctxID, fmt.Sprintf(storageProbe, maxItems), &raw); err != nil {
		return nil, err
	}
	r := StorageResult{TabID: s.TabID(), Origin: raw.Origin, LocalStorage: area(raw.Local), SessionStorage: area(raw.Session), Cookies: []CookieFlags{}}
	cookies, err := cdproto.Call(ctx, s, network.GetCookies, network.GetCookiesParams{URLs: []string{raw.URL}})
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	for _, ck := range cookies.Cookies {
		if ck == nil {
			continue
		}
		r.Cookies = append(r.Cookies, CookieFlags{Name: ck.Name, Domain: ck.Domain, Path: ck.Path, Expires: ck.Expires, Size: ck.Size,
			HTTPOnly: ck.HTTPOnly, Secure: ck.Secure, SameSite: string(ck.SameSite), Session: ck.Session})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d, origin %s", r.TabID, r.Origin)
	for _, a := range []struct {
		name string
		a    StorageArea
	}{{"localStorage", r.LocalStorage}, {"sessionStorage", r.SessionStorage}} {
		fmt.Fprintf(&b, "\n%s: %d items", a.name, a.a.Count)
		if a.a.Error != "" {
			fmt.Fprintf(&b, " (%s)", a.a.Error)
		}
		for _, it := range a.a.Items {
			fmt.Fprintf(&b, "\n  %s = %s", it.Key, quote(it.Value, 120))
		}
	}
	fmt.Fprintf(&b, "\ncookies: %d (values never shown)", len(r.Cookies))
	for _, ck := range r.Cookies {
		fmt.Fprintf(&b, "\n  %s domain=%s path=%s httpOnly=%v secure=%v sameSite=%s session=%v", ck.Name, ck.Domain, ck.Path, ck.HTTPOnly, ck.Secure, ck.SameSite, ck.Session)
	}
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).Add(r.Origin).AddValue(r.LocalStorage.Items).
		AddValue(r.SessionStorage.Items).AddValue(r.Cookies))
}

func area(a rawArea) StorageArea {
	out := StorageArea{Count: a.Count, Error: a.Error, Items: make([]StorageItem, 0, len(a.Items))}
	for _, it := range a.Items {
		v, cut := cut(it[1], maxItemValue)
		out.Items = append(out.Items, StorageItem{Key: it[0], Value: v, Truncated: cut})
	}
	return out
}

// contextFor returns the execution context to read origin's storage in: 0
// (the main world of the page) when origin is empty or the page's own, else
// an isolated world in a frame of that origin.
func contextFor(ctx context.Context, s *cdp.Session, origin string) (runtime.ExecutionContextID, error) {
	if origin == "" {
		return 0, nil
	}
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return 0, tabs.ToolError(err)
	}
	var found cdproto.FrameID
	var walk func(t *page.FrameTree)
	walk = func(t *page.FrameTree) {
		if t == nil || t.Frame == nil || found != "" {
			return
		}
		if t.Frame.SecurityOrigin == origin {
			found = t.Frame.ID
		}
		for _, ch := range t.ChildFrames {
			walk(ch)
		}
	}
	walk(tree.FrameTree)
	if found == "" {
		return 0, &tools.Error{Code: tools.CodeInvalidArgument,
			Message: fmt.Sprintf("no frame of tab %d has origin %s; storage is read from the page's frames (observe page lists them)", s.TabID(), origin)}
	}
	w, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: found, WorldName: "gasoline-storage"})
	if err != nil {
		return 0, tabs.ToolError(err)
	}
	return w.ExecutionContextID, nil
}

// evalIn is evalJSON in a given execution context (0: the main world).
func evalIn(ctx context.Context, s *cdp.Session, id runtime.ExecutionContextID, expression string, v any) error {
	if id == 0 {
		return evalJSON(ctx, s, expression, v)
	}
	yes := true
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expression, ContextID: id, ReturnByValue: &yes, Silent: &yes})
	if err != nil {
		return tabs.ToolError(err)
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return tools.Errorf("page_error", "reading storage failed; retry")
	}
	return json.Unmarshal(res.Result.Value, v)
}
