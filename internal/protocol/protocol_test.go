package protocol

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestExtensionAgreesOnMaxMessage: the extension reassembles messages up
// to MAX_MESSAGE_BYTES; it is the daemon's one limit, MaxMessage.
func TestExtensionAgreesOnMaxMessage(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "extension", "lib", "chunks.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export const MAX_MESSAGE_BYTES = ([0-9 *]+);`).FindSubmatch(src)
	if m == nil {
		t.Fatal("extension/lib/chunks.js defines no MAX_MESSAGE_BYTES")
	}
	n := 1
	for _, f := range strings.Split(string(m[1]), "*") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("MAX_MESSAGE_BYTES = %s: %v", m[1], err)
		}
		n *= v
	}
	if n != MaxMessage {
		t.Errorf("the extension's MAX_MESSAGE_BYTES is %d, the daemon's MaxMessage %d", n, MaxMessage)
	}
}
