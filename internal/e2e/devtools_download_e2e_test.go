package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/slowsite"
)

// untilDownload waits until the session's download named name is no
// longer pending, and returns it.
func (c *client) untilDownload(name string) map[string]any {
	c.t.Helper()
	var found map[string]any
	c.until("downloads", nil, 30*time.Second, func(a answer) bool {
		for _, d := range list(a, "downloads") {
			if d["name"] == name && d["state"] != "awaiting_approval" && d["state"] != "saving" {
				found = d
				return true
			}
		}
		return false
	})
	return found
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestE2EDownloads: what the agent's clicks download — a file the server
// sends as an attachment, an <a download> link, a binary, and a file the
// page builds itself (a blob: URL) — lands in the state directory's
// downloads/ (0600), with its size, type and SHA-256, and small text in
// full (fenced as page text); the page stays where it was; and nothing
// ever reaches the Downloads folder of the browser's user (HOME points at
// an empty directory the test watches).
func TestE2EDownloads(t *testing.T) {
	home := t.TempDir()
	x := startDevtools(t, "downloads-e2e", ChainOptions{Env: []string{"HOME=" + home, "XDG_DOWNLOAD_DIR=" + filepath.Join(home, "Downloads")}})
	x.open("files.html")

	x.act("click", map[string]any{"selector": "#csv"})
	csv := x.untilDownload("report.csv")
	require.Equal(t, "saved", csv["state"], csv)
	assert.Equal(t, "text/csv", csv["type"])
	assert.Equal(t, float64(len(slowsite.ReportCSV)), csv["size"])
	assert.Equal(t, sha([]byte(slowsite.ReportCSV)), csv["sha256"])
	assert.Equal(t, slowsite.ReportCSV, csv["content"])
	path := csv["path"].(string)
	assert.Equal(t, filepath.Join(x.Home, "downloads", "report.csv"), path)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	saved, _ := os.ReadFile(path)
	assert.Equal(t, slowsite.ReportCSV, string(saved))
	assert.Equal(t, "Files", js[string](x.client, "document.title"), "the page stays where it was")

	x.act("click", map[string]any{"selector": "#notes"})
	notes := x.untilDownload("notes.txt")
	require.Equal(t, "saved", notes["state"], x.observe("downloads", nil).Text)
	assert.Equal(t, slowsite.NotesTXT, notes["content"])

	x.act("click", map[string]any{"selector": "#archive"})
	bin := x.untilDownload("archive.bin")
	require.Equal(t, "saved", bin["state"], bin)
	assert.Equal(t, sha(slowsite.Archive()), bin["sha256"])
	assert.Nil(t, bin["content"], "binary content is not shown")

	x.act("click", map[string]any{"selector": "#export"})
	blob := x.untilDownload("export.csv")
	require.Equal(t, "saved", blob["state"], blob)
	assert.Equal(t, "id,total\n1,99\n", blob["content"])

	// A second download of the same name gets a name of its own.
	x.act("click", map[string]any{"selector": "#csv"})
	eventually(t, 30*time.Second, "the second report", func() bool {
		_, err := os.Stat(filepath.Join(x.Home, "downloads", "report (2).csv"))
		return err == nil
	})

	a := x.observe("downloads", nil)
	assert.NotEqual(t, a.Text, a.Page, "the listing is fenced as page text")
	assert.Contains(t, a.Page, "Grace,7")

	// Nothing in the user's home but what Chromium keeps for itself.
	var stray []string
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(home, p); err == nil && !d.IsDir() && !strings.HasPrefix(rel, ".") {
			stray = append(stray, rel)
		}
		return nil
	})
	assert.Empty(t, stray, "files outside Chromium's own dot-directories")
	entries, err := os.ReadDir(filepath.Join(home, "Downloads"))
	if err == nil {
		assert.Empty(t, entries, "the Downloads folder")
	}
}
