package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// FileName is the remote agents' store in the credentials folder.
const FileName = "remotes.json"

// Path is the store of a state directory.
func Path(stateDir string) string { return filepath.Join(creds.Dir(stateDir), FileName) }

type storeFile struct {
	Version int     `json:"version"`
	Agents  []Agent `json:"agents"`
}

// ErrUnknown means no remote agent has that name.
var ErrUnknown = errors.New("remote: no remote agent of that name")

// Load reads the store; a missing file is an empty store. A file someone
// else could have read or written is refused like a credential file
// (the daemon replaces it at start: creds.Secure).
func Load(stateDir string) ([]Agent, error) {
	p := Path(stateDir)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file; the daemon replaces it when it starts", creds.ErrUnsafe, p)
	}
	var f storeFile
	found, err := state.ReadPrivateJSON(p, &f)
	if err != nil {
		return nil, fmt.Errorf("remote: reading %s: %w", p, err)
	}
	if !found {
		return nil, nil
	}
	return f.Agents, nil
}

// save writes the store atomically (0600, in the 0700 folder).
func save(stateDir string, agents []Agent) error {
	if agents == nil {
		agents = []Agent{}
	}
	slices.SortFunc(agents, func(a, b Agent) int { return a.Created.Compare(b.Created) })
	raw, err := json.MarshalIndent(storeFile{Version: 1, Agents: agents}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(creds.Dir(stateDir), 0o700); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	if err := state.WriteFileAtomic(Path(stateDir), raw, 0o600); err != nil {
		return fmt.Errorf("remote: writing %s: %w", Path(stateDir), err)
	}
	return nil
}

// add stores a new agent; a live agent of the same name is an error (an
// expired one is replaced).
func add(stateDir string, a Agent) error {
	agents, err := Load(stateDir)
	if err != nil {
		return err
	}
	for i, x := range agents {
		if x.Name == a.Name {
			if x.Live(a.Created) {
				return fmt.Errorf("remote: a remote agent named %q exists until %s; revoke it first (gasoline-host remote revoke %s) or choose another name",
					a.Name, x.Expires.Local().Format("2006-01-02 15:04"), a.Name)
			}
			agents = slices.Delete(agents, i, i+1)
			break
		}
	}
	return save(stateDir, append(agents, a))
}

// revoke removes the agent named name and returns it.
func revoke(stateDir, name string) (Agent, error) {
	agents, err := Load(stateDir)
	if err != nil {
		return Agent{}, err
	}
	i := slices.IndexFunc(agents, func(a Agent) bool { return a.Name == name })
	if i < 0 {
		return Agent{}, fmt.Errorf("%w: %q (gasoline-host remote list shows them)", ErrUnknown, name)
	}
	gone := agents[i]
	return gone, save(stateDir, slices.Delete(agents, i, i+1))
}
