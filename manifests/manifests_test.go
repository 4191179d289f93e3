package manifests

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRenderIsValidJSON(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(`odd "dir"`, `back\slash`, "gasoline-host"))
	if err != nil {
		t.Fatal(err)
	}
	origins := []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}

	raw, err := Render(abs, origins)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatalf("rendered manifest is not JSON:\n%s", raw)
	}
	got, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{Name: HostName, Description: Description, Path: abs, Type: "stdio", AllowedOrigins: origins}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestRenderRejects(t *testing.T) {
	if _, err := Render("relative/gasoline-host", []string{"chrome-extension://x/"}); err == nil {
		t.Error("relative path: got nil error")
	}
	abs, _ := filepath.Abs("gasoline-host")
	if _, err := Render(abs, nil); err == nil {
		t.Error("no origins: got nil error")
	}
}

func TestParseRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":   `{"name":`,
		"wrong name": `{"name":"x","type":"stdio","path":"/a"}`,
		"wrong type": `{"name":"com.gasoline.host","type":"socket","path":"/a"}`,
		"no path":    `{"name":"com.gasoline.host","type":"stdio"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(doc)); err == nil {
				t.Errorf("Parse(%s): got nil error, want one", doc)
			}
		})
	}
}
