// Package waitnote lets a long call say what it is waiting for. The
// session command that runs a call gives its context a note (With); code
// that blocks the call on something another call holds (a tab's action
// queue) marks the wait (Begin), naming the holder by the correlation id
// its own context carries (ID). observe pending_commands shows the note,
// so an agent can tell a call that waits for another from one that runs.
package waitnote

import "context"

type key struct{}

type note struct {
	id  string
	set func(reason string)
}

// With returns ctx carrying the call's correlation id and set, which is
// called with a reason when the call starts waiting and with "" when it
// stops. set must be safe for concurrent use.
func With(ctx context.Context, id string, set func(reason string)) context.Context {
	return context.WithValue(ctx, key{}, note{id: id, set: set})
}

// ID is the correlation id of the call ctx runs, or "" for a call that is
// no session command (one answered inline).
func ID(ctx context.Context) string {
	n, _ := ctx.Value(key{}).(note)
	return n.id
}

// Begin marks ctx's call as waiting for reason until the returned end is
// called. A context without a note marks nothing.
func Begin(ctx context.Context, reason string) (end func()) {
	n, ok := ctx.Value(key{}).(note)
	if !ok || n.set == nil {
		return func() {}
	}
	n.set(reason)
	return func() { n.set("") }
}
