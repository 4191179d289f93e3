package mcpserver

import (
	"context"
	"log/slog"
)

// sdkLogger is the logger handed to the go-sdk: its warnings and errors
// reach the daemon log, its chatter (per-session info lines, which
// middleware and the link handler already log) does not. The one
// record that can quote a message's contents — jsonrpc2 internal errors
// print the offending result — keeps its message but not its error.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(&sdkHandler{next: l.Handler()})
}

type sdkHandler struct{ next slog.Handler }

func (h *sdkHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.next.Enabled(ctx, level)
}

func (h *sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "jsonrpc2 internal error" {
		r = slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
		r.AddAttrs(slog.String("error", "omitted: may quote message contents"))
	}
	return h.next.Handle(ctx, r.Clone())
}

func (h *sdkHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &sdkHandler{next: h.next.WithAttrs(as)}
}

func (h *sdkHandler) WithGroup(name string) slog.Handler {
	return &sdkHandler{next: h.next.WithGroup(name)}
}
