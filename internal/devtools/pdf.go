package devtools

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

// PDFResult is generate pdf's answer.
type PDFResult struct {
	TabID          int    `json:"tab_id"`
	Path           string `json:"path"`
	Bytes          int    `json:"bytes"`
	Pages          int    `json:"pages"`
	MaskedElements int    `json:"masked_elements"`
	MaskedFrames   int    `json:"masked_frames"`
}

// maxPDF bounds a printed page.
const maxPDF = 200 << 20

// pdf prints the tab (backgrounds included) under the screenshots' mask
// and saves the PDF under exports/. Its content is the page as printed,
// like a screenshot's: the mask, not the text redaction, keeps sensitive
// fields out of it.
func (m *Manager) pdf(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	yes := true
	stream, mask, err := m.cfg.Print(ctx, s, c, page.PrintToPDFParams{PrintBackground: &yes})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.ReadStream(ctx, stream, maxPDF, func(b []byte) error { buf.Write(b); return nil }); err != nil {
		return nil, tabs.ToolError(err)
	}
	r := PDFResult{TabID: s.TabID(), Bytes: buf.Len(), Pages: pdfPages(buf.Bytes()), MaskedElements: mask.Elements, MaskedFrames: mask.Frames}
	if r.Path, err = export.Save(m.cfg.Dir, "page", ".pdf", buf.Bytes()); err != nil {
		return nil, err
	}
	text := fmt.Sprintf("tab %d printed to PDF: %d page(s), %s, saved to %s", r.TabID, r.Pages, sizeText(int64(r.Bytes)), r.Path)
	if r.MaskedElements > 0 || r.MaskedFrames > 0 {
		text += fmt.Sprintf(" (%d sensitive field(s) and %d cross-origin frame(s) blacked out)", r.MaskedElements, r.MaskedFrames)
	}
	return mcpserver.Result(text, r)
}

var (
	pageObj   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/Page\b`) })
	pageCount = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b`)
	})
)

// pdfPages counts a PDF's pages: the page objects Chrome writes (it
// writes no object streams), else the page tree's /Count.
func pdfPages(b []byte) int {
	if n := len(pageObj().FindAll(b, -1)); n > 0 {
		return n
	}
	best := 0
	for _, m := range pageCount().FindAllSubmatch(b, -1) {
		for _, g := range m[1:] {
			if n, err := strconv.Atoi(string(g)); err == nil && n > best {
				best = n
			}
		}
	}
	return best
}
