package redact

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Headers redacts a header map (CDP's shape). Values under secret names go
// (Cookie and Set-Cookie keep cookie names and attributes, Authorization
// keeps its scheme); every other value is scanned as text. Names stay.
func (e *Engine) Headers(h map[string]string) (out map[string]string, st Stats, err error) {
	n := 0
	for k, v := range h {
		n += len(k) + len(v)
	}
	if err := e.check(n); err != nil {
		return nil, Stats{}, err
	}
	defer recoverInto(&err, &st)
	out = make(map[string]string, len(h))
	for k, v := range h {
		out[k] = e.header(k, v, &st)
	}
	return out, st, nil
}

// HTTPHeader is [Engine.Headers] for net/http headers.
func (e *Engine) HTTPHeader(h http.Header) (out http.Header, st Stats, err error) {
	if err := e.check(0); err != nil {
		return nil, Stats{}, err
	}
	defer recoverInto(&err, &st)
	w := &vwalk{e: e, st: &st, budget: e.c.maxInput}
	out, err = w.header(h)
	if err != nil {
		return nil, Stats{}, err
	}
	return out, st, nil
}

// Header redacts one header value given its name.
func (e *Engine) Header(name, value string) (out string, st Stats, err error) {
	if err := e.check(len(name) + len(value)); err != nil {
		return "", Stats{}, err
	}
	defer recoverInto(&err, &st)
	return e.header(name, value, &st), st, nil
}

func (e *Engine) header(name, value string, st *Stats) string {
	if r, ok := e.rule(name); ok {
		return e.secretValue(r, value, st, 0)
	}
	return e.text(value, st, 0)
}

// URL redacts a URL: the password in user:password@, tokens anywhere in
// the path, and query and fragment parameters as a form (names stay;
// values under secret names go; other values are decoded and scanned).
// Values are replaced by readable markers, not percent-encoded ones.
// Non-hierarchical URLs (data:, javascript:, mailto:) are scanned as text.
func (e *Engine) URL(u string) (out string, st Stats, err error) {
	if err := e.check(len(u)); err != nil {
		return "", Stats{}, err
	}
	defer recoverInto(&err, &st)
	return e.url(u, &st, 0), st, nil
}

func (e *Engine) url(u string, st *Stats, depth int) string {
	if k := strings.Index(u, "://"); k < 0 || k > 32 {
		return e.text(u, st, depth)
	}
	head, frag, hasFrag := strings.Cut(u, "#")
	head, query, hasQuery := strings.Cut(head, "?")
	var b strings.Builder
	b.Grow(len(u))
	b.WriteString(e.plain(head, st, depth))
	if hasQuery {
		b.WriteByte('?')
		b.WriteString(e.form(query, st, depth))
	}
	if hasFrag {
		b.WriteByte('#')
		if strings.Contains(frag, "=") {
			b.WriteString(e.form(frag, st, depth))
		} else {
			b.WriteString(e.plain(frag, st, depth))
		}
	}
	return b.String()
}

// Form redacts an application/x-www-form-urlencoded body (or a raw query
// string) pair by pair, with the rules of [Engine.URL].
func (e *Engine) Form(body string) (out string, st Stats, err error) {
	if err := e.check(len(body)); err != nil {
		return "", Stats{}, err
	}
	defer recoverInto(&err, &st)
	return e.form(body, &st, 0), st, nil
}

func (e *Engine) form(q string, st *Stats, depth int) string {
	pairs := strings.Split(q, "&")
	for i, p := range pairs {
		name, val, hasEq := strings.Cut(p, "=")
		dn := unescape(name)
		newName := e.encoded(name, dn, e.text(dn, st, depth+1))
		if !hasEq {
			pairs[i] = newName
			continue
		}
		dv := unescape(val)
		var red string
		if r, ok := e.rule(dn); ok {
			red = e.secretValue(r, dv, st, depth+1)
		} else {
			red = e.text(dv, st, depth+1)
		}
		pairs[i] = newName + "=" + e.encoded(val, dv, red)
	}
	return strings.Join(pairs, "&")
}

// encoded returns raw when redaction left its decoded form dec unchanged,
// else the redacted text re-encoded around readable markers.
func (e *Engine) encoded(raw, dec, red string) string {
	if red == dec {
		return raw
	}
	return escapeKeepingMarkers(red)
}

// unescape decodes a query component, or returns it as it is when it is not
// valid percent-encoding (it is then scanned raw).
func unescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// Body redacts a request or response body by content type: JSON types
// structurally, form bodies as a form, anything else (multipart included:
// the text scanner knows form-data parts) as text.
func (e *Engine) Body(contentType string, body []byte) (out []byte, st Stats, err error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "text/json":
		return e.JSON(body)
	case mt == "application/x-www-form-urlencoded":
		s, st, err := e.Form(string(body))
		if err != nil {
			return nil, Stats{}, err
		}
		return []byte(s), st, nil
	}
	s, st, err := e.Text(string(body))
	if err != nil {
		return nil, Stats{}, err
	}
	return []byte(s), st, nil
}

// multipart matches the body of a multipart/form-data part whose name is
// secret: Content-Disposition: form-data; name="password", a blank line,
// then the value up to the next boundary line.
func (e *Engine) multipart(s string, i int) (span, bool) {
	const fd = "form-data"
	if len(s)-i < len(fd) || !strings.EqualFold(s[i:i+len(fd)], fd) {
		return span{}, false
	}
	le := lineEnd(s, i)
	name, ok := dispositionName(s[i:le])
	if !ok {
		return span{}, false
	}
	r, secret := e.rule(name)
	if !secret {
		return span{}, false
	}
	head := s[le:min(len(s), le+1024)]
	vs := -1
	if k := strings.Index(head, "\r\n\r\n"); k >= 0 {
		vs = le + k + 4
	} else if k := strings.Index(head, "\n\n"); k >= 0 {
		vs = le + k + 2
	}
	if vs < 0 {
		return span{}, false
	}
	ve := len(s)
	if k := boundaryLine(s[vs:]); k >= 0 {
		ve = vs + k
		if ve > vs && s[ve-1] == '\r' {
			ve--
		}
	}
	if ve <= vs || onlySchemeLeft(s[vs:ve]) {
		return span{}, false // nothing but markers left: redacted already
	}
	return span{start: vs, end: ve, label: r.label}, true
}

// boundaryLine returns the index of the newline before the next line that
// starts with "--" (a multipart boundary), or -1. PEM BEGIN and END lines
// are part of a value, not boundaries.
func boundaryLine(s string) int {
	for off := 0; ; {
		k := strings.Index(s[off:], "\n--")
		if k < 0 {
			return -1
		}
		k += off
		rest := s[k+1:]
		if !strings.HasPrefix(rest, "-----BEGIN ") && !strings.HasPrefix(rest, "-----END ") {
			return k
		}
		off = k + 1
	}
}

// dispositionName returns the name="…" parameter of a Content-Disposition
// line (not filename="…").
func dispositionName(line string) (string, bool) {
	for off := 0; ; {
		k := strings.Index(line[off:], `name="`)
		if k < 0 {
			return "", false
		}
		k += off
		off = k + 6
		if k > 0 && isWord(line[k-1]) {
			continue
		}
		end := strings.IndexByte(line[off:], '"')
		if end < 0 {
			return "", false
		}
		return line[off : off+end], true
	}
}
