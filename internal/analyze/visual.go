package analyze

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/page"
	"github.com/orisano/pixelmatch"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

// analyze visual_diff: the viewport (masked like every screenshot) against
// a named baseline under Dir/baselines. The first call with a name stores
// the baseline; later calls compare with pixelmatch (perceptual YIQ colour
// distance, anti-aliased pixels detected and not counted), write the diff
// image and report the share of changed pixels and the boxes around the
// changed regions.

// VisualResult is visual_diff's answer.
type VisualResult struct {
	TabID    int    `json:"tab_id"`
	Baseline string `json:"baseline"`
	// Stored is true when this call stored the baseline (nothing was
	// compared).
	Stored       bool    `json:"stored"`
	BaselinePath string  `json:"baseline_path"`
	Width        int     `json:"width"`
	Height       int     `json:"height"`
	DiffPath     string  `json:"diff_path,omitempty"`
	ChangedPixel int     `json:"changed_pixels"`
	ChangedPct   float64 `json:"changed_percent"`
	Threshold    float64 `json:"threshold"` // the changed fraction allowed
	Changed      bool    `json:"changed"`   // changed_percent/100 > threshold
	// SizeChanged reports a screenshot of other dimensions than the
	// baseline's (BaseWidth × BaseHeight); the parts only one image
	// covers are compared against white.
	SizeChanged bool  `json:"size_changed,omitempty"`
	BaseWidth   int   `json:"baseline_width,omitempty"`
	BaseHeight  int   `json:"baseline_height,omitempty"`
	Regions     []Box `json:"regions,omitempty"`
	RegionCount int   `json:"region_count,omitempty"`
}

// Box is a changed region in screenshot pixels.
type Box struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
	Pixels int `json:"changed_pixels"`
}

var baselineName = lazyRE(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// colourThreshold is pixelmatch's per-pixel YIQ threshold (its default):
// smaller counts fainter changes.
const colourThreshold = 0.1

// diffRed is the colour pixelmatch paints a changed pixel in the diff
// image (anti-aliased ones are yellow, unchanged ones faded grey).
var diffRed = color.RGBA{R: 255, A: 255}

func (a *Analyzer) visualDiff(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	name := strings.TrimSuffix(c.Args.Baseline, ".png")
	if !baselineName().MatchString(name) {
		return nil, invalid(c, "baseline must be a name of 1 to 64 letters, digits, '.', '_' or '-' (baselines live under the state directory's baselines/), got %q", c.Args.Baseline)
	}
	var threshold float64
	if c.Args.Threshold != nil {
		threshold = *c.Args.Threshold
	}
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	shot, _, err := a.cfg.Capture(ctx, p.s, c, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	p.release()
	if err != nil {
		return nil, err
	}
	cur, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return nil, fmt.Errorf("analyze: decoding the screenshot: %w", err)
	}
	dir := filepath.Join(a.cfg.Dir, "baselines")
	r := VisualResult{TabID: p.tab, Baseline: name, BaselinePath: filepath.Join(dir, name+".png"), Threshold: threshold,
		Width: cur.Bounds().Dx(), Height: cur.Bounds().Dy()}
	old, err := os.ReadFile(r.BaselinePath)
	if errors.Is(err, fs.ErrNotExist) {
		if err := writeFile(dir, r.BaselinePath, shot); err != nil {
			return nil, err
		}
		r.Stored = true
		return pageResult(fmt.Sprintf("tab %d: baseline %q stored (%dx%d) at %s; call again with the same baseline to compare", r.TabID, name, r.Width, r.Height, r.BaselinePath), r, nil) // Gasoline's words and the agent's baseline name
	}
	if err != nil {
		return nil, fmt.Errorf("analyze: reading baseline %s: %w", r.BaselinePath, err)
	}
	base, err := png.Decode(bytes.NewReader(old))
	if err != nil {
		return nil, invalid(c, "baseline %q (%s) is not a PNG image (%v); remove it or use another name", name, r.BaselinePath, err)
	}
	diff, err := compare(base, cur, &r)
	if err != nil {
		return nil, err
	}
	var enc bytes.Buffer
	if err := png.Encode(&enc, diff); err != nil {
		return nil, fmt.Errorf("analyze: encoding the diff image: %w", err)
	}
	r.DiffPath = filepath.Join(dir, "diffs", name+".png")
	if err := writeFile(filepath.Dir(r.DiffPath), r.DiffPath, enc.Bytes()); err != nil {
		return nil, err
	}
	return pageResult(visualText(&r), r, nil) // pixels and paths: no page text
}

// compare diffs cur against base into r and returns the diff image.
func compare(base, cur image.Image, r *VisualResult) (*image.RGBA, error) {
	bb, cb := base.Bounds(), cur.Bounds()
	w, h := max(bb.Dx(), cb.Dx()), max(bb.Dy(), cb.Dy())
	if bb.Dx() != cb.Dx() || bb.Dy() != cb.Dy() {
		r.SizeChanged, r.BaseWidth, r.BaseHeight = true, bb.Dx(), bb.Dy()
	}
	var out image.Image
	a, b := onCanvas(base, w, h), onCanvas(cur, w, h)
	n, err := pixelmatch.MatchPixel(a, b, pixelmatch.Threshold(colourThreshold), pixelmatch.DiffColor(diffRed), pixelmatch.WriteTo(&out))
	if err != nil {
		return nil, fmt.Errorf("analyze: comparing screenshots: %w", err)
	}
	diff, ok := out.(*image.RGBA)
	switch {
	case !ok && n == 0:
		diff = faded(a) // identical images: pixelmatch returns before drawing
	case !ok:
		return nil, errors.New("analyze: pixelmatch wrote no diff image")
	}
	r.ChangedPixel = n
	r.ChangedPct = float64(n) * 100 / float64(w*h)
	r.Changed = r.ChangedPct/100 > r.Threshold
	r.Regions, r.RegionCount = regions(diff, maxRegions)
	return diff, nil
}

// onCanvas returns img as an RGBA image of w×h at the origin, white where
// img does not reach.
func onCanvas(img image.Image, w, h int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(out, img.Bounds().Sub(img.Bounds().Min), img, img.Bounds().Min, draw.Over)
	return out
}

// faded draws img as pixelmatch draws unchanged pixels: its luma,
// blended towards white (alpha 0.1).
func faded(img *image.RGBA) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	for i := 0; i+3 < len(img.Pix); i += 4 {
		p := img.Pix[i : i+4 : i+4]
		y := float64(p[0])*0.29889531 + float64(p[1])*0.58662247 + float64(p[2])*0.11448223
		v := uint8(255 + (y-255)*0.1*float64(p[3])/255)
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = v, v, v, 255
	}
	return out
}

func writeFile(dir, path string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("analyze: creating %s: %w", dir, err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("analyze: writing %s: %w", path, err)
	}
	return nil
}

func visualText(r *VisualResult) string {
	var b strings.Builder
	verdict := "within"
	if r.Changed {
		verdict = "over"
	}
	fmt.Fprintf(&b, "tab %d vs baseline %q: %.3f%% of %dx%d pixels changed (%d), %s the threshold of %.3f%%",
		r.TabID, r.Baseline, r.ChangedPct, r.Width, r.Height, r.ChangedPixel, verdict, r.Threshold*100)
	if r.SizeChanged {
		fmt.Fprintf(&b, "; the size changed from %dx%d", r.BaseWidth, r.BaseHeight)
	}
	for _, x := range r.Regions {
		fmt.Fprintf(&b, "\n- region x=%d y=%d %dx%d (%d changed pixels)", x.X, x.Y, x.Width, x.Height, x.Pixels)
	}
	if more := r.RegionCount - len(r.Regions); more > 0 {
		fmt.Fprintf(&b, "\n… %d smaller regions", more)
	}
	fmt.Fprintf(&b, "\ndiff image (changed pixels red, anti-aliasing yellow): %s", r.DiffPath)
	return b.String()
}
