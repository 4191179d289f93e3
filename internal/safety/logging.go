package safety

import (
	"context"
	"log/slog"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// redactingHandler passes the message and every string (and error)
// attribute of the daemon's log records through the redaction gateway.
// The daemon logs ids, sizes and durations by rule; this is the backstop
// for an error text that quotes a page. A value the gateway cannot check
// is replaced by a marker rather than written.
type redactingHandler struct {
	inner slog.Handler
	gw    *redact.Gateway
}

const logBlocked = "[REDACTED:blocked]"

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &redactingHandler{inner: h.inner.WithAttrs(red), gw: h.gw}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{inner: h.inner.WithGroup(name), gw: h.gw}
}

func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.text(x.Error()))
		case []byte:
			return slog.String(a.Key, h.text(string(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *redactingHandler) text(s string) string {
	if s == "" {
		return s
	}
	out, err := h.gw.Text("", s)
	if err != nil {
		return logBlocked
	}
	return out
}
