package e2e

import (
	"bytes"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2EAnalyzeVisualDiff: the first call stores the baseline; the same
// page then matches it; recolouring the planted 120×60 box changes exactly
// its pixels, one region boxed at its place, drawn red in the diff image;
// a threshold above the change passes it; bad names are refused.
func TestE2EAnalyzeVisualDiff(t *testing.T) {
	x := startAnalyze(t, "analyze-visual", ChainOptions{})
	x.page("/pages/analyze/visual.html")
	type box struct {
		X, Y, Width, Height int
		Pixels              int `json:"changed_pixels"`
	}
	var r struct {
		Stored       bool
		BaselinePath string `json:"baseline_path"`
		DiffPath     string `json:"diff_path"`
		Width        int
		Height       int
		Changed      bool
		ChangedPixel int     `json:"changed_pixels"`
		ChangedPct   float64 `json:"changed_percent"`
		Regions      []box
	}
	a := x.analyze("visual_diff", map[string]any{"baseline": "home"})
	decode(t, a.Data, &r)
	require.True(t, r.Stored, a.Text)
	assert.Equal(t, filepath.Join(x.Home, "baselines", "home.png"), r.BaselinePath)
	st, err := os.Stat(r.BaselinePath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	assert.Contains(t, a.Text, "stored")

	r.Regions = nil
	a = x.analyze("visual_diff", map[string]any{"baseline": "home"})
	decode(t, a.Data, &r)
	assert.False(t, r.Stored)
	assert.False(t, r.Changed, a.Text)
	assert.Zero(t, r.ChangedPixel)
	assert.Empty(t, r.Regions)

	x.act("execute_js", map[string]any{"script": "document.getElementById('box').style.background = '#cc3333'"})
	a = x.analyze("visual_diff", map[string]any{"baseline": "home"})
	decode(t, a.Data, &r)
	assert.True(t, r.Changed, a.Text)
	assert.Equal(t, 120*60, r.ChangedPixel)
	assert.InDelta(t, float64(120*60)*100/float64(r.Width*r.Height), r.ChangedPct, 1e-9)
	assert.Equal(t, []box{{40, 100, 120, 60, 7200}}, r.Regions)
	raw, err := os.ReadFile(r.DiffPath)
	require.NoError(t, err)
	diff, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, r.Width, diff.Bounds().Dx())
	assert.Equal(t, color.RGBAModel.Convert(color.RGBA{255, 0, 0, 255}), color.RGBAModel.Convert(diff.At(100, 130)), "changed pixels are red")
	assert.Contains(t, a.Text, "region x=40 y=100 120x60")

	a = x.analyze("visual_diff", map[string]any{"baseline": "home", "threshold": 0.5})
	decode(t, a.Data, &r)
	assert.False(t, r.Changed, "within a 50%% threshold: %s", a.Text)

	for _, bad := range []string{"../escape", "a/b", "", ".hidden"} {
		x.analyzeFails("invalid_argument", "visual_diff", map[string]any{"baseline": bad})
	}
	x.analyzeFails("invalid_argument", "visual_diff", map[string]any{"baseline": "home", "threshold": 2})
}
