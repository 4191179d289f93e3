package bridge

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// captureRedactor is the server stage for captured entries (SAFETY.md,
// stage 2): every text and URL field of an entry is redacted before the
// entry is stored. Counts go to the daemon's total (captured entries
// belong to tabs, not sessions). An error drops the entry: capture fails
// closed. The native host's source stage reports its own counts
// (redaction.counts, onRedactionCounts); markers it left in an entry are
// not counted again here.
func (s *Server) captureRedactor(kind string, v any) (any, error) {
	e, err := s.safe.red.store.Engine()
	if err != nil {
		s.safe.red.count("", redact.StageServer, redact.Stats{}, err)
		return nil, err
	}
	w := &entryWalk{e: e}
	out := w.entry(v)
	if w.err == nil && out == nil {
		w.err = fmt.Errorf("%w: no redaction rule for a %T entry", redact.ErrBlocked, v)
	}
	s.safe.red.count("", redact.StageServer, w.st, w.err)
	if w.err != nil {
		return nil, w.err
	}
	return out, nil
}

// entryWalk redacts the fields of one entry, keeping the first error.
type entryWalk struct {
	e   *redact.Engine
	st  redact.Stats
	err error
}

func (w *entryWalk) entry(v any) any {
	switch x := v.(type) {
	case capture.ConsoleEntry:
		w.text(&x.Text)
		w.url(&x.URL)
		x.Stack = w.frames(x.Stack)
		return x
	case capture.Exception:
		w.text(&x.Message)
		w.url(&x.URL)
		x.Stack = w.frames(x.Stack)
		return x
	case capture.Request:
		w.url(&x.URL)
		w.url(&x.InitiatorURL)
		w.text(&x.StatusText)
		w.text(&x.ErrorText)
		return x
	case capture.WebSocketEvent:
		w.url(&x.URL)
		if !x.Binary {
			w.text(&x.Payload)
		}
		w.text(&x.Error)
		return x
	case capture.Dialog:
		w.text(&x.Message)
		w.url(&x.URL)
		w.text(&x.DefaultPrompt)
		w.text(&x.UserInput)
		return x
	case capture.Navigation:
		w.url(&x.URL)
		return x
	}
	return nil
}

// frames returns redacted copies of stack frames.
func (w *entryWalk) frames(in []capture.Frame) []capture.Frame {
	if in == nil {
		return nil
	}
	fs := append([]capture.Frame(nil), in...)
	for i := range fs {
		w.url(&fs[i].URL)
		w.text(&fs[i].Function)
	}
	return fs
}

func (w *entryWalk) text(p *string) { w.apply(p, w.e.Text) }
func (w *entryWalk) url(p *string)  { w.apply(p, w.e.URL) }

func (w *entryWalk) apply(p *string, f func(string) (string, redact.Stats, error)) {
	if w.err != nil || *p == "" {
		return
	}
	out, st, err := f(*p)
	if err != nil {
		w.err = err
		return
	}
	*p = out
	addStats(&w.st, st)
}

func addStats(dst *redact.Stats, st redact.Stats) {
	for k, n := range st.ByClass {
		if dst.ByClass == nil {
			dst.ByClass = map[string]int{}
		}
		dst.ByClass[k] += n
	}
	dst.Redacted += st.Redacted
}
