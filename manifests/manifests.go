// Package manifests holds the one template every native-messaging host
// manifest is generated from. The locations each browser reads it from are
// decided in internal/install (per OS) and listed in README.md beside this
// file; this package only renders and parses the document.
package manifests

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"text/template"
)

// HostName is the native-messaging host name the extension connects to.
const HostName = "com.gasoline.host"

// FileName is the manifest's file name wherever a browser looks it up by name.
const FileName = HostName + ".json"

// Description is the manifest's human-readable description.
const Description = "Gasoline: relays between the Gasoline extension and the local Gasoline daemon"

//go:embed com.gasoline.host.json.tmpl
var templateText string

// tmpl is parsed on first use (install, doctor), not at every start of
// gasoline-host.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New(FileName).Funcs(template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}).Parse(templateText))
})

// Manifest is a native-messaging host manifest as browsers read it.
type Manifest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Path           string   `json:"path"`
	Type           string   `json:"type"`
	AllowedOrigins []string `json:"allowed_origins"`
}

// Render returns the manifest for the host binary at path (which must be
// absolute: browsers on Linux and macOS refuse anything else) allowing the
// given extension origins (each "chrome-extension://<id>/").
func Render(path string, origins []string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("manifests: host path %q is not absolute", path)
	}
	if len(origins) == 0 {
		return nil, errors.New("manifests: no allowed origins")
	}
	var b bytes.Buffer
	err := tmpl().Execute(&b, Manifest{
		Name: HostName, Description: Description, Path: path, AllowedOrigins: origins,
	})
	if err != nil {
		return nil, fmt.Errorf("manifests: %w", err)
	}
	return b.Bytes(), nil
}

// Parse decodes a manifest and checks the fields every browser requires.
func Parse(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("manifests: not valid JSON: %w", err)
	}
	switch {
	case m.Name != HostName:
		return m, fmt.Errorf("manifests: name is %q, want %q", m.Name, HostName)
	case m.Type != "stdio":
		return m, fmt.Errorf("manifests: type is %q, want \"stdio\"", m.Type)
	case m.Path == "":
		return m, errors.New("manifests: path is empty")
	}
	return m, nil
}
