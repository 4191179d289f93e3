package export

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Save writes an artifact for the agent under the state directory's
// exports/ (0700), as a new 0600 file named what-<UTC time>ext, and
// returns its path. Callers pass bytes that already passed the egress
// stage of the redaction gateway.
func Save(stateDir, what, ext string, body []byte) (string, error) {
	dir := filepath.Join(stateDir, "exports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("export: creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s%s", what, time.Now().UTC().Format("20060102T150405.000"), ext))
	if err := os.WriteFile(path, body, 0o600); err != nil {
		return "", fmt.Errorf("export: writing %s: %w", path, err)
	}
	return path, nil
}
