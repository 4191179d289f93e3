package pagetools

import (
	"encoding/json"
	"errors"
	"fmt"
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
		{schema, `{"qty":2}`, `required: missing properties: ["item"]`},
		{schema, `{"item":"pear","qty":0}`, "/properties/qty: minimum"},
		{schema, `{"item":"pineapple"}`, "/properties/item: maxLength"},
		{schema, `{"item":"pear","qty":1.5}`, `/properties/qty: type: 1.5 has type "number", want "integer"`},
		{schema, `{"item":"pear","qty":2.0}`, ""},
		{schema, `{"item":"pear","x":1}`, `unexpected additional properties ["x"]`},
		{schema, `[1]`, "must be a JSON object"},
		{"", `{"anything":[1,2]}`, ""},
		{"", `"x"`, "must be a JSON object"},
		{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":1e300}`, ""},
		{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":1e400}`, "the number 1e400 is out of range"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, `{"a":"x"}`, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, `{"a":1}`, `want "string"`},
		{`{"type":"object"}`, `{} {}`, "not JSON"},
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

// A $ref that leads back to itself would make the validator recurse until
// the stack overflows, a fatal error that ends the daemon: such a schema
// is refused, as is any reference the check cannot follow itself.
func TestSchemaRefusesRecursion(t *testing.T) {
	refused := []string{
		`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
		`{"allOf":[{"$ref":"#"}]}`,
		`{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"not":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`,
		`{"type":"object","properties":{"child":{"$ref":"#"}}}`, // recursive data: refused too
		`{"$defs":{"a~b":{"$ref":"#/$defs/a~0b"}},"$ref":"#/$defs/a~0b"}`,
		`{"$ref":"#/$defs/a%62","$defs":{"ab":{"$ref":"#/$defs/a%62"}}}`,
		`{"$defs":{"a":{"$id":"urn:a","$ref":"urn:a"}},"$ref":"#/$defs/a"}`,
		`{"$dynamicAnchor":"x","$dynamicRef":"#x"}`,
		`{"$anchor":"x","$ref":"#x"}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
		`{"$rEf":"#"}`, // the validator reads keywords without regard to case
		`{"ALLOF":[{"$ref":"#/allOf/0"}]}`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$REF":"#/$defs/a"}}}`,
		`{"$ref":"#/$defs/b","$ref":"#","$defs":{"b":{}}}`, // a repeated key keeps its last value
		`{"$defs":` + strings.Repeat(`{"a":`, 1) + `{}}` + `,"allOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/a"},`, maxRefs+1), ",") + `]}`,
	}
	// Each definition names the next twice: 2^40 schemas unfolded.
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d40":{"type":"object"}`)
	refused = append(refused, `{"$ref":"#/$defs/d0","$defs":{`+strings.Join(defs, ",")+`}}`)
	for _, schema := range refused {
		var se *schemaError
		err := checkArgs([]byte(schema), []byte(`{"child":{}}`))
		require.True(t, errors.As(err, &se), "%s: %v", schema, err)
	}
	// References that end: shared definitions, chains, siblings.
	ok := `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/t"}},` +
		`"$defs":{"s":{"type":"string"},"t":{"allOf":[{"$ref":"#/$defs/s"},{"maxLength":3}]}}}`
	require.NoError(t, checkArgs([]byte(ok), []byte(`{"a":"x","b":"abc"}`)))
	require.ErrorContains(t, checkArgs([]byte(ok), []byte(`{"b":"abcd"}`)), "maxLength")
}

// FuzzCheckArgs: a page's schema and an agent's arguments, both
// untrusted, never panic the validator.
func FuzzCheckArgs(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string","pattern":"^x+$"}}}`, `{"a":"xx"}`)
	f.Add(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{}`)
	f.Add(`{"allOf":[{"$ref":"#"}]}`, `{"a":[1,{"b":null}]}`)
	f.Add(`not json`, `{`)
	f.Add(`{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`, `[[1]]`)
	f.Add(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`, `{"n":12345678901234567890}`)
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
