package observe

import (
	"context"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// VitalsResult is observe vitals' answer. Times are milliseconds since the
// navigation started; a null value was not measured (yet): FCP and LCP need
// the page to paint, which Chrome does not do for hidden tabs; INP needs an
// interaction.
type VitalsResult struct {
	TabID        int      `json:"tab_id"`
	URL          string   `json:"url"`
	LCP          *float64 `json:"lcp_ms"`
	LCPElement   string   `json:"lcp_element,omitempty"`
	CLS          float64  `json:"cls"`
	INP          *float64 `json:"inp_ms"`
	Interactions int      `json:"interactions"`
	FCP          *float64 `json:"fcp_ms"`
	TTFB         *float64 `json:"ttfb_ms"`
	DOMContent   *float64 `json:"dom_content_loaded_ms"`
	Load         *float64 `json:"load_ms"`
	Visibility   string   `json:"visibility"`
	Ratings      []string `json:"ratings,omitempty"`
}

// vitalsRead flushes the recorder's observers (takeRecords, so nothing
// waits for a task the browser may throttle) and reads the values with the
// navigation timing.
const vitalsRead = `(() => { const v = window[Symbol.for('gasoline.vitals')]; if (!v) return null;
for (const [o, cb] of v.observers) o.takeRecords().forEach(cb);
const n = performance.getEntriesByType('navigation')[0]; const t = (x) => (n && x > 0 ? x : null);
return {url: location.href, lcp: v.lcp, lcpElement: v.lcpElement, cls: v.cls, inp: v.inp, interactions: v.interactions,
fcp: v.fcp, ttfb: t(n && n.responseStart), dcl: t(n && n.domContentLoadedEventEnd), load: t(n && n.loadEventEnd),
visibility: document.visibilityState}; })()`

func (o *Observer) vitals(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := Budget(ctx, c)
	defer cancel()
	s, err := o.session(ctx, c)
	if err != nil {
		return nil, err
	}
	if len(o.cfg.Store.OpenDialogs(s.TabID())) > 0 {
		return nil, dialogBlocks(s.TabID())
	}
	var v *struct {
		URL, LCPElement, Visibility string
		LCP, INP, FCP, TTFB         *float64
		DCL, Load                   *float64
		CLS                         float64
		Interactions                int
	}
	if err := evalJSON(ctx, s, vitalsRead, &v); err != nil {
		return nil, err
	}
	if v == nil { // a document loaded before capture was enabled
		if err := installVitals(ctx, s); err != nil {
			return nil, err
		}
		if err := evalJSON(ctx, s, vitalsRead, &v); err != nil || v == nil {
			return nil, err
		}
	}
	r := VitalsResult{TabID: s.TabID(), URL: v.URL, LCP: round(v.LCP), LCPElement: v.LCPElement, CLS: v.CLS, INP: round(v.INP),
		Interactions: v.Interactions, FCP: round(v.FCP), TTFB: round(v.TTFB), DOMContent: round(v.DCL), Load: round(v.Load), Visibility: v.Visibility}
	r.Ratings = ratings(r)
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d %s: LCP %s, CLS %.3f, INP %s, FCP %s, TTFB %s, DCL %s, load %s", r.TabID, r.URL,
		opt(r.LCP), r.CLS, opt(r.INP), opt(r.FCP), opt(r.TTFB), opt(r.DOMContent), opt(r.Load))
	if len(r.Ratings) > 0 {
		b.WriteString("\n" + strings.Join(r.Ratings, "; "))
	}
	if r.LCP == nil && r.Visibility == "hidden" {
		b.WriteString("\nthe tab is hidden: Chrome does not paint background tabs, so FCP/LCP appear once it is shown")
	}
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).Add(r.URL, r.LCPElement))
}

func round(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := float64(int64(*v*10+0.5)) / 10
	return &r
}

func opt(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return ms(*v)
}

// ratings grades the vitals against web.dev's thresholds.
func ratings(r VitalsResult) []string {
	var out []string
	grade := func(name string, v *float64, good, poor float64) {
		if v == nil {
			return
		}
		g := "good"
		switch {
		case *v > poor:
			g = "poor"
		case *v > good:
			g = "needs improvement"
		}
		out = append(out, name+" "+g)
	}
	grade("LCP", r.LCP, 2500, 4000)
	cls := r.CLS
	grade("CLS", &cls, 0.1, 0.25)
	grade("INP", r.INP, 200, 500)
	grade("FCP", r.FCP, 1800, 3000)
	grade("TTFB", r.TTFB, 800, 1800)
	return out
}
