package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusLabel maps a corpus class to the label its values must get in text.
func corpusLabel(class string) string {
	if class == string(User) {
		return "employee_id"
	}
	return class
}

// TestCorpusShape checks the corpus itself: sizes, every class present,
// and the shape checks that make values realistic (Luhn, mod 97, JWT
// headers), independently of the engine's detectors.
func TestCorpusShape(t *testing.T) {
	corpus, negs := loadCorpus(t), loadNegatives(t)
	assert.GreaterOrEqual(t, len(corpus), 200, "corpus size")
	assert.GreaterOrEqual(t, len(negs), 100, "negatives size")
	per := map[string]int{}
	for _, c := range corpus {
		per[c.Class]++
		require.NotEmpty(t, c.Secret, "%s %q has no secret", c.Class, c.Value)
		require.Contains(t, c.Value, c.Secret, "%s: secret must be part of the value", c.Class)
		switch c.Class {
		case "card":
			d := strings.NewReplacer(" ", "", "-", "").Replace(c.Value)
			assert.True(t, luhn([]byte(d)), "card %s fails Luhn", c.Value)
		case "iban":
			d := strings.ReplaceAll(c.Value, " ", "")
			assert.Equal(t, ibanLengths[d[:2]], len(d), "iban %s length", c.Value)
			assert.True(t, mod97([]byte(d)), "iban %s fails mod 97", c.Value)
		case "jwt":
			parts := strings.Split(c.Value, ".")
			require.Len(t, parts, 3)
			h, err := base64.RawURLEncoding.DecodeString(parts[0])
			require.NoError(t, err)
			assert.Contains(t, string(h), `"alg"`)
		}
	}
	for _, k := range Classes() {
		assert.GreaterOrEqual(t, per[string(k)], 5, "class %s needs values in the corpus", k)
	}
}

// contexts plants a value the ways later tests plant it in pages and
// returns each redacted output as text.
type plantCtx struct {
	name string
	run  func(t *testing.T, e *Engine, v string) string
}

var plantContexts = []plantCtx{
	{"text", func(t *testing.T, e *Engine, v string) string {
		out, _, err := e.Text(v)
		require.NoError(t, err)
		return out
	}},
	{"json_innocuous_key", func(t *testing.T, e *Engine, v string) string {
		return redactJSONDoc(t, e, map[string]any{"note": v, "list": []any{1, v}})
	}},
	{"json_secret_key", func(t *testing.T, e *Engine, v string) string {
		return redactJSONDoc(t, e, map[string]any{"password": v, "data": map[string]any{"refresh_token": v}})
	}},
	{"url_query", func(t *testing.T, e *Engine, v string) string {
		out, _, err := e.URL("https://app.example.test/cb?note=" + url.QueryEscape(v) + "&page=2#frag=" + url.QueryEscape(v))
		require.NoError(t, err)
		u, err := url.Parse(out)
		require.NoError(t, err)
		frag, _ := url.ParseQuery(u.Fragment)
		return out + "\n" + u.Query().Get("note") + "\n" + frag.Get("frag")
	}},
	{"form_body", func(t *testing.T, e *Engine, v string) string {
		out, _, err := e.Form("a=1&note=" + url.QueryEscape(v) + "&b=2")
		require.NoError(t, err)
		q, err := url.ParseQuery(out)
		require.NoError(t, err)
		return out + "\n" + q.Get("note")
	}},
	{"header", func(t *testing.T, e *Engine, v string) string {
		out, _, err := e.Headers(map[string]string{"X-Note": v, "Authorization": v})
		require.NoError(t, err)
		return out["X-Note"] + "\n" + out["Authorization"]
	}},
	{"cookie_header", func(t *testing.T, e *Engine, v string) string {
		out, _, err := e.Headers(map[string]string{"Cookie": "theme=dark; note=" + v, "Set-Cookie": "note=" + v + "; Path=/"})
		require.NoError(t, err)
		return out["Cookie"] + "\n" + out["Set-Cookie"]
	}},
	{"go_value", func(t *testing.T, e *Engine, v string) string {
		out, _, err := e.Value(map[string]any{"note": v, "items": []any{map[string]any{"text": v}}})
		require.NoError(t, err)
		raw, err := json.Marshal(out)
		require.NoError(t, err)
		return string(raw) + "\n" + decodedStrings(t, raw)
	}},
}

// redactJSONDoc marshals doc, redacts it and returns the output followed by
// every decoded string in it (so escapes cannot hide a leak).
func redactJSONDoc(t *testing.T, e *Engine, doc any) string {
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	out, _, err := e.JSON(raw)
	require.NoError(t, err)
	require.True(t, json.Valid(out), "JSON output must stay valid JSON")
	return string(out) + "\n" + decodedStrings(t, out)
}

// decodedStrings returns every string (keys and values) of a JSON document.
func decodedStrings(t *testing.T, raw []byte) string {
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case map[string]any:
			for k, y := range x {
				b.WriteString(k + "\n")
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return b.String()
}

// assertNoSecret fails when secret, or its URL-encoded form, is in out.
func assertNoSecret(t *testing.T, out, secret, what string) {
	t.Helper()
	if strings.Contains(out, secret) {
		t.Errorf("%s: secret leaked\n got: %q", what, out)
		return
	}
	if enc := url.QueryEscape(secret); enc != secret && strings.Contains(out, enc) {
		t.Errorf("%s: URL-encoded secret leaked\n got: %q", what, out)
	}
}

// TestCorpusRedactedInEveryContext: every corpus value is redacted in
// every context (SAFETY.md: keys stay, values go).
func TestCorpusRedactedInEveryContext(t *testing.T) {
	e := testEngine(t)
	for _, pc := range plantContexts {
		t.Run(pc.name, func(t *testing.T) {
			for _, c := range loadCorpus(t) {
				out := pc.run(t, e, c.Value)
				assertNoSecret(t, out, c.Secret, c.Class+" "+pc.name)
				assert.Contains(t, out, markerPrefix, "%s: some marker expected", c.Class)
			}
		})
	}
}

// TestCorpusLabels: in plain text each value gets its own class's label.
func TestCorpusLabels(t *testing.T) {
	e := testEngine(t)
	for _, c := range loadCorpus(t) {
		_, st, err := e.Text(c.Value)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, st.ByClass[corpusLabel(c.Class)], 1, "%s %q: got %v", c.Class, c.Value, st.ByClass)
	}
}

// TestNegativesSurvive: every look-alike comes out byte for byte.
func TestNegativesSurvive(t *testing.T) {
	e := testEngine(t)
	for _, n := range loadNegatives(t) {
		t.Run(n.Kind, func(t *testing.T) {
			out, st, err := e.Text(n.Value)
			require.NoError(t, err)
			assert.Equal(t, n.Value, out, "text")
			assert.Zero(t, st.Redacted, "text count")

			raw, _ := json.Marshal(map[string]any{"note": n.Value, "list": []any{n.Value}})
			jout, _, err := e.JSON(raw)
			require.NoError(t, err)
			assert.Equal(t, string(raw), string(jout), "json")

			u := "https://app.example.test/p?note=" + url.QueryEscape(n.Value) + "&page=2"
			uout, _, err := e.URL(u)
			require.NoError(t, err)
			assert.Equal(t, u, uout, "url")

			f := "a=1&note=" + url.QueryEscape(n.Value)
			fout, _, err := e.Form(f)
			require.NoError(t, err)
			assert.Equal(t, f, fout, "form")

			h, _, err := e.Headers(map[string]string{"X-Note": n.Value})
			require.NoError(t, err)
			assert.Equal(t, n.Value, h["X-Note"], "header")

			v, _, err := e.Value(map[string]any{"note": n.Value})
			require.NoError(t, err)
			assert.Equal(t, map[string]any{"note": n.Value}, v, "value")
		})
	}
}

// TestCorpusMixedDocument plants every value and every negative in one
// document and checks both properties at once, as a page would.
func TestCorpusMixedDocument(t *testing.T) {
	e := testEngine(t)
	var b strings.Builder
	for i, c := range loadCorpus(t) {
		b.WriteString("console.log line " + string(rune('a'+i%26)) + ": " + c.Value + "\n")
	}
	negs := loadNegatives(t)
	for _, n := range negs {
		b.WriteString("note: " + n.Value + "\n")
	}
	out, st, err := e.Text(b.String())
	require.NoError(t, err)
	for _, c := range loadCorpus(t) {
		assertNoSecret(t, out, c.Secret, c.Class+" mixed")
	}
	for _, n := range negs {
		assert.Contains(t, out, "note: "+n.Value+"\n", "negative %s", n.Kind)
	}
	assert.GreaterOrEqual(t, st.Redacted, len(loadCorpus(t)))
}

// TestCorpusAfterSecretLabel: a value that follows a secret-sounding label
// ("aws_secret: aws_secret_access_key = …", as a log line that names the
// class would read) is still redacted — the label must not swallow the
// next pair's name and leave its value behind.
func TestCorpusAfterSecretLabel(t *testing.T) {
	e := testEngine(t)
	for _, c := range loadCorpus(t) {
		for _, label := range []string{c.Class + ": ", "password: ", "token = ", `"secret": `} {
			in := "plant 7 " + label + c.Value + " (app.js:3)"
			out, _, err := e.Text(in)
			require.NoError(t, err)
			assertNoSecret(t, out, c.Secret, c.Class+" after "+label)
			again, _, _ := e.Text(out)
			assert.Equal(t, out, again, "idempotent: %q", in)
		}
	}
}
