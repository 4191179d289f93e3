package bridge

import (
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// policyPath is $GASOLINE_POLICY, else policy.json in the state dir.
func policyPath(dir string) (string, error) {
	if p := os.Getenv("GASOLINE_POLICY"); p != "" {
		return filepath.Abs(p)
	}
	return filepath.Join(dir, "policy.json"), nil
}

func auditPath(dir string) string { return filepath.Join(state.LogDir(dir), "audit.jsonl") }
