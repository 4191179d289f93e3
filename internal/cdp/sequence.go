package cdp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// Step is one CDP command of a Sequence.
type Step struct {
	Method string
	Params any
	// Always runs the step even after an earlier one failed (clean-up).
	Always bool
	// StopOnException ends the sequence when the step answers
	// exceptionDetails (a page script that threw), as if it had failed.
	StopOnException bool
	// Overlap sends the next step without waiting for this one; both are
	// awaited before the step after them.
	Overlap bool
	// Background sends the step after the answer's steps, without the
	// answer waiting for it: its result is never known (StepResult.
	// Background), and the extension logs a failure. The tab's next
	// command is sent after it. Background steps come last.
	Background bool
	// Ahead sends the step's result up the link as soon as it is in,
	// while the steps after it run (protocol.EventReplyPart): a
	// screenshot's image travels while the mask check runs. Sequence
	// returns it with the others, once the whole sequence has answered;
	// a sequence that fails returns none of it.
	Ahead bool
	// Child runs the step in that child session of the tab (an
	// out-of-process iframe) instead of the Session's own.
	Child string
}

// NewStep is a Step of a typed command (page.CaptureScreenshot, …).
func NewStep[P, R any](cmd cdproto.Command[P, R], params P) Step {
	return Step{Method: cmd.Method, Params: params}
}

// ResultOf decodes a step's result as its command's result type.
func ResultOf[P, R any](cmd cdproto.Command[P, R], r StepResult) (R, error) {
	var v R
	err := r.Decode(cmd.Method, &v)
	return v, err
}

// StepResult is what one step answered: its result, its error, or neither
// when it was skipped (an earlier step failed) or ran in the background
// (Step.Background: sent after the answer).
type StepResult struct {
	Result     json.RawMessage
	Err        *protocol.Error
	Skipped    bool
	Background bool
}

// Decode decodes a step's result into v; a step that failed returns its
// error, a skipped one an error saying so.
func (r StepResult) Decode(method string, v any) error {
	switch {
	case r.Err != nil:
		return r.Err
	case r.Skipped:
		return fmt.Errorf("cdp: %s was skipped: an earlier step failed", method)
	case r.Background:
		return fmt.Errorf("cdp: %s was sent in the background: its result is not known", method)
	case v == nil || len(r.Result) == 0:
		return nil
	}
	if err := jsonv2.Unmarshal(r.Result, v); err != nil {
		return fmt.Errorf("cdp: decoding %s result: %w", method, err)
	}
	return nil
}

type seqStep struct {
	Method          string          `json:"method"`
	Params          json.RawMessage `json:"params"`
	SessionID       string          `json:"session_id,omitempty"`
	Always          bool            `json:"always,omitempty"`
	StopOnException bool            `json:"stop_on_exception,omitempty"`
	Overlap         bool            `json:"overlap,omitempty"`
	Background      bool            `json:"background,omitempty"`
	Ahead           bool            `json:"ahead,omitempty"`
	ExpressionText  string          `json:"expression_text,omitempty"`
}

type seqParams struct {
	TabID int               `json:"tab_id"`
	Steps []seqStep         `json:"steps"`
	Texts map[string]string `json:"texts,omitempty"`
}

type seqReply struct {
	Results []struct {
		Result     json.RawMessage `json:"result"`
		Error      *protocol.Error `json:"error"`
		Skipped    bool            `json:"skipped"`
		Background bool            `json:"background"`
		Ahead      bool            `json:"ahead"`
	} `json:"results"`
}

// seqPart is a step's result sent ahead of the reply (Step.Ahead).
type seqPart struct {
	Step   int             `json:"step"`
	Result json.RawMessage `json:"result"`
}

// Sequence runs steps in the session's target in order, in one round trip
// over the extension link (PROTOCOL.md cdp.sequence), instead of one round
// trip each. A failing step ends the run (Always steps still run). The
// error is for the link or the request; each step's own outcome is in its
// StepResult. A Runtime.evaluate of a long expression names it by its
// SHA-256 (the extension keeps the texts it was sent), so the request
// stays within one read of Chrome's native-messaging pipe; when the
// extension does not keep it, the request goes again with the text.
func (s *Session) Sequence(ctx context.Context, steps ...Step) ([]StepResult, error) {
	p, texts, err := s.sequenceParams(steps)
	if err != nil {
		return nil, err
	}
	ahead := slices.ContainsFunc(steps, func(st Step) bool { return st.Ahead })
	call := func() (json.RawMessage, []json.RawMessage, error) {
		cctx, parts := ctx, (*protocol.Parts)(nil)
		if ahead {
			cctx, parts = protocol.WithParts(ctx)
		}
		res, err := s.caller.Call(cctx, "cdp.sequence", p)
		if parts == nil || err != nil {
			return res, nil, err
		}
		return res, parts.All(), nil
	}
	res, parts, err := call()
	if perr, ok := errors.AsType[*protocol.Error](err); ok && perr.Code == protocol.CodeUnknownText && len(texts) > 0 {
		p.Texts = texts
		res, parts, err = call()
	}
	if err != nil {
		return nil, err
	}
	return decodeSequence(res, len(steps), parts)
}

// keepAbove is the expression length from which a step names its text.
const keepAbove = 1024

// sequenceParams encodes steps, each long expression named by its
// SHA-256; texts holds those expressions by key.
func (s *Session) sequenceParams(steps []Step) (p seqParams, texts map[string]string, err error) {
	p = seqParams{TabID: s.tabID, Steps: make([]seqStep, len(steps))}
	for i, st := range steps {
		if !st.Background && i > 0 && steps[i-1].Background {
			return p, nil, fmt.Errorf("cdp: %s follows a background step; background steps come last", st.Method)
		}
		params, key := st.Params, ""
		if ev, ok := params.(runtime.EvaluateParams); ok && len(ev.Expression) >= keepAbove {
			sum := sha256.Sum256([]byte(ev.Expression))
			key = hex.EncodeToString(sum[:])
			if texts == nil {
				texts = map[string]string{}
			}
			texts[key] = ev.Expression
			ev.Expression = ""
			params = ev
		}
		raw := json.RawMessage(`{}`)
		if params != nil {
			b, err := jsonv2.Marshal(params)
			if err != nil {
				return p, nil, fmt.Errorf("cdp: encoding %s params: %w", st.Method, err)
			}
			raw = b
		}
		sid := s.sessionID
		if st.Child != "" {
			sid = st.Child
		}
		p.Steps[i] = seqStep{Method: st.Method, Params: raw, SessionID: sid, Always: st.Always,
			StopOnException: st.StopOnException, Overlap: st.Overlap, Background: st.Background, Ahead: st.Ahead, ExpressionText: key}
	}
	return p, texts, nil
}

// decodeSequence decodes a cdp.sequence reply of n steps, with the
// results its steps sent ahead of it (parts).
func decodeSequence(res json.RawMessage, n int, parts []json.RawMessage) ([]StepResult, error) {
	var r seqReply
	if err := jsonv2.Unmarshal(res, &r, jsonv2.AllowInvalidUTF8(true)); err != nil { // as extlink decodes the envelope
		return nil, fmt.Errorf("cdp: decoding a cdp.sequence reply: %w", err)
	}
	if len(r.Results) != n {
		return nil, fmt.Errorf("cdp: cdp.sequence answered %d results for %d steps", len(r.Results), n)
	}
	sent := make(map[int]json.RawMessage, len(parts))
	for _, raw := range parts {
		var pt seqPart
		if err := jsonv2.Unmarshal(raw, &pt, jsonv2.AllowInvalidUTF8(true)); err != nil {
			return nil, fmt.Errorf("cdp: decoding a cdp.sequence step sent ahead: %w", err)
		}
		sent[pt.Step] = pt.Result
	}
	out := make([]StepResult, n)
	for i, x := range r.Results {
		out[i] = StepResult{Result: x.Result, Err: x.Error, Skipped: x.Skipped, Background: x.Background}
		if x.Ahead {
			res, ok := sent[i]
			if !ok {
				return nil, fmt.Errorf("cdp: cdp.sequence step %d was sent ahead, but its result never came", i)
			}
			out[i].Result = res
		}
	}
	return out, nil
}
