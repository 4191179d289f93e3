package protocol

import (
	"context"
	"encoding/json"
	"sync"
)

// EventReplyPart carries part of a reply ahead of the reply itself: the
// extension sends a cdp.sequence step marked ahead (a screenshot's image)
// as soon as it is in, while later steps (the mask check) still run, and
// the reply names the step {ahead: true} (PROTOCOL.md, "Events from the
// extension"). Its params are a ReplyPart. The link sends it before the reply
// it belongs to, so a reply finds every part of it already in.
const EventReplyPart = "reply.part"

// ReplyPart is the params of EventReplyPart: the id of the request the
// part belongs to, and the part.
type ReplyPart struct {
	ID   int64           `json:"id"`
	Part json.RawMessage `json:"part"`
}

// Parts collects the parts of one call's reply (EventReplyPart). A call
// whose context carries none drops the parts sent for it: they are only
// sent when the request asked for them.
type Parts struct {
	mu  sync.Mutex
	all []json.RawMessage
}

type partsKey struct{}

// WithParts returns a context whose call collects the parts of its reply
// in the returned Parts. Use it for one call.
func WithParts(ctx context.Context) (context.Context, *Parts) {
	p := &Parts{}
	return context.WithValue(ctx, partsKey{}, p), p
}

// PartsOf returns the Parts ctx collects into, or nil.
func PartsOf(ctx context.Context) *Parts {
	p, _ := ctx.Value(partsKey{}).(*Parts)
	return p
}

// MaxParts bounds the parts one call collects: a cdp.sequence has at most
// 16 steps, each sent ahead at most once.
const MaxParts = 16

// Add records a part (the link's reader, before the reply); it reports
// false, keeping nothing, once the call holds MaxParts.
func (p *Parts) Add(part json.RawMessage) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.all) >= MaxParts {
		return false
	}
	p.all = append(p.all, part)
	return true
}

// All returns the parts collected, in arrival order.
func (p *Parts) All() []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]json.RawMessage(nil), p.all...)
}
