package redact

// Fields redacts many string fields of one output in place, with one
// engine: the stats add up and the first error sticks (later fields are
// left alone and the caller must block the whole output). The capture
// entries (server stage) and exports (egress) are walked with it.
type Fields struct {
	E     *Engine
	Stats Stats
	Err   error
}

// Text redacts *p as free text.
func (f *Fields) Text(p *string) { f.apply(p, f.E.Text) }

// URL redacts *p as a URL.
func (f *Fields) URL(p *string) { f.apply(p, f.E.URL) }

// Strings redacts each of ps as free text.
func (f *Fields) Strings(ps ...*string) {
	for _, p := range ps {
		f.Text(p)
	}
}

func (f *Fields) apply(p *string, redact func(string) (string, Stats, error)) {
	if f.Err != nil || *p == "" {
		return
	}
	if f.E == nil {
		f.Err = ErrBlocked
		return
	}
	out, st, err := redact(*p)
	if err != nil {
		f.Err = err
		return
	}
	*p = out
	f.Stats.merge(st)
}

// JSON redacts a whole JSON document (nil once an error stuck).
func (f *Fields) JSON(raw []byte) []byte {
	if f.Err == nil && f.E == nil {
		f.Err = ErrBlocked
	}
	if f.Err != nil {
		return nil
	}
	out, st, err := f.E.JSON(raw)
	if err != nil {
		f.Err = err
		return nil
	}
	f.Stats.merge(st)
	return out
}
