package bridge

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// startMCP builds the MCP server behind /mcp (streamable HTTP) and the
// stdio relay's link (bridge.shared), with the approval gate and the redaction gateway it
// cannot run without. The MCP layer's goroutines stop with ctx.
func (s *Server) startMCP(ctx context.Context) (*mcpserver.Server, error) {
	started := time.Now()
	g, err := gate.New(gate.Config{Approvals: s.safe.Approvals, Tabs: s.browser.tabs, Describe: s.browser.act.See, History: s.browser.act.HistoryURL,
		Page: s.browser.page, Configure: s.safe.Explain, Redact: s.safe.RedactText,
		PageTools: s.browser.pages, Words: s.browser.dev.Words})
	if err != nil {
		return nil, err
	}
	m, err := mcpserver.New(ctx, &mcpserver.Options{
		Version:  s.cfg.Version,
		Dir:      s.cfg.Dir,
		Sessions: session.Options{File: filepath.Join(s.cfg.Dir, session.FileName), TTL: s.cfg.SessionTTL}, // sessions resume after a restart; what an ended one held goes in sessionEnded
		Logger:   s.log,
		Gate:     g.Check,
		Scope:    s.remoteScope, // a remote agent's calls stay in its scope
		Audit: func(sessionID, key string, class tools.Class, d time.Duration, failed bool) error {
			s.touch() // a call ended (stdio calls come over one long link)
			return s.safe.AuditCall(sessionID, key, class, d, failed)
		},
		Redact: s.safe.Server(),
		// The user's extra screenshot masks, from the redaction policy.
		MaskSelectors: s.safe.MaskSelectors,
		Daemon: func() mcpserver.Daemon {
			return mcpserver.Daemon{PID: os.Getpid(), StartedAt: started, Extension: s.links.Connected(), Browsers: s.links.List(),
				Memory: s.Memory().Brief()}
		},
	})
	if err != nil {
		return nil, err
	}
	s.safe.Register(m)
	s.mcpHTTP = m.HTTPHandler()
	return m, nil
}
