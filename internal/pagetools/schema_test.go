package pagetools

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckArgs(t *testing.T) {
	schema := `{"type":"object","properties":{"item":{"type":"string","maxLength":5},"qty":{"type":"integer","minimum":1}},"required":["item"],"additionalProperties":false}`
	for _, tc := range []struct {
		schema, args, err string
	}{
		{schema, `{"item":"pear","qty":2}`, ""},
		{schema, `{"qty":2}`, `at /: missing property 'item'`},
		{schema, `{"item":"pear","qty":0}`, "at /qty: minimum"},
		{schema, `{"item":"pineapple"}`, "at /item: maxLength"},
		{schema, `{"item":"pear","x":1}`, "additional properties 'x' not allowed"},
		{schema, `[1]`, "must be a JSON object"},
		{"", `{"anything":[1,2]}`, ""},
		{"", `"x"`, "must be a JSON object"},
		{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":1e400}`, ""},
	} {
		err := checkArgs([]byte(tc.schema), []byte(tc.args))
		if tc.err == "" {
			require.NoError(t, err, "%s %s", tc.schema, tc.args)
			continue
		}
		require.ErrorContains(t, err, tc.err, "%s %s", tc.schema, tc.args)
	}
	require.ErrorContains(t, checkArgs(nil, []byte(`{"a":"`+strings.Repeat("x", maxArgs)+`"}`)), "at most")
}

// A page's schema never makes Gasoline read a file or the network: every
// $ref or $schema outside the built-in meta-schemas fails to load, and
// the call is refused (not checked loosely).
func TestSchemaLoadsNothing(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	require.NoError(t, os.WriteFile(secret, []byte(`{"type":"string","description":"TOP SECRET"}`), 0o600))
	for _, schema := range []string{
		`{"$ref":"file://` + secret + `"}`,
		`{"type":"object","properties":{"a":{"$ref":"file://` + secret + `"}}}`,
		`{"$ref":"http://127.0.0.1:1/schema.json"}`,
		`{"$schema":"file://` + secret + `","type":"object"}`,
	} {
		err := checkArgs([]byte(schema), []byte(`{"a":"x"}`))
		var se *schemaError
		require.True(t, errors.As(err, &se), "%s: %v", schema, err)
		require.NotContains(t, err.Error(), "TOP SECRET")
	}
	// A bare path resolves inside the page's own schema, never on disk:
	// read from disk, "x" would pass as the file's string.
	err := checkArgs([]byte(`{"type":"object","properties":{"a":{"$ref":"`+secret+`"}}}`), []byte(`{"a":"x"}`))
	require.Error(t, err)
	require.NoError(t, checkArgs([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`), []byte(`{}`)),
		"the meta-schemas are built in")
	big, _ := json.Marshal(map[string]any{"type": "object", "description": strings.Repeat("x", maxSchema)})
	var se *schemaError
	require.ErrorAs(t, checkArgs(big, []byte(`{}`)), &se)
}

// FuzzCheckArgs: a page's schema and an agent's arguments, both
// untrusted, never panic the validator.
func FuzzCheckArgs(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string","pattern":"^x+$"}}}`, `{"a":"xx"}`)
	f.Add(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{}`)
	f.Add(`{"allOf":[{"$ref":"#"}]}`, `{"a":[1,{"b":null}]}`)
	f.Add(`not json`, `{`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		checkArgs([]byte(schema), []byte(args))
	})
}

// FuzzEvent: what Chrome relays carries the page's strings; no event, in
// any order, panics the tab's state.
func FuzzEvent(f *testing.F) {
	f.Add(evToolsAdded, `{"tools":[{"name":"a","frameId":"F1","inputSchema":"{\"type\":\"object\"}","annotations":{"readOnly":true}}]}`)
	f.Add(evToolsRemoved, `{"tools":[{"name":"a","frameId":"F1"}]}`)
	f.Add(evToolResponded, `{"invocationId":"i","status":"Error","exception":{"value":"x"}}`)
	f.Add(evFrameNav, `{"frame":{"id":"F1"}}`)
	f.Add(evToolInvoked, `{"toolName":"a","frameId":"F1","invocationId":"i"}`)
	f.Fuzz(func(t *testing.T, method, params string) {
		ts := newTabState()
		c := &invocation{frame: "F1", name: "a", done: make(chan outcome, 1)}
		ts.calls = append(ts.calls, c)
		ts.event(method, json.RawMessage(params))
		ts.bindID(c, "i")
		ts.event(method, json.RawMessage(params))
		for _, x := range ts.tools {
			x.def()
			looksLikeGasoline(*x)
		}
	})
}
