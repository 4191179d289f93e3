package redact

// JSON redacts a JSON document structurally: keys stay, values under secret
// names go, every string (keys included) and number is scanned for value
// patterns, and everything unchanged is copied byte for byte (order,
// spacing, escapes). A document cut off at the end is completed, walked
// and cut again; other invalid JSON is scanned as text — it is never passed
// through unscanned.
func (e *Engine) JSON(raw []byte) (out []byte, st Stats, err error) {
	if err := e.check(len(raw)); err != nil {
		return nil, Stats{}, err
	}
	defer recoverInto(&err, &st)
	s := string(raw)
	if doc, ok := parseDoc(s); ok {
		return []byte(e.walkJSON(s, &doc, &st, 1)), st, nil
	}
	return []byte(e.notJSON(s, &st, 0)), st, nil
}

// JSONKeepTypes is JSON for documents whose schema a decoder relies on
// (CDP events and results in the native host): a number under a secret
// name keeps its type and is scanned for value patterns like any other
// number, instead of becoming a marker string ("serverSignatureAlgorithm":
// 1027 stays a number). Strings — where page data lives, JSON bodies
// included — are redacted exactly as by JSON.
func (e *Engine) JSONKeepTypes(raw []byte) (out []byte, st Stats, err error) {
	if err := e.check(len(raw)); err != nil {
		return nil, Stats{}, err
	}
	defer recoverInto(&err, &st)
	s := string(raw)
	if doc, ok := parseDoc(s); ok {
		w := &jwalk{e: e, doc: &doc, in: s, st: &st, depth: 1, keepNumbers: true}
		return []byte(w.run()), st, nil
	}
	return []byte(e.notJSON(s, &st, 0)), st, nil
}

// jwalk writes the redacted copy of one JSON document, copy on write:
// until the first replacement nothing is written, and a document with
// nothing to redact comes back as the input itself.
type jwalk struct {
	e     *Engine
	doc   *jdoc
	ms    []member // scratch stack for container plans
	acts  []action
	in    string
	out   []byte // nil until dirty
	dirty bool
	pos   int // in[:pos] is accounted for in out (or unchanged)
	st    *Stats
	depth int
	// keepNumbers: a number under a secret name is scanned, not replaced
	// by a marker (JSONKeepTypes).
	keepNumbers bool
}

// walkJSON redacts a document parseDoc accepted; depth counts how many
// times text has been unpacked from other text.
func (e *Engine) walkJSON(in string, doc *jdoc, st *Stats, depth int) string {
	w := &jwalk{e: e, doc: doc, in: in, st: st, depth: depth}
	return w.run()
}

// run walks the whole document and returns its redacted text.
func (w *jwalk) run() string {
	w.node(&w.doc.root, false)
	if !w.dirty {
		return w.in
	}
	w.copyTo(len(w.in))
	return string(w.out)
}

// copyTo accounts for the input up to end, unchanged.
func (w *jwalk) copyTo(end int) {
	if w.dirty {
		w.out = append(w.out, w.in[w.pos:end]...)
	}
	w.pos = end
}

// write replaces node n with the JSON string s.
func (w *jwalk) write(n *jnode, s string) {
	if !w.dirty {
		w.dirty = true
		w.out = make([]byte, 0, len(w.in)+64)
		w.out = append(w.out, w.in[:w.pos]...)
	}
	w.copyTo(int(n.start))
	w.out = appendQuoted(w.out, s)
	w.pos = int(n.end)
}

func (w *jwalk) node(n *jnode, cookie bool) {
	switch n.kind {
	case '{', '[':
		w.container(n, cookie)
	case '"':
		s := w.str(n)
		w.replace(n, s, w.e.text(s, w.st, w.depth))
	case '0':
		s := n.text(w.in)
		w.replace(n, s, w.e.plain(s, w.st, w.depth))
	}
}

// container plans and writes an object or an array; the bytes between
// members stay as they are. Plans live on the walker's scratch stacks.
func (w *jwalk) container(n *jnode, cookie bool) {
	kids := w.doc.kids(n)
	obj := n.kind == '{'
	step := 1
	if obj {
		step = 2
	}
	mb, ab := len(w.ms), len(w.acts)
	defer func() { w.ms, w.acts = w.ms[:mb], w.acts[:ab] }()
	for k := 0; k < len(kids); k += step {
		v := &kids[k+step-1]
		m := member{composite: v.kind == '{' || v.kind == '['}
		if obj {
			m.rawKey = w.str(&kids[k])
			m.key = w.e.text(m.rawKey, w.st, w.depth)
		}
		if v.kind == '"' {
			m.str, m.isStr = w.str(v), true
			if pairNameCandidate(obj, m.key, k/step, len(kids)/step) {
				m.rawStr = m.str
				m.str, m.redacted = w.e.text(m.str, w.st, w.depth), true
			}
		}
		w.ms = append(w.ms, m)
	}
	ms := w.ms[mb:]
	if obj {
		w.acts = w.e.planObject(ms, cookie, w.acts)
	} else {
		w.acts = w.e.planArray(ms, cookie, w.acts)
	}
	acts := w.acts[ab:]
	for k := 0; k < len(kids); k += step {
		v, m := &kids[k+step-1], &ms[k/step]
		if obj {
			w.replace(&kids[k], m.rawKey, m.key)
		}
		w.value(v, m, acts[k/step])
	}
}

// value writes one member's value as its action says; m holds the value
// already decoded when it is a string.
func (w *jwalk) value(v *jnode, m *member, a action) {
	switch {
	case a.cookie:
		w.node(v, true)
	case !a.secret && v.kind == '"' && m.redacted:
		w.replace(v, m.rawStr, m.str)
	case !a.secret && v.kind == '"':
		w.replace(v, m.str, w.e.text(m.str, w.st, w.depth))
	case !a.secret || v.kind == 'l' || v.kind == '0' && w.keepNumbers:
		w.node(v, false)
	case v.kind == '"' && m.redacted:
		w.replace(v, m.rawStr, w.e.secretValue(a.rule, m.rawStr, w.st, w.depth))
	case v.kind == '"':
		w.replace(v, m.str, w.e.secretValue(a.rule, m.str, w.st, w.depth))
	default:
		w.st.add(a.rule.label, 1)
		w.write(v, Marker(a.rule.label))
	}
}

// replace leaves n unchanged when out equals the decoded s, else writes out.
func (w *jwalk) replace(n *jnode, s, out string) {
	if out != s {
		w.write(n, out)
	}
}

// str decodes a string node.
func (w *jwalk) str(n *jnode) string { return unquote(n.text(w.in), n.esc) }
