package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manifests/README.md documents the Linux locations the code uses.
func TestReadmeListsLinuxLocations(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for name, b := range linuxBrowsers {
		for _, want := range append([]string{"`" + b.config + "/NativeMessagingHosts`"}, b.system...) {
			if !strings.Contains(doc, want) {
				t.Errorf("README does not list %s's %s", name, want)
			}
		}
	}
}
