package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/watch"
)

// agent_watch in the daemon: configure {what:"agent_watch"} turns it on
// and off; a scan of the capture buffers every second offers new errors
// and failed requests to the watcher; a fired trigger gathers read-only
// context (CallTrigger: read-only modes only, then the approval engine's
// RequireForTrigger) for the tab's own session, and the envelope goes to
// the panel as a panel.event (conversation "agent_watch") and to
// configure agent_watch status.

// WatchConversation is the conversation id of agent_watch's panel events.
const WatchConversation = "agent_watch"

// watchInterval is how often the capture buffers are scanned.
const watchInterval = time.Second

func (st *agentState) runWatch(ctx context.Context) {
	b := st.s.browser
	sc := watch.NewScanner(watch.ScanConfig{Store: b.store, Owner: b.tabs.Registry().Owner, URL: b.tabs.URL})
	watch.Run(ctx, st.watcher, sc, watchInterval, st.fire)
}

// triggerModes are the read-only calls a trigger makes for context.
var triggerModes = map[string][]map[string]any{
	watch.Errors:        {{"what": "error_bundles", "limit": 3, "summary": true}},
	watch.NetworkErrors: {{"what": "network_waterfall", "status": "failed", "limit": 5}},
	watch.Security:      {{"what": "network_waterfall", "status": "failed", "limit": 5}},
}

// fire gathers context for a fired envelope, redacts it and publishes it.
func (st *agentState) fire(ctx context.Context, env watch.Envelope) {
	env.Context = map[string]string{}
	if sess := st.m.SessionManager().Get(env.Session); sess != nil {
		for _, args := range triggerModes[env.Trigger] {
			a := map[string]any{"tab_id": env.Tab, "timeout_ms": 10_000}
			for k, v := range args {
				a[k] = v
			}
			raw, _ := json.Marshal(a)
			cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			res, err := st.m.CallTrigger(cctx, sess, "observe", raw, st.triggerCheck(env))
			cancel()
			if err == nil {
				env.Context["observe."+fmt.Sprint(args["what"])] = mcpserver.ToolText(res)
			}
		}
	}
	env = st.redactEnvelope(env)
	st.watcher.Record(env)
	st.publish(env)
}

// triggerCheck asks the approval engine whether the trigger may run the
// call: only read-only modes the policy allows outright.
func (st *agentState) triggerCheck(env watch.Envelope) mcpserver.TriggerCheck {
	return func(ctx context.Context, c *mcpserver.Call) *tools.Error {
		_, err := st.s.safe.approvals.RequireForTrigger(ctx, approval.Request{
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
func (st *agentState) redactEnvelope(env watch.Envelope) watch.Envelope {
	raw, _ := json.Marshal(env)
	e, err := st.s.Egress().Engine()
	var stats redact.Stats
	if err == nil {
		raw, stats, err = e.JSON(raw)
	}
	if c := st.s.Egress().Count; c != nil {
		c(env.Session, redact.StageEgress, stats, err)
	}
	var out watch.Envelope
	if err != nil || json.Unmarshal(raw, &out) != nil {
		out = watch.Envelope{ContextID: env.ContextID, Session: env.Session, Tab: env.Tab, Trigger: env.Trigger, At: env.At,
			Summary: "context withheld: redaction blocked it", Redaction: watch.Redaction{BlockedCount: 1}}
	} else {
		out.Redaction.RedactedCount = int64(stats.Redacted)
	}
	out.Redaction.PolicyVersion = st.s.safe.red.version()
	return out
}

// publish pushes the envelope to the panel as an evidence event.
func (st *agentState) publish(env watch.Envelope) {
	st.watchMu.Lock()
	st.watchSeq++
	seq := st.watchSeq
	st.watchMu.Unlock()
	kind := "error"
	if env.Trigger != watch.Errors {
		kind = "network"
	}
	ev := agent.Event{ConversationID: WatchConversation, TurnID: env.ContextID, Seq: seq, Kind: agent.KindEvidence, Text: env.Summary,
		Tool: "observe", Mode: "agent_watch", At: env.At,
		Redaction: &agent.Redaction{PolicyVersion: env.Redaction.PolicyVersion, RedactedCount: env.Redaction.RedactedCount, BlockedCount: env.Redaction.BlockedCount}}
	ev.Evidence = &agent.Evidence{Kind: kind, Title: env.Summary, URL: env.URL, At: env.At}
	if len(env.Evidence) > 0 {
		ev.Evidence.Detail = env.Evidence[0].Detail
	}
	for _, text := range env.Context {
		ev.Evidence.Detail = text
		break
	}
	st.emit(ev)
}

// configureWatch serves configure {what:"agent_watch", op, events,
// rate_limit_per_min, dedupe_window_seconds}.
func (st *agentState) configureWatch(_ context.Context, c *mcpserver.Call) (any, error) {
	cur := st.watcher.Settings()
	switch c.Str("op") {
	case "status":
		return st.watcher.Status(), nil
	case "disable":
		cur.Enabled = false
	case "enable":
		cur.Enabled = true
		if evs, ok := c.Args["events"].([]any); ok {
			cur.Events = cur.Events[:0:0]
			for _, e := range evs {
				s, _ := e.(string)
				cur.Events = append(cur.Events, s)
			}
		}
		cur.RateLimitPerMin = c.Int("rate_limit_per_min", cur.RateLimitPerMin)
		cur.DedupeWindowSec = c.Int("dedupe_window_seconds", cur.DedupeWindowSec)
	}
	s, err := st.watcher.Configure(cur)
	if err != nil {
		return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: err.Error() + "; configure describe_capabilities tool=configure mode=agent_watch shows the arguments",
			NextAction: tools.Describe("configure", "agent_watch")}
	}
	return map[string]any{"settings": s, "note": "triggers only ever run read-only modes"}, nil
}
