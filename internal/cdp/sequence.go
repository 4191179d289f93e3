package cdp

import (
	"context"
	"encoding/json"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"

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
}

type seqParams struct {
	TabID int       `json:"tab_id"`
	Steps []seqStep `json:"steps"`
}

type seqReply struct {
	Results []struct {
		Result     json.RawMessage `json:"result"`
		Error      *protocol.Error `json:"error"`
		Skipped    bool            `json:"skipped"`
		Background bool            `json:"background"`
	} `json:"results"`
}

// Sequence runs steps in the session's target in order, in one round trip
// over the extension link (PROTOCOL.md cdp.sequence), instead of one round
// trip each. A failing step ends the run (Always steps still run). The
// error is for the link or the request; each step's own outcome is in its
// StepResult.
func (s *Session) Sequence(ctx context.Context, steps ...Step) ([]StepResult, error) {
	p := seqParams{TabID: s.tabID, Steps: make([]seqStep, len(steps))}
	for i, st := range steps {
		if !st.Background && i > 0 && steps[i-1].Background {
			return nil, fmt.Errorf("cdp: %s follows a background step; background steps come last", st.Method)
		}
		raw := json.RawMessage(`{}`)
		if st.Params != nil {
			b, err := jsonv2.Marshal(st.Params)
			if err != nil {
				return nil, fmt.Errorf("cdp: encoding %s params: %w", st.Method, err)
			}
			raw = b
		}
		sid := s.sessionID
		if st.Child != "" {
			sid = st.Child
		}
		p.Steps[i] = seqStep{Method: st.Method, Params: raw, SessionID: sid, Always: st.Always,
			StopOnException: st.StopOnException, Overlap: st.Overlap, Background: st.Background}
	}
	res, err := s.caller.Call(ctx, "cdp.sequence", p)
	if err != nil {
		return nil, err
	}
	var r seqReply
	if err := jsonv2.Unmarshal(res, &r, jsonv2.AllowInvalidUTF8(true)); err != nil { // as extlink decodes the envelope
		return nil, fmt.Errorf("cdp: decoding a cdp.sequence reply: %w", err)
	}
	if len(r.Results) != len(steps) {
		return nil, fmt.Errorf("cdp: cdp.sequence answered %d results for %d steps", len(r.Results), len(steps))
	}
	out := make([]StepResult, len(steps))
	for i, x := range r.Results {
		out[i] = StepResult{Result: x.Result, Err: x.Error, Skipped: x.Skipped, Background: x.Background}
	}
	return out, nil
}
