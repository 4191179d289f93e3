package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are inputs that exercise every detector and its edges.
func fuzzSeeds(t testing.TB) []string {
	seeds := []string{"", "password=", `{"password":`, "Bearer ", "-----BEGIN RSA PRIVATE KEY-----",
		"[REDACTED:", "[REDACTED:x]", "Cookie: a", "form-data; name=\"token\"\r\n\r\n", "https://a:@b",
		"eyJhbGciOiJub25lIn0.", "4111 1111 1111 111", "DE89 3704", `{"name":"Cookie","value":`, "\\\"token\\\":\\\"",
		"cvv 12", "note=%E0%A4%A", "sk-ant-", "hooks.slack.com/services/"}
	for _, c := range loadCorpus(t) {
		seeds = append(seeds, c.Value)
	}
	for _, n := range loadNegatives(t)[:40] {
		seeds = append(seeds, n.Value)
	}
	return seeds
}

// FuzzText: Text never panics; a corpus value planted between arbitrary
// text never survives; redacting twice equals redacting once.
func FuzzText(f *testing.F) {
	corpus := loadCorpus(f)
	for i, s := range fuzzSeeds(f) {
		f.Add(s, uint16(i), "")
		f.Add("x", uint16(i), s)
	}
	e := testEngine(f)
	f.Fuzz(func(t *testing.T, prefix string, pick uint16, suffix string) {
		c := corpus[int(pick)%len(corpus)]
		in := prefix + "\n" + c.Value + "\n" + suffix
		out, _, err := e.Text(in)
		if err != nil {
			t.Fatalf("Text error: %v", err)
		}
		if !strings.Contains(prefix+suffix, c.Secret) && strings.Contains(out, c.Secret) {
			t.Fatalf("planted %s survived\n in: %q\nout: %q", c.Class, in, out)
		}
		again, st, err := e.Text(out)
		if err != nil {
			t.Fatalf("second pass error: %v", err)
		}
		if again != out {
			t.Fatalf("not idempotent\n in: %q\n 1st: %q\n 2nd: %q", in, out, again)
		}
		if st.Redacted != 0 {
			t.Fatalf("second pass counted %v on %q", st.ByClass, out)
		}
		// The raw fuzz text alone must not panic or fail either.
		if _, _, err := e.Text(prefix); err != nil {
			t.Fatalf("Text(prefix) error: %v", err)
		}
	})
}

// FuzzJSON: JSON never panics; valid input stays valid; corpus values
// planted beside arbitrary JSON never survive; redaction is idempotent.
func FuzzJSON(f *testing.F) {
	corpus := loadCorpus(f)
	docs := []string{`{}`, `[]`, `{"a":[1,{"b":"c"}]}`, `{"name":"token","value":{"x":1}}`, `[["sid","x"]]`,
		`{"type":"service_account","private_key":1}`, `{"cookies":[{"name":"a","value":"b","domain":"x"}]}`,
		`{"s":"{\"password\":\"x\"}"}`, `"\u00e9\ud83d\ude00"`, `1e400`, `{"a":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}`}
	for _, s := range fuzzSeeds(f) {
		raw, _ := json.Marshal(map[string]string{"note": s})
		docs = append(docs, string(raw), s)
	}
	for i, d := range docs {
		f.Add([]byte(d), uint16(i))
	}
	e := testEngine(f)
	f.Fuzz(func(t *testing.T, raw []byte, pick uint16) {
		out, _, err := e.JSON(raw)
		if err != nil {
			t.Fatalf("JSON error: %v", err)
		}
		valid := json.Valid(raw)
		if valid && !json.Valid(out) {
			t.Fatalf("valid input gave invalid output\n in: %q\nout: %q", raw, out)
		}
		again, st, err := e.JSON(out)
		if err != nil || string(again) != string(out) || st.Redacted != 0 {
			t.Fatalf("not idempotent (err %v, %v)\n 1st: %q\n 2nd: %q", err, st.ByClass, out, again)
		}

		c := corpus[int(pick)%len(corpus)]
		if strings.Contains(string(raw), c.Secret) {
			return
		}
		val, _ := json.Marshal(c.Value)
		var doc string
		if valid {
			doc = `{"fuzz":` + string(raw) + `,"planted":` + string(val) + `,"list":[` + string(val) + `]}`
		} else {
			doc = string(raw) + "\n" + c.Value + "\n"
		}
		pout, _, err := e.JSON([]byte(doc))
		if err != nil {
			t.Fatalf("JSON(planted) error: %v", err)
		}
		if strings.Contains(string(pout), c.Secret) {
			t.Fatalf("planted %s survived\n in: %q\nout: %q", c.Class, doc, pout)
		}
		if valid {
			// Cut in the last 16 bytes: the first planted copy is whole,
			// and a truncated document must keep its redactions.
			cut := doc[:len(doc)-1-int(pick)%16]
			cout, _, err := e.JSON([]byte(cut))
			if err != nil {
				t.Fatalf("JSON(truncated) error: %v", err)
			}
			if strings.Contains(string(cout), c.Secret) {
				t.Fatalf("planted %s survived truncation\n in: %q\nout: %q", c.Class, cut, cout)
			}
			if again, _, _ := e.JSON(cout); string(again) != string(cout) {
				t.Fatalf("truncated not idempotent\n 1st: %q\n 2nd: %q", cout, again)
			}
			var v any
			dec := json.NewDecoder(strings.NewReader(string(pout)))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("planted output invalid: %v", err)
			}
			if s, _ := json.Marshal(v); strings.Contains(decodeAll(v), c.Secret) {
				t.Fatalf("planted %s survived decoding: %s", c.Class, s)
			}
		}
	})
}

// decodeAll joins every string of a decoded JSON value.
func decodeAll(v any) string {
	switch x := v.(type) {
	case string:
		return x + "\n"
	case map[string]any:
		var b strings.Builder
		for k, y := range x {
			b.WriteString(k + "\n" + decodeAll(y))
		}
		return b.String()
	case []any:
		var b strings.Builder
		for _, y := range x {
			b.WriteString(decodeAll(y))
		}
		return b.String()
	}
	return ""
}

// FuzzJSONParser: parseDoc accepts exactly what json.Valid accepts, and
// unquote decodes every string as encoding/json does.
func FuzzJSONParser(f *testing.F) {
	for _, s := range []string{`{}`, `[1,-0.5e+3,"a\u00e9\ud83d\ude00\ud800x",true,null]`, `{"a":{"b":[]}}`,
		`01`, `1.`, `"\x"`, `"a` + "\x01" + `"`, ` [ ] `, `{"a" 1}`, `[1,]`, `"\ud83d\u0041"`, `"\/\b\f\n\r\t\\\""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, ok := parseDoc(s)
		if want := json.Valid([]byte(s)); ok != want {
			t.Fatalf("parseDoc(%q) = %v, json.Valid = %v", s, ok, want)
		}
		if !ok {
			return
		}
		var walk func(n *jnode)
		walk = func(n *jnode) {
			if n.kind == '"' {
				var want string
				if err := json.Unmarshal([]byte(n.text(s)), &want); err != nil {
					t.Fatalf("string node %q does not decode: %v", n.text(s), err)
				}
				if got := fffd(unquote(n.text(s), n.esc)); got != want {
					t.Fatalf("unquote(%q) = %q, want %q", n.text(s), got, want)
				}
			}
			kids := doc.kids(n)
			for i := range kids {
				walk(&kids[i])
			}
		}
		walk(&doc.root)
	})
}

// fffd replaces each invalid UTF-8 byte with U+FFFD, as encoding/json does.
func fffd(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // RuneError for an invalid byte
		i += n
	}
	return b.String()
}
