package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// FileName is the policy file's name in the state directory.
const FileName = "policy.json"

// Path returns the policy file's path: $GASOLINE_POLICY when set, else
// policy.json in the state directory ($GASOLINE_HOME or the OS default).
func Path() (string, error) {
	if p := os.Getenv("GASOLINE_POLICY"); p != "" {
		return filepath.Abs(p)
	}
	dir, err := state.Dir()
	if err != nil {
		return "", fmt.Errorf("policy: locating the state directory: %w", err)
	}
	return filepath.Join(dir, FileName), nil
}

// Load reads and validates the policy at path. A missing file is not an
// error: it yields Default(). Any other read or parse failure is an error,
// and the caller must fail closed (Store does).
func Load(path string) (*Policy, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("policy: reading %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("policy: reading %s: %w", path, err)
	}
	p, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return p, nil
}

// Save validates p and writes it to path atomically (temp file, fsync,
// rename) with mode 0600, creating the folder (0700) if needed. A reader
// sees the old policy or the new one, never half of either.
func Save(path string, p *Policy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	raw, err := p.MarshalIndent()
	if err != nil {
		return fmt.Errorf("policy: encoding: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("policy: creating %s: %w", filepath.Dir(path), err)
	}
	if err := state.WriteFileAtomic(path, raw, 0o600); err != nil {
		return fmt.Errorf("policy: saving %s: %w", path, err)
	}
	return nil
}
