package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// ConfigFile is the agent configuration's name in the state directory.
const ConfigFile = "agent.json"

// Config is the daemon's agent configuration ($GASOLINE_HOME/agent.json,
// mode 0600). It holds provider keys: it is read by the daemon only and
// never sent to the extension, logged or exported.
type Config struct {
	// Default names the provider the panel uses when it names none;
	// default "local".
	Default   string     `json:"default,omitempty"`
	Providers []Provider `json:"providers,omitempty"`
	// MaxToolRounds bounds the model ⇄ tool rounds of one turn; default 8.
	MaxToolRounds int `json:"max_tool_rounds,omitempty"`
}

// Provider is one configured model provider.
type Provider struct {
	Name    string `json:"name"`
	Type    string `json:"type"` // openai | anthropic | local
	BaseURL string `json:"base_url,omitempty"`
	Model   string `json:"model,omitempty"`
	APIKey  string `json:"api_key,omitempty"`
	// APIKeyEnv names an environment variable of the daemon holding the
	// key, instead of APIKey.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
}

// Key returns the provider's API key.
func (p Provider) Key() string {
	if p.APIKey != "" {
		return p.APIKey
	}
	if p.APIKeyEnv != "" {
		return os.Getenv(p.APIKeyEnv)
	}
	return ""
}

// ErrConfigMode: agent.json is readable by other users; the daemon refuses
// to use keys others can read.
var ErrConfigMode = errors.New("agent: agent.json must be mode 0600")

// LoadConfig reads dir/agent.json. A missing file is the empty config
// (only the local provider). A file that group or others may read or
// write is refused, as is one that does not parse.
func LoadConfig(dir string) (Config, error) {
	path := filepath.Join(dir, ConfigFile)
	var c Config
	found, err := state.ReadPrivateJSON(path, &c)
	switch {
	case !found && err == nil:
		return Config{}.filled(), nil
	case errors.As(err, new(*state.TooOpenError)):
		return Config{}, fmt.Errorf("%w: %v", ErrConfigMode, err)
	case errors.Is(err, state.ErrSyntax):
		return Config{}, fmt.Errorf("agent: %v; fix it or remove it to use the local provider only", err)
	case err != nil:
		return Config{}, fmt.Errorf("agent: %w", err)
	}
	seen := map[string]bool{}
	for _, p := range c.Providers {
		switch {
		case p.Name == "":
			return Config{}, fmt.Errorf("agent: %s: every provider needs a name", path)
		case seen[p.Name]:
			return Config{}, fmt.Errorf("agent: %s: provider %q is listed twice", path, p.Name)
		case p.Type != "openai" && p.Type != "anthropic" && p.Type != "local":
			return Config{}, fmt.Errorf("agent: %s: provider %q has type %q; want openai, anthropic or local", path, p.Name, p.Type)
		}
		seen[p.Name] = true
	}
	return c.filled(), nil
}

func (c Config) filled() Config {
	if c.Default == "" {
		c.Default = "local"
	}
	if c.MaxToolRounds <= 0 {
		c.MaxToolRounds = 8
	}
	return c
}

// DefaultConfig is the configuration without agent.json: the local
// provider only.
func DefaultConfig() Config { return Config{}.filled() }
