//go:build linux

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestE2EGeneratePDF: the page printed to PDF under exports/ (0600), with
// its page count; the password field is under the screenshots' mask; the
// answer names no page text beyond Gasoline's own words.
func TestE2EGeneratePDF(t *testing.T) {
	x := startDevtools(t, "pdf-e2e", ChainOptions{})
	x.newTab(x.url("pages/form.html"))
	a := x.ok("generate", map[string]any{"what": "pdf"})
	path := a.Data["path"].(string)
	assert.Equal(t, filepath.Join(x.Home, "exports"), filepath.Dir(path))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(raw, []byte("%PDF-")), "a PDF")
	assert.Equal(t, float64(len(raw)), a.Data["bytes"])
	assert.Equal(t, 1.0, a.Data["pages"])
	assert.GreaterOrEqual(t, a.Data["masked_elements"], 1.0, "the password field is masked")
	st, _ := os.Stat(path)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	assert.Contains(t, a.Text, "printed to PDF: 1 page(s)")

	// A long page prints to several pages.
	x.newTab(x.url("pages/large.html"))
	a = x.ok("generate", map[string]any{"what": "pdf"})
	assert.Greater(t, a.Data["pages"], 1.0)
}

// TestE2EDownloadAsks: under the default policy a download is asked for
// as its own high-risk action, after the click that caused it: the user
// sees the file, its type and size and where it comes from; approved it is
// saved, denied nothing is written and the page stays put.
func TestE2EDownloadAsks(t *testing.T) {
	home := t.TempDir()
	x := startDevtools(t, "download-asks", ChainOptions{Policy: gatedPolicy, Env: []string{"HOME=" + home}})
	x.asked(t, "new_tab", map[string]any{"url": x.url("pages/devtools/files.html")})

	x.asked(t, "click", map[string]any{"selector": "#csv"}) // returns at once: the page is not held while the user decides
	req := approveAsked(t, x, `save "report.csv" (text/csv, 27 bytes) that tab`, "/devtools/report.csv into Gasoline's downloads folder", "never your Downloads folder")
	assert.Equal(t, tools.DownloadAction, req.Action)
	assert.Contains(t, req.Reason, "high risk")
	d := x.untilDownload("report.csv")
	assert.Equal(t, "saved", d["state"])

	x.asked(t, "click", map[string]any{"selector": "#archive"})
	eventually(t, 15*time.Second, "the archive's request", func() bool { return len(x.Server.Approvals().Pending("")) > 0 })
	p := x.Server.Approvals().Pending("")[0]
	assert.Contains(t, p.Target, `"archive.bin" (application/octet-stream, 195.3 KiB)`)
	require.Equal(t, "awaiting_approval", list(x.observe("downloads", nil), "downloads")[0]["state"])
	require.NoError(t, x.Server.Approvals().Deny(p.RequestID, "no"))
	d = x.untilDownload("archive.bin")
	assert.Equal(t, "refused", d["state"])
	_, err := os.Stat(filepath.Join(x.Home, "downloads", "archive.bin"))
	assert.True(t, os.IsNotExist(err), "a refused download writes nothing")
	assert.Equal(t, "Files", x.observe("page", nil).Data["title"], "the page stays where it was")

}
