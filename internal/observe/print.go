package observe

import (
	"context"

	"github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Print prints the tab to PDF under the same mask as every screenshot
// (password, card and the policy's mask selectors painted black; frames
// it cannot reach painted black whole; no mask, no PDF) and returns the
// stream Chrome wrote it to (the caller reads it with cdp.ReadStream) and
// what the mask covered. The mask is CSS, so it covers the print layout
// too. Captures and prints of one tab run one at a time.
func (o *Observer) Print(ctx context.Context, s *cdp.Session, c *mcpserver.Call, p page.PrintToPDFParams) (io.StreamHandle, Mask, error) {
	_, unlock, err := o.lockShot(ctx, s.TabID())
	if err != nil {
		return "", Mask{}, err
	}
	defer unlock()
	p.TransferMode = page.PrintToPDFTransferModeReturnAsStream
	r, mask, err := o.masked(ctx, s, c, cdp.NewStep(page.PrintToPDF, p), false)
	if err != nil {
		return "", Mask{}, err
	}
	res, err := cdp.ResultOf(page.PrintToPDF, r)
	if err != nil {
		return "", Mask{}, tabs.ToolError(err)
	}
	if res.Stream == "" {
		return "", Mask{}, tools.Errorf(tools.CodeInternal, "Chrome printed tab %d but returned no PDF stream; retry", s.TabID())
	}
	return res.Stream, Mask{Elements: mask.Count, Frames: mask.Frames}, nil
}
