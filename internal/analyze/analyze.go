// Package analyze implements the analyze tool — conclusions about a tab
// computed from the live page and the capture buffers — and generate
// sarif, which is analyze accessibility as SARIF 2.1.0.
//
// Modes that read the page run their scripts in Gasoline's isolated world
// (snapshot.WorldName), where the page's own scripts cannot see or change
// them, and hold the tab's action queue so that they never interleave with
// an action. The world is shared with the snapshot walker, so an element
// the latest snapshot named carries its ref (e12) in every answer.
//
// One file per mode family: accessibility (axe-core, injected by the
// extension from its vendored copy), sarif, visual (visual_diff), security
// (security_audit), forms, table (data_table), dom, summary
// (page_summary), perf (performance), clusters (error_clusters), issues
// (page_issues) and links (link_health).
package analyze

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/chromedp/cdproto/page"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Config wires an Analyzer. Every field but Self, HTTP and Logger is
// required.
type Config struct {
	Tabs  *tabs.Manager
	Store *capture.Store
	// Link calls the extension (cdp.inject runs axe-core in a world).
	Link tabs.Caller
	// Snapshots takes snapshots (page_summary) and says which refs the
	// latest one issued.
	Snapshots *snapshot.Snapshotter
	// Lock holds a tab's action queue (actions.Engine.Lock).
	Lock func(ctx context.Context, tab int) (unlock func(), err error)
	// Engine is the redaction engine in force: security_audit finds
	// secrets with the same rules that redact them.
	Engine func() (*redact.Engine, error)
	// Egress is the last redaction pass before a file is written.
	Egress *redact.Gateway
	// Capture takes a masked screenshot (observe.Observer.Capture, the
	// one path every screenshot takes): the image and how many elements
	// the mask covered.
	Capture func(ctx context.Context, s *cdp.Session, c *mcpserver.Call, p page.CaptureScreenshotParams) ([]byte, observe.Mask, error)
	// Secrets adds the redaction policy's mask selectors to the built-in
	// sensitive ones (internal/sensitive): their values in the HTML and
	// text analyze quotes read ••••.
	Secrets sensitive.Func
	// Denied reports whether the approval policy denies analyze
	// link_health on origin; it must answer true when it cannot decide
	// (fail closed).
	Denied func(origin string) bool
	// Dir is the state directory: visual_diff baselines go under
	// Dir/baselines, SARIF files under Dir/exports.
	Dir string
	// Self is the daemon's own origins (http://127.0.0.1:PORT, …):
	// link_health never requests them.
	Self []string
	// HTTP is the client link_health checks links with; nil builds one
	// (no cookies, bounded redirects, the policy checked on every hop).
	HTTP   *http.Client
	Logger *slog.Logger
}

// Analyzer serves the analyze modes and generate sarif.
type Analyzer struct {
	cfg   Config
	log   *slog.Logger
	links *http.Client
}

// New returns an Analyzer; it panics when a required field is missing.
func New(cfg Config) *Analyzer {
	if cfg.Tabs == nil || cfg.Store == nil || cfg.Link == nil || cfg.Snapshots == nil || cfg.Lock == nil ||
		cfg.Engine == nil || cfg.Egress == nil || cfg.Capture == nil || cfg.Denied == nil || cfg.Dir == "" {
		panic("analyze: Config is missing a required field")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Analyzer{cfg: cfg, log: cfg.Logger}
	a.links = cfg.HTTP
	if a.links == nil {
		a.links = a.linkClient()
	}
	return a
}

// Register makes every analyze mode and generate sarif work on m.
func (a *Analyzer) Register(m *mcpserver.Server) {
	modes := map[string]mcpserver.Handler{
		"accessibility":  a.accessibility,
		"data_table":     a.dataTable,
		"dom":            a.dom,
		"error_clusters": a.errorClusters,
		"forms":          a.forms,
		"link_health":    a.linkHealth,
		"page_issues":    a.pageIssues,
		"page_summary":   a.pageSummary,
		"performance":    a.performance,
		"security_audit": a.securityAudit,
		"visual_diff":    a.visualDiff,
	}
	for what, h := range modes {
		m.Handle("analyze", what, h)
	}
	m.Handle("generate", "sarif", a.sarif)
}

// result is a tool result: compact text for the model and v as
// structuredContent.
func result(text string, v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(raw)}, nil
}

// limitOf is the call's limit within [1, hi], def when absent.
func limitOf(c *mcpserver.Call, def, hi int) int {
	return min(max(cmp.Or(c.Args.Limit, def), 1), hi)
}

// invalid is an invalid_argument error pointing at the mode's guide.
func invalid(c *mcpserver.Call, format string, args ...any) *tools.Error {
	return &tools.Error{Code: tools.CodeInvalidArgument, Message: fmt.Sprintf(format, args...),
		NextAction: tools.Describe(c.Mode.Tool, c.Mode.Name)}
}
