package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// maxResultText caps a tool result in a panel event (the model gets the
// whole redacted result).
const maxResultText = 2000

// turn is one running turn.
type turn struct {
	c    *Chat
	conv *Conversation
	id   string
}

// runTurn runs the user's message through the model and the model's tool
// calls, up to MaxToolRounds rounds. Every failure ends the turn with an
// error event; the conversation stays.
func (c *Chat) runTurn(conv *Conversation, turnID string, ad Adapter, message string) {
	t := &turn{c: c, conv: conv, id: turnID}
	ok := false
	// The done event and the end of the turn are one step (emitDone): a
	// client that sends its next message on seeing done is never told a
	// turn is still running.
	defer func() {
		if p := recover(); p != nil {
			c.cfg.Logger.Error("agent turn panicked", "conversation", conv.ID, "panic", fmt.Sprint(p))
			t.emit(Event{Kind: KindError, Text: "the turn failed inside the daemon (a bug); the daemon log has details"})
			ok = false
		}
		t.emitDone(ok)
	}()
	ok = t.run(ad, message)
}

func (t *turn) run(ad Adapter, message string) bool {
	ctx := t.c.ctx
	text := t.redact(message)
	t.emit(Event{Kind: KindUser, Text: text})
	t.append(Message{Role: User, Content: text})
	for round := 0; ; round++ {
		gctx, cancel := context.WithTimeout(ctx, t.c.cfg.GenerateTimeout)
		resp, err := ad.Generate(gctx, t.request())
		cancel()
		if err != nil {
			t.emit(Event{Kind: KindError, Text: t.providerError(ad, err)})
			return false
		}
		say := t.redact(resp.Text)
		calls := make([]ToolCall, len(resp.ToolCalls))
		for i, tc := range resp.ToolCalls {
			calls[i] = ToolCall{ID: tc.ID, Name: tc.Name, Arguments: t.redactJSON(tc.Arguments)}
			if calls[i].ID == "" {
				calls[i].ID = fmt.Sprintf("call_%s_%d_%d", t.id, round, i)
			}
		}
		t.append(Message{Role: Assistant, Content: say, ToolCalls: calls})
		if say != "" {
			t.emit(Event{Kind: KindAssistant, Text: say})
		}
		if len(calls) == 0 {
			return true
		}
		if round >= t.c.cfg.MaxToolRounds {
			t.emit(Event{Kind: KindError, Text: fmt.Sprintf("stopped after %d tool rounds without a final answer; ask again more narrowly", t.c.cfg.MaxToolRounds)})
			return false
		}
		for i, call := range calls {
			if ctx.Err() != nil {
				t.emit(Event{Kind: KindError, Text: "the daemon is shutting down; the turn stopped (no tool call is retried)"})
				return false
			}
			t.runTool(ctx, call, resp.ToolCalls[i].Arguments)
		}
	}
}

// runTool runs one call (with the model's own arguments) and records it.
func (t *turn) runTool(ctx context.Context, call ToolCall, args json.RawMessage) {
	mode := gjson.GetBytes(args, "what").String()
	t.emit(Event{Kind: KindToolCall, Tool: call.Name, Mode: mode, Text: string(call.Arguments)})
	if t.c.cfg.Gated(call.Name, args) {
		t.emit(Event{Kind: KindApproval, Tool: call.Name, Mode: mode,
			Text: fmt.Sprintf("%s %s changes the browser: approve or deny it in the prompt", call.Name, mode)})
	}
	res, err := t.c.cfg.Run(ctx, call.Name, args)
	if err != nil {
		res = ToolResult{Text: "the call did not run: " + err.Error(), IsError: true}
	}
	out := t.redact(res.Text)
	t.append(Message{Role: Tool, Content: out, ToolCallID: call.ID, ToolName: call.Name, IsError: res.IsError})
	short := out
	if len(short) > maxResultText {
		short = short[:maxResultText] + "…"
	}
	t.emit(Event{Kind: KindToolResult, Tool: call.Name, Mode: mode, OK: ptr(!res.IsError), Text: short})
	if ev := evidenceOf(call.Name, mode, out, res.IsError); ev != nil {
		ev.At = t.c.cfg.Now().UTC()
		t.emit(Event{Kind: KindEvidence, Tool: call.Name, Mode: mode, Evidence: ev})
	}
}

// evidenceOf makes the evidence card of a tool result: actions, errors and
// failed requests the panel shows as cards.
func evidenceOf(tool, mode, text string, failed bool) *Evidence {
	title := tool + " " + mode
	text, _ = untrusted.Body(text) // page text arrives fenced: the card shows what is inside
	first, _, _ := strings.Cut(text, "\n")
	switch {
	case failed && tool != "interact":
		return &Evidence{Kind: "tool", Title: title + " failed", Detail: first}
	case tool == "interact":
		return &Evidence{Kind: "action", Title: title, Detail: first}
	case tool == "observe" && mode == "errors":
		if n := gjson.Get(text, "groups").Int(); n > 0 {
			return &Evidence{Kind: "error", Title: plural(n, "distinct error", "distinct errors"), Detail: gjson.Get(text, "errors.0.message").String(),
				URL: gjson.Get(text, "errors.0.url").String()}
		}
	case tool == "observe" && mode == "network_waterfall":
		var n int
		var firstURL, detail string
		for _, r := range gjson.Get(text, "requests").Array() {
			if r.Get("failed").Bool() || r.Get("status").Int() >= 400 {
				if n == 0 {
					firstURL = r.Get("url").String()
					detail = fmt.Sprintf("%s %s → %s", r.Get("method").String(), firstURL,
						strings.TrimSpace(r.Get("error_text").String()+" "+r.Get("status").String()))
				}
				n++
			}
		}
		if n > 0 {
			return &Evidence{Kind: "network", Title: plural(int64(n), "failed request", "failed requests"), Detail: detail, URL: firstURL}
		}
	}
	return nil
}

func (t *turn) request() Request {
	t.conv.mu.Lock()
	defer t.conv.mu.Unlock()
	return Request{System: t.c.cfg.System, Messages: append([]Message(nil), t.conv.messages...), Tools: t.c.cfg.Tools, TabID: t.conv.Tab}
}

func (t *turn) append(m Message) {
	t.conv.mu.Lock()
	t.conv.messages = append(t.conv.messages, m)
	t.conv.mu.Unlock()
}

// emit records an event (redaction indicator and time filled) and hands
// it to the panel.
func (t *turn) emit(ev Event) { t.record(ev, false) }

// emitDone emits the turn's done event and ends the turn in the same
// critical section.
func (t *turn) emitDone(ok bool) { t.record(Event{Kind: KindDone, OK: ptr(ok)}, true) }

// record adds ev to the conversation's history and passes it on; last
// ends the turn as it is added.
func (t *turn) record(ev Event, last bool) {
	ev.ConversationID, ev.TurnID = t.conv.ID, t.id
	ev.At = t.c.cfg.Now().UTC()
	t.conv.counters.SetPolicyVersion(t.c.policyVersion())
	r := t.conv.Redaction()
	ev.Redaction = &r
	t.conv.mu.Lock()
	t.conv.seq++
	ev.Seq = t.conv.seq
	t.conv.events = append(t.conv.events, ev)
	if over := len(t.conv.events) - t.c.cfg.MaxEvents; over > 0 {
		t.conv.events = append(t.conv.events[:0:0], t.conv.events[over:]...)
	}
	t.conv.lastUse = ev.At
	if last {
		t.conv.running = false
	}
	t.conv.mu.Unlock()
	if t.c.cfg.Emit != nil {
		t.c.cfg.Emit(ev)
	}
}

// redact passes text through the egress redactor; blocked text is
// replaced, never passed through.
func (t *turn) redact(s string) string {
	if s == "" {
		return ""
	}
	out, st, err := t.c.cfg.Redactor.Text(s)
	t.conv.counters.Observe(redact.StageEgress, st, err)
	if err != nil {
		return "[blocked by redaction: " + err.Error() + "]"
	}
	return out
}

func (t *turn) redactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	out, st, err := t.c.cfg.Redactor.JSON(raw)
	t.conv.counters.Observe(redact.StageEgress, st, err)
	if err != nil {
		return json.RawMessage(`{"blocked":"redaction"}`)
	}
	return out
}

// providerError is the panel's text for a failed Generate: the provider's
// safe reason and what to do next.
func (t *turn) providerError(ad Adapter, err error) string {
	var pe *ProviderError
	switch {
	case errors.As(err, &pe):
		next := "check agent.json (key, model, base_url) and try again"
		if pe.Retryable {
			next = "the provider is unavailable or rate-limited; try again in a minute"
		}
		return t.redact(pe.Error() + "; " + next)
	case errors.Is(err, context.DeadlineExceeded):
		return ad.Name() + ": no answer in time; try again, or ask something shorter"
	case errors.Is(err, context.Canceled):
		return ad.Name() + ": the turn was cancelled (the daemon is stopping)"
	case errors.Is(err, ErrNoRedactor):
		return ad.Name() + ": " + err.Error()
	}
	return t.redact(ad.Name() + ": " + err.Error())
}

// plural is "1 failed request" or "3 failed requests".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
