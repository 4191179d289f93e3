package watch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Conversation is the panel conversation id of agent_watch's events.
const Conversation = "agent_watch"

// interval is how often the capture buffers are scanned.
const interval = time.Second

// ServiceConfig configures a Service. Every field is required.
type ServiceConfig struct {
	// Scan is where signals come from (the capture buffers).
	Scan ScanConfig
	// Server runs a trigger's read-only calls as the tab's session.
	Server *mcpserver.Server
	// Approvals has the last word on what a trigger runs.
	Approvals *approval.Engine
	// Egress is the redaction gateway's last stage; PolicyVersion names
	// the policy in force.
	Egress        *redact.Gateway
	PolicyVersion func() string
	// Publish hands a fired, redacted envelope to the panel.
	Publish func(Envelope)
}

// Service is agent_watch in the daemon: configure {what:"agent_watch"}
// turns it on and off; a scan of the capture buffers every second offers
// new errors and failed requests to the Watcher; a fired trigger gathers
// read-only context for the tab's own session (mcpserver.CallTrigger:
// read-only modes only, then the approval engine's RequireForTrigger), and
// the envelope, redacted, goes to Publish and to configure agent_watch
// status.
type Service struct {
	cfg     ServiceConfig
	watcher *Watcher
}

// NewService returns a Service with a watch that is off.
func NewService(cfg ServiceConfig) *Service { return &Service{cfg: cfg, watcher: New(nil)} }

// Watcher returns the service's watcher.
func (s *Service) Watcher() *Watcher { return s.watcher }

// Register serves configure agent_watch.
func (s *Service) Register(m *mcpserver.Server) { m.Handle("configure", "agent_watch", s.Configure) }

// Run scans and fires until ctx ends.
func (s *Service) Run(ctx context.Context) {
	Run(ctx, s.watcher, NewScanner(s.cfg.Scan), interval, s.fire)
}

// triggerModes are the read-only calls a trigger makes for context.
var triggerModes = map[string][]map[string]any{
	Errors:        {{"what": "error_bundles", "limit": 3, "summary": true}},
	NetworkErrors: {{"what": "network_waterfall", "status": "failed", "limit": 5}},
	Security:      {{"what": "network_waterfall", "status": "failed", "limit": 5}},
}

// fire gathers context for a fired envelope, redacts it and publishes it.
func (s *Service) fire(ctx context.Context, env Envelope) {
	env.Context = map[string]string{}
	if sess := s.cfg.Server.SessionManager().Get(env.Session); sess != nil {
		for _, args := range triggerModes[env.Trigger] {
			a := map[string]any{"tab_id": env.Tab, "timeout_ms": 10_000}
			for k, v := range args {
				a[k] = v
			}
			raw, _ := json.Marshal(a)
			cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			res, err := s.cfg.Server.CallTrigger(cctx, sess, "observe", raw, s.TriggerCheck(env))
			cancel()
			if err == nil {
				env.Context["observe."+fmt.Sprint(args["what"])] = mcpserver.ToolText(res)
			}
		}
	}
	env = s.redactEnvelope(env)
	s.watcher.Record(env)
	s.cfg.Publish(env)
}

// TriggerCheck asks the approval engine whether the trigger may run the
// call: only read-only modes the policy allows outright.
func (s *Service) TriggerCheck(env Envelope) mcpserver.TriggerCheck {
	return func(ctx context.Context, c *mcpserver.Call) *tools.Error {
		_, err := s.cfg.Approvals.RequireForTrigger(ctx, approval.Request{
			SessionID: c.Session.ID(), Action: c.Mode.Key(), Class: policy.Class(c.Mode.Class),
			Scope: approval.Scope{TabID: env.Tab, Origin: env.URL}, Reason: "agent_watch " + env.Trigger,
		})
		if err == nil {
			return nil
		}
		code := approval.Code(err)
		if code == "" {
			code = mcpserver.CodeTriggerRefused
		}
		return &tools.Error{Code: code, Message: err.Error()}
	}
}

// redactEnvelope passes the whole envelope through the egress stage
// (counted to the tab's session) and records the counters in it. A
// blocked envelope keeps only its ids and says so.
func (s *Service) redactEnvelope(env Envelope) Envelope {
	raw, _ := json.Marshal(env)
	e, err := s.cfg.Egress.Engine()
	var stats redact.Stats
	if err == nil {
		raw, stats, err = e.JSON(raw)
	}
	if c := s.cfg.Egress.Count; c != nil {
		c(env.Session, redact.StageEgress, stats, err)
	}
	var out Envelope
	if err != nil || json.Unmarshal(raw, &out) != nil {
		out = Envelope{ContextID: env.ContextID, Session: env.Session, Tab: env.Tab, Trigger: env.Trigger, At: env.At,
			Summary: "context withheld: redaction blocked it", Redaction: Redaction{BlockedCount: 1}}
	} else {
		out.Redaction.RedactedCount = int64(stats.Redacted)
	}
	out.Redaction.PolicyVersion = s.cfg.PolicyVersion()
	return out
}

// Configure serves configure {what:"agent_watch", op, events,
// rate_limit_per_min, dedupe_window_seconds}.
func (s *Service) Configure(_ context.Context, c *mcpserver.Call) (any, error) {
	cur := s.watcher.Settings()
	switch c.Args.Op {
	case "status":
		return s.watcher.Status(), nil
	case "disable":
		cur.Enabled = false
	case "enable":
		cur.Enabled = true
		if c.Args.Events != nil { // given, even empty
			cur.Events = slices.Clone(c.Args.Events)
		}
		cur.RateLimitPerMin = cmp.Or(c.Args.RateLimitPerMin, cur.RateLimitPerMin)
		cur.DedupeWindowSec = cmp.Or(c.Args.DedupeWindowSeconds, cur.DedupeWindowSec)
	}
	set, err := s.watcher.Configure(cur)
	if err != nil {
		return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: err.Error() + "; configure describe_capabilities tool=configure mode=agent_watch shows the arguments",
			NextAction: tools.Describe("configure", "agent_watch")}
	}
	return map[string]any{"settings": set, "note": "triggers only ever run read-only modes"}, nil
}
