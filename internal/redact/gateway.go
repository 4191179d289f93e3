package redact

import (
	"errors"
	"fmt"
)

// Gateway is one stage of the redaction gateway as other code uses it: the
// live engine, the stage it labels, and where its counts go. Every method
// fails closed — a broken policy or an engine error returns an error
// wrapping [ErrBlocked] (and [ErrPolicy] for a policy that does not load)
// and no output; the caller must not fall back to the input.
//
// The daemon hands out its gateways (bridge.Server.Egress for exports,
// files and model adapters); code that holds one calls it last, right
// before the bytes leave.
type Gateway struct {
	// Engine returns the engine in force (Store.Engine). Required.
	Engine func() (*Engine, error)
	// Stage labels the counts.
	Stage Stage
	// Count, when set, receives the outcome of every call for the
	// session's counters (a nil err adds st, a non-nil one counts a block).
	Count func(sessionID string, stage Stage, st Stats, err error)
}

// Text redacts free text for sessionID.
func (g *Gateway) Text(sessionID, s string) (string, error) {
	e, err := g.engine()
	if err != nil {
		return "", g.done(sessionID, Stats{}, err)
	}
	out, st, err := e.Text(s)
	return out, g.done(sessionID, st, err)
}

// JSON redacts a JSON document (or text that is not one) for sessionID.
func (g *Gateway) JSON(sessionID string, raw []byte) ([]byte, error) {
	e, err := g.engine()
	if err != nil {
		return nil, g.done(sessionID, Stats{}, err)
	}
	out, st, err := e.JSON(raw)
	return out, g.done(sessionID, st, err)
}

// Value redacts a decoded Go value for sessionID (see [Engine.Value]).
func (g *Gateway) Value(sessionID string, v any) (any, error) {
	e, err := g.engine()
	if err != nil {
		return nil, g.done(sessionID, Stats{}, err)
	}
	out, st, err := e.Value(v)
	return out, g.done(sessionID, st, err)
}

// Body redacts a body by its content type for sessionID (see [Engine.Body]).
func (g *Gateway) Body(sessionID, contentType string, body []byte) ([]byte, error) {
	e, err := g.engine()
	if err != nil {
		return nil, g.done(sessionID, Stats{}, err)
	}
	out, st, err := e.Body(contentType, body)
	return out, g.done(sessionID, st, err)
}

func (g *Gateway) engine() (*Engine, error) {
	if g == nil || g.Engine == nil {
		return nil, fmt.Errorf("%w: no redaction gateway configured", ErrBlocked)
	}
	e, err := g.Engine()
	if err == nil && e == nil {
		err = errors.New("no engine")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the redaction policy is not usable: %w", ErrBlocked, err)
	}
	return e, nil
}

// done counts one call and returns its error.
func (g *Gateway) done(sessionID string, st Stats, err error) error {
	if g != nil && g.Count != nil {
		g.Count(sessionID, g.Stage, st, err)
	}
	return err
}
