package observe

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG screenshots
	_ "image/png"  // DecodeConfig of PNG screenshots
	"os"
	"path/filepath"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Screenshot limits: images larger than maxInline go to a file; a full
// page is cut at maxPageHeight CSS pixels.
const (
	maxInline     = 1536 << 10
	maxPageHeight = 16384
)

// ScreenshotResult describes a screenshot; the image itself is the
// result's image content, or the file at Path.
type ScreenshotResult struct {
	TabID  int    `json:"tab_id"`
	Format string `json:"format"`
	Bytes  int    `json:"bytes"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Path   string `json:"path,omitempty"`
	Masked bool   `json:"masked"` // password and card fields were masked
	// MaskedElements counts the elements the mask covered.
	MaskedElements int `json:"masked_elements"`
	// MaskedFrames counts the frames painted black whole: cross-origin
	// frames Gasoline cannot mask the fields inside (docs/REDACTION.md).
	MaskedFrames int `json:"masked_frames"`
}

const elementRect = `(() => { const e = document.querySelector(%q); if (!e) return null; const r = e.getBoundingClientRect();
return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; })()`

func (o *Observer) screenshot(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := Budget(ctx, c)
	defer cancel()
	s, err := o.session(ctx, c)
	if err != nil {
		return nil, err
	}
	tab := s.TabID()
	if len(o.cfg.Store.OpenDialogs(tab)) > 0 {
		return nil, dialogBlocks(tab)
	}
	format := c.Args.Format
	if format == "" {
		format = "png"
	}
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(format)}
	if format == "jpeg" {
		q := int64(cmp.Or(c.Args.Quality, 80))
		p.Quality = &q
	}
	if p.Clip, err = o.clip(ctx, s, c); err != nil {
		return nil, err
	}
	if p.Clip != nil {
		p.CaptureBeyondViewport = ptr(true)
	}
	// Chrome's fast PNG encoder (zlib's fastest level, no filters) takes
	// a few ms off a capture for bigger bytes (bench/README.md); a full
	// page, whose bytes grow the most, keeps the default encoder.
	fast := format == "png" && !c.Args.FullPage
	if fast {
		p.OptimizeForSpeed = ptr(true)
	}
	data, masked, err := o.Capture(ctx, s, c, p)
	if err == nil && fast && !c.Args.ToFile && len(data) > maxInline {
		// Too big to be inline when encoded fast: captured again, masked
		// again, with the default encoder, whose smaller bytes may fit.
		p.OptimizeForSpeed = nil
		data, masked, err = o.Capture(ctx, s, c, p)
	}
	if err != nil {
		return nil, err
	}
	r := ScreenshotResult{TabID: tab, Format: format, Bytes: len(data), Masked: true, MaskedElements: masked.Elements, MaskedFrames: masked.Frames}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		r.Width, r.Height = cfg.Width, cfg.Height
	}
	text := fmt.Sprintf("tab %d: %s screenshot %dx%d, %s", tab, format, r.Width, r.Height, size(int64(r.Bytes)))
	if r.MaskedFrames > 0 {
		text += fmt.Sprintf(" (%d cross-origin frame(s) painted black: Gasoline cannot mask the fields inside them; observe snapshot reads their text)", r.MaskedFrames)
	}
	if c.Args.ToFile || len(data) > maxInline {
		if r.Path, err = o.saveFile(tab, format, data); err != nil {
			return nil, err
		}
		return mcpserver.Result(text+", saved to "+r.Path, r)
	}
	res, err := mcpserver.Result(text, r)
	if err != nil {
		return nil, err
	}
	res.Content = append(res.Content, &mcp.ImageContent{Data: data, MIMEType: "image/" + format})
	return res, nil
}

// Capture takes a screenshot of the tab with password, card and the
// policy's mask selectors painted over in every document and open shadow
// root it reaches (out-of-process frames in their own sessions), and the
// frames it cannot reach painted black (it fails closed: no mask, no
// image), and returns the image and what the mask covered. A page with
// nothing to mask is watched instead of painted (mask.go: less script
// time on the capture's path, and the page's own style untouched); when
// something appeared meanwhile, it captures again, painted.
// A navigation during the capture discards the image (page_changed).
// Captures of one tab run one at a time. Every screenshot Gasoline takes
// goes through it (observe screenshot, analyze visual_diff).
func (o *Observer) Capture(ctx context.Context, s *cdp.Session, c *mcpserver.Call, p page.CaptureScreenshotParams) ([]byte, Mask, error) {
	lock, unlock, err := o.lockShot(ctx, s.TabID())
	if err != nil {
		return nil, Mask{}, err
	}
	defer unlock()
	data, mask, err := o.capture(ctx, s, c, p, lock.watching())
	if errors.Is(err, errWatchChanged) {
		lock.changed()
		data, mask, err = o.capture(ctx, s, c, p, false)
	}
	if err != nil {
		return nil, Mask{}, err
	}
	return data, Mask{Elements: mask.Count, Frames: mask.Frames}, nil
}

// clip returns the region to capture: an element (ref or selector), the
// full page, or nil for the viewport.
func (o *Observer) clip(ctx context.Context, s *cdp.Session, c *mcpserver.Call) (*page.Viewport, error) {
	switch ref, sel := c.Args.Ref, c.Args.Selector; {
	case ref != "":
		return o.refClip(ctx, s, ref)
	case sel != "":
		var r *struct{ X, Y, W, H float64 }
		if err := evalJSON(ctx, s, fmt.Sprintf(elementRect, sel), &r); err != nil {
			return nil, err
		}
		if r == nil || r.W <= 0 || r.H <= 0 {
			return nil, &tools.Error{Code: "element_not_found", Message: fmt.Sprintf("no visible element matches %q in tab %d; check the selector (observe snapshot shows the page)", sel, s.TabID())}
		}
		return &page.Viewport{X: r.X, Y: r.Y, Width: r.W, Height: r.H, Scale: 1}, nil
	case c.Args.FullPage:
		m, err := cdproto.Call(ctx, s, page.GetLayoutMetrics, cdproto.Empty{})
		if err != nil {
			return nil, tabs.ToolError(err)
		}
		if m.CSSContentSize == nil {
			return nil, nil
		}
		return &page.Viewport{Width: m.CSSContentSize.Width, Height: min(m.CSSContentSize.Height, maxPageHeight), Scale: 1}, nil
	}
	return nil, nil
}

// refClip boxes a snapshot ref's node.
func (o *Observer) refClip(ctx context.Context, s *cdp.Session, ref string) (*page.Viewport, error) {
	if o.cfg.ResolveRef == nil {
		return nil, tools.Errorf(tools.CodeNotAvailable, "screenshot by ref needs the snapshot engine, which this build lacks; pass a CSS selector instead")
	}
	id, err := o.cfg.ResolveRef(ctx, s.TabID(), ref)
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	box, err := cdproto.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: id})
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	m, err := cdproto.Call(ctx, s, page.GetLayoutMetrics, cdproto.Empty{})
	if err != nil || box.Model == nil || len(box.Model.Border) < 8 {
		return nil, tools.Errorf("element_not_found", "ref %s has no box (it is not rendered); take a new snapshot", ref)
	}
	q := box.Model.Border
	x0, y0, x1, y1 := min(q[0], q[2], q[4], q[6]), min(q[1], q[3], q[5], q[7]), max(q[0], q[2], q[4], q[6]), max(q[1], q[3], q[5], q[7])
	var sx, sy float64
	if v := m.CSSVisualViewport; v != nil {
		sx, sy = v.PageX, v.PageY
	}
	return &page.Viewport{X: x0 + sx, Y: y0 + sy, Width: x1 - x0, Height: y1 - y0, Scale: 1}, nil
}

// saveFile writes a large output under Dir/captures and returns its path.
func (o *Observer) saveFile(tab int, ext string, data []byte) (string, error) {
	dir := filepath.Join(o.cfg.Dir, "captures")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("observe: creating %s: %w", dir, err)
	}
	p := filepath.Join(dir, fmt.Sprintf("screenshot-tab%d-%d.%s", tab, time.Now().UnixMilli(), ext))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("observe: writing %s: %w", p, err)
	}
	return p, nil
}

func dialogBlocks(tab int) *tools.Error {
	return &tools.Error{Code: "dialog_open", NextAction: &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "handle_dialog", "accept": true, "tab_id": tab}},
		Message: fmt.Sprintf("a JavaScript dialog is open in tab %d and blocks the page; accept or dismiss it with interact handle_dialog first", tab)}
}
