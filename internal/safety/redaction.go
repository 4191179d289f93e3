package safety

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// redaction is the daemon's side of the redaction gateway (SAFETY.md): one
// live policy (redaction.json, shared with the native host's source
// stage), the server and egress stages over it, and the counters.
type redaction struct {
	store  *redact.Store
	server *redact.Gateway // capture, tool results, audit, approvals, logs
	egress *redact.Gateway // exports, files, model adapters

	mu       sync.Mutex
	total    *redact.Counters            // every stage, every session
	sessions map[string]*redact.Counters // per MCP session
}

// maxCountedSessions bounds the per-session counters kept.
const maxCountedSessions = 4096

func (c *Core) startRedaction(dir string, log *slog.Logger) {
	r := &c.red
	r.store = redact.OpenStore(redact.PathIn(dir))
	r.total = redact.NewCounters(r.version())
	r.sessions = map[string]*redact.Counters{}
	r.server = &redact.Gateway{Engine: r.store.Engine, Stage: redact.StageServer, Count: r.count}
	r.egress = &redact.Gateway{Engine: r.store.Engine, Stage: redact.StageEgress, Count: r.count}
	if _, err := r.store.Engine(); err != nil {
		// Fail closed but keep serving: every output is blocked with this
		// reason until the file is fixed.
		log.Error("redaction policy unusable; outputs are blocked until it is fixed", "file", r.store.Path(), "err", err)
	}
}

// Egress is the egress stage of the redaction gateway: exports, files
// written for the agent, HAR files and model-provider adapters pass their
// bytes through it last, right before they leave the daemon. It fails
// closed (see redact.Gateway); counts go to the calling session.
func (c *Core) Egress() *redact.Gateway { return c.red.egress }

// Server returns the server stage of the gateway (tool results,
// capture, audit, approval prompts).
func (c *Core) Server() *redact.Gateway { return c.red.server }

// version is the policy version in force ("" when broken).
func (r *redaction) version() string {
	e, err := r.store.Engine()
	if err != nil {
		return ""
	}
	return e.PolicyVersion()
}

// forget drops a session's counters.
func (r *redaction) forget(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sessions, sessionID)
}

// count records one gateway call for a session (and the daemon's total).
func (r *redaction) count(sessionID string, stage redact.Stage, st redact.Stats, err error) {
	v := r.version()
	r.total.SetPolicyVersion(v)
	r.total.Observe(stage, st, err)
	if sessionID == "" {
		return
	}
	c := r.session(sessionID)
	c.SetPolicyVersion(v)
	c.Observe(stage, st, err)
}

// sourceCounts are the params of a native host's redaction.counts event
// (internal/nativehost/counts.go): what its source stage redacted and
// blocked since its last report, per tab.
type sourceCounts struct {
	Stage redact.Stage `json:"stage"`
	Tabs  []struct {
		TabID    int              `json:"tab_id"`
		Redacted int64            `json:"redacted"`
		Blocked  int64            `json:"blocked"`
		ByClass  map[string]int64 `json:"by_class"`
	} `json:"tabs"`
}

// Bounds on one redaction.counts event: a host reports at most 1,024 tabs
// at a time, and labels are class names or user pattern labels.
const (
	maxReportedTabs    = 1024
	maxReportedClasses = 64
	maxClassLabel      = 64
)

// onRedactionCounts adds a native host's source-stage counts to the
// daemon's total and to the counters of the session that owns each tab
// when they arrive (owner; a tab no session owns counts in the total
// only). Only the source stage can be reported; malformed or negative
// counts are ignored. It runs on the link's read goroutine and never
// blocks for long.
func (r *redaction) onRedactionCounts(raw json.RawMessage, owner func(tab int) (string, bool)) error {
	var p sourceCounts
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("redaction.counts: %w", err)
	}
	if p.Stage != redact.StageSource {
		return fmt.Errorf("redaction.counts: stage %q is not reported by a host (only %q)", p.Stage, redact.StageSource)
	}
	if len(p.Tabs) > maxReportedTabs {
		return fmt.Errorf("redaction.counts: %d tabs in one report (at most %d)", len(p.Tabs), maxReportedTabs)
	}
	v := r.version()
	r.total.SetPolicyVersion(v)
	for _, t := range p.Tabs {
		st := redact.Stats{}
		if t.Redacted > 0 && t.Redacted < 1<<31 {
			st.Redacted = int(t.Redacted)
			for k, n := range t.ByClass {
				if n <= 0 || n >= 1<<31 || k == "" || len(k) > maxClassLabel || len(st.ByClass) >= maxReportedClasses {
					continue
				}
				if st.ByClass == nil {
					st.ByClass = map[string]int{}
				}
				st.ByClass[k] = int(n)
			}
		}
		targets := []*redact.Counters{r.total}
		if sid, ok := owner(t.TabID); ok && sid != "" && t.TabID > 0 {
			c := r.session(sid)
			c.SetPolicyVersion(v)
			targets = append(targets, c)
		}
		for _, c := range targets {
			c.Add(redact.StageSource, st)
			c.AddBlocked(redact.StageSource, t.Blocked)
		}
	}
	return nil
}

func (r *redaction) session(id string) *redact.Counters {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.sessions[id]
	if c == nil {
		if len(r.sessions) >= maxCountedSessions {
			for k := range r.sessions { // drop an arbitrary old session's counts
				delete(r.sessions, k)
				break
			}
		}
		c = redact.NewCounters(r.version())
		r.sessions[id] = c
	}
	return c
}

// status is what the panel and configure {what:"redaction"} show.
func (r *redaction) status(sessionID string) map[string]any {
	out := map[string]any{"file": r.store.Path()}
	tot := r.total.Snapshot()
	tot.PolicyVersion = r.version()
	out["total"] = tot
	if sessionID != "" {
		snap := r.session(sessionID).Snapshot()
		snap.PolicyVersion = tot.PolicyVersion
		out["policy_version"], out["redacted_count"], out["blocked_count"] = snap.PolicyVersion, snap.RedactedCount, snap.BlockedCount
		// Not under "session": a secret-sounding key, so the server stage
		// would replace the whole object in the tool result.
		out["counters"] = snap
	} else {
		out["policy_version"], out["redacted_count"], out["blocked_count"] = tot.PolicyVersion, tot.RedactedCount, tot.BlockedCount
	}
	if p, err := r.store.Policy(); err != nil {
		out["error"] = err.Error() + " (every output is blocked until the file is fixed)"
	} else {
		out["user_patterns"], out["mask_selectors"] = p.UserPatterns, p.MaskSelectors
	}
	return out
}

// RedactText redacts one string at the server stage for a session.
func (c *Core) RedactText(sessionID, text string) (string, error) {
	if text == "" {
		return "", nil
	}
	return c.red.server.Text(sessionID, text)
}

// MaskSelectors are the user's screenshot mask selectors.
func (c *Core) MaskSelectors() ([]string, error) {
	e, err := c.red.store.Engine()
	if err != nil {
		return nil, err
	}
	return e.MaskSelectors(), nil
}

// configureRedaction shows the policy and counters (op get, ungated) or
// adds a user pattern (gated: the user approved it already). Removing one
// is the user's alone (`gasoline-host redaction remove`).
func (c *Core) configureRedaction(ctx context.Context, call *mcpserver.Call) (any, error) {
	id := call.Session.ID()
	op, pat := call.Str("op"), call.Str("pattern")
	if op == "get" {
		return c.red.status(id), nil
	}
	if op == "remove_pattern" {
		return nil, removalRefused(pat) // the user's alone (guards.go)
	}
	if pat == "" {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "%s needs pattern: a regular expression (RE2)", op)
	}
	if op != "add_pattern" {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "op must be get, add_pattern or remove_pattern")
	}
	_, err := c.red.store.Update(func(p *redact.Policy) error {
		p.UserPatterns = append(p.UserPatterns, redact.Pattern{Label: redact.NextLabel(p.UserPatterns), Regex: pat})
		return nil
	})
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "the redaction policy was not changed: %v", err)
	}
	return c.red.status(id), nil
}

// OnRedactionCounts adds a native host's source-stage counts (its
// redaction.counts event) to the total and to the sessions owning the
// tabs (see onRedactionCounts).
func (c *Core) OnRedactionCounts(raw json.RawMessage, owner func(tab int) (string, bool)) error {
	return c.red.onRedactionCounts(raw, owner)
}

// RedactionStatus is what the panel and configure redaction show ("" for
// the daemon's total).
func (c *Core) RedactionStatus(sessionID string) map[string]any { return c.red.status(sessionID) }

// Engine is the redaction engine of the policy in force, or the error
// that blocks every output until the policy file is fixed.
func (c *Core) Engine() (*redact.Engine, error) { return c.red.store.Engine() }

// ReloadRedaction re-reads the redaction policy file now (it is also
// picked up on its own within a moment of a change) and returns its error.
func (c *Core) ReloadRedaction() error { return c.red.store.Reload() }

// PolicyVersion is the redaction policy in force ("" when broken).
func (c *Core) PolicyVersion() string { return c.red.version() }
