package safety

import (
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// CaptureRedactor is the server stage for captured entries (SAFETY.md,
// stage 2): every text and URL field of an entry is redacted before the
// entry is stored. Counts go to the daemon's total (captured entries
// belong to tabs, not sessions). An error drops the entry: capture fails
// closed. The native host's source stage reports its own counts
// (redaction.counts, onRedactionCounts); markers it left in an entry are
// not counted again here.
func (c *Core) CaptureRedactor(kind string, v any) (any, error) {
	e, err := c.red.store.Engine()
	if err != nil {
		c.red.count("", redact.StageServer, redact.Stats{}, err)
		return nil, err
	}
	f := &redact.Fields{E: e}
	out, err := capture.RedactEntry(f, v)
	c.red.count("", redact.StageServer, f.Stats, err)
	return out, err
}
