package panel

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/watch"
)

// panelExport answers panel.export: the panel session's redacted export,
// with one conversation's events (or all conversations').
func (p *Panel) panelExport(ctx context.Context, raw json.RawMessage) (any, *protocol.Error) {
	var q struct {
		ConversationID string `json:"conversation_id"`
	}
	json.Unmarshal(raw, &q)
	conv := map[string]any{}
	for _, c := range p.chat.Conversations() {
		if q.ConversationID == "" || c.ID == q.ConversationID {
			conv[c.ID] = map[string]any{"provider": c.Provider, "tab_id": c.TabID(), "created_at": c.Created, "events": c.Events()}
		}
	}
	if q.ConversationID != "" && len(conv) == 0 {
		return nil, protocol.Errorf(CodeConversationLost, false, "conversation %s is gone (the daemon restarted)", q.ConversationID)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := p.cfg.Export(ctx, SessionID, conv)
	if err != nil {
		return nil, &protocol.Error{Code: "redaction_failed", Message: err.Error()}
	}
	return out, nil
}

// Publish pushes the envelope to the panel as an evidence event.
func (p *Panel) Publish(env watch.Envelope) {
	p.watchMu.Lock()
	p.watchSeq++
	seq := p.watchSeq
	p.watchMu.Unlock()
	kind := "error"
	if env.Trigger != watch.Errors {
		kind = "network"
	}
	ev := agent.Event{ConversationID: watch.Conversation, TurnID: env.ContextID, Seq: seq, Kind: agent.KindEvidence, Text: env.Summary,
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
	p.emit(ev)
}
