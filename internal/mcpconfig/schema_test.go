package mcpconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFor is the documented schema each client's JSON forms must pass
// (testdata/schemas: written from each client's docs, which they cite).
// "json" is the common mcpServers form: Claude Code's is the strictest
// reader of it (a remote server needs its type).
var schemaFor = map[string]string{
	"claude": "claude-mcp.schema.json",
	"gemini": "gemini-settings.schema.json",
	"cursor": "cursor-mcp.schema.json",
	"json":   "claude-mcp.schema.json",
}

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, doc map[string]any) error {
	t.Helper()
	raw, _ := json.Marshal(doc)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

// Issue 34, item 4: every JSON form Gasoline prints — for this machine and
// for a remote agent's — passes the schema its client documents; and the
// schemas are not so loose that they pass what the clients refuse (the
// form users tripped on: a remote server without its type).
func TestEveryJSONFormPassesItsClientsSchema(t *testing.T) {
	tg := target
	tg.Env = map[string]string{"GASOLINE_HOME": "/home/a/.g", "GASOLINE_PORT": "7999"}
	for client, file := range schemaFor {
		s := compile(t, file)
		for _, kind := range []string{"local", "remote"} {
			text, err := Snippet(client, tg)
			if kind == "remote" {
				text, err = RemoteSnippet(client, tg)
			}
			if err != nil {
				t.Fatal(err)
			}
			blocks := jsonBlocks(t, text)
			want := map[string]int{"local": 2, "remote": 1}[kind]
			if client == "claude" {
				want = map[string]int{"local": 1, "remote": 0}[kind] // the HTTP form is a command
			}
			if len(blocks) != want {
				t.Fatalf("%s %s: %d JSON forms, want %d:\n%s", client, kind, len(blocks), want, text)
			}
			for i, b := range blocks {
				if err := validate(t, s, b); err != nil {
					t.Errorf("%s %s form %d fails %s: %v\n%s", client, kind, i, file, err, text)
				}
			}
		}
	}
	untyped := map[string]any{"mcpServers": map[string]any{"gasoline": map[string]any{"url": tg.URL, "headers": map[string]any{"Authorization": "Bearer x"}}}}
	if validate(t, compile(t, "claude-mcp.schema.json"), untyped) == nil {
		t.Error("the Claude schema passes a remote server without its type")
	}
	both := map[string]any{"mcpServers": map[string]any{"gasoline": map[string]any{"command": "x", "httpUrl": tg.URL}}}
	if validate(t, compile(t, "gemini-settings.schema.json"), both) == nil {
		t.Error("the Gemini schema passes a server with two transports")
	}
}
