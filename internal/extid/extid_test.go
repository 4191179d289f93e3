package extid

import (
	"encoding/json"
	"os"
	"testing"
)

// The pinned ID must be the one Chrome derives from the committed key.
func TestIDMatchesManifestKey(t *testing.T) {
	raw, err := os.ReadFile("../../extension/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	got, err := FromKey(m.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got != ID {
		t.Fatalf("ID from manifest key = %q, pinned ID = %q", got, ID)
	}
}

func TestIsOrigin(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{Origin, true},
		{"chrome-extension://" + ID, true},
		{"chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", false},
		{"", false},
		{"chrome-extension://" + ID + "/x", false},
	} {
		if got := IsOrigin(tc.in); got != tc.want {
			t.Errorf("IsOrigin(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
