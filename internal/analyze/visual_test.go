package analyze

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func canvas(w, h int, c color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

var (
	white = color.RGBA{255, 255, 255, 255}
	blue  = color.RGBA{0x33, 0x66, 0xcc, 255}
	red   = color.RGBA{0xcc, 0x33, 0x33, 255}
)

// A recoloured box is one region boxed exactly; two boxes far apart are
// two regions, largest first; identical images change nothing.
func TestCompareRegions(t *testing.T) {
	base := canvas(400, 300, white)
	fill(base, image.Rect(40, 100, 160, 160), blue)
	cur := canvas(400, 300, white)
	fill(cur, image.Rect(40, 100, 160, 160), red)
	fill(cur, image.Rect(300, 20, 310, 25), blue)

	var r VisualResult
	diff, err := compare(base, cur, &r)
	require.NoError(t, err)
	assert.Equal(t, 120*60+10*5, r.ChangedPixel)
	assert.InDelta(t, float64(120*60+10*5)*100/(400*300), r.ChangedPct, 1e-9)
	assert.True(t, r.Changed)
	assert.Equal(t, []Box{{X: 40, Y: 100, Width: 120, Height: 60, Pixels: 7200}, {X: 300, Y: 20, Width: 10, Height: 5, Pixels: 50}}, r.Regions)
	assert.Equal(t, 2, r.RegionCount)
	assert.Equal(t, diffRed, diff.RGBAAt(50, 110))
	assert.Equal(t, diff.RGBAAt(5, 5).R, diff.RGBAAt(5, 5).G, "unchanged pixels are grey")

	r = VisualResult{Threshold: 0.1}
	_, err = compare(base, cur, &r)
	require.NoError(t, err)
	assert.False(t, r.Changed, "6%% changed is within a 10%% threshold")

	r = VisualResult{}
	diff, err = compare(base, base, &r)
	require.NoError(t, err)
	assert.Zero(t, r.ChangedPixel)
	assert.False(t, r.Changed)
	assert.Empty(t, r.Regions)
	assert.Equal(t, base.Bounds(), diff.Bounds())
}

// Regions a few pixels apart merge; the list is capped, the count is not.
func TestRegionsMergeAndCap(t *testing.T) {
	diff := canvas(200, 200, white)
	fill(diff, image.Rect(10, 10, 12, 12), diffRed)
	fill(diff, image.Rect(15, 10, 17, 12), diffRed) // 3 px gap: same region
	for i := range 5 {
		fill(diff, image.Rect(100+i*20, 150, 101+i*20, 151), diffRed)
	}
	got, n := regions(diff, 3)
	assert.Equal(t, 6, n)
	require.Len(t, got, 3)
	assert.Equal(t, Box{X: 10, Y: 10, Width: 7, Height: 2, Pixels: 8}, got[0])
}

// A screenshot of another size is compared on the union, the extra part
// against white, and says so.
func TestCompareSizeChange(t *testing.T) {
	base := canvas(100, 100, white)
	cur := canvas(100, 120, white)
	fill(cur, image.Rect(0, 100, 100, 120), blue)
	var r VisualResult
	_, err := compare(base, cur, &r)
	require.NoError(t, err)
	assert.True(t, r.SizeChanged)
	assert.Equal(t, 100, r.BaseWidth)
	assert.Equal(t, 100, r.BaseHeight)
	assert.Equal(t, 2000, r.ChangedPixel)
	assert.Equal(t, []Box{{X: 0, Y: 100, Width: 100, Height: 20, Pixels: 2000}}, r.Regions)
}

// pixelmatch does not count anti-aliased pixels: a one-pixel shift of a
// soft edge is not a change of the same weight as a recolouring.
func TestCompareIgnoresAntiAliasing(t *testing.T) {
	base := canvas(60, 60, white)
	cur := canvas(60, 60, white)
	for x := 10; x < 50; x++ { // a diagonal line with a grey fringe, moved by one pixel
		base.Set(x, x, color.Black)
		base.Set(x+1, x, color.Gray{0x80})
		cur.Set(x, x, color.Black)
		cur.Set(x, x+1, color.Gray{0x80})
	}
	var r VisualResult
	_, err := compare(base, cur, &r)
	require.NoError(t, err)
	// 80 pixels differ; pixelmatch takes the old fringe for anti-aliasing
	// and counts the other 39.
	assert.Equal(t, 39, r.ChangedPixel)
}
