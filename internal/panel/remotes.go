package panel

import (
	"encoding/json"
	"errors"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/remote"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// Remotes are the remote agents (*remote.Registry): the panel lists them
// and revokes them; it never adds one (that takes `gasoline-host remote
// add` at a terminal, which prints the credential once).
type Remotes interface {
	List() []remote.Info
	Revoke(name string) error
}

// RemoteView is a remote agent as the panel's card shows it.
type RemoteView struct {
	remote.Info
	// Connected counts its live sessions.
	Connected int `json:"connected"`
}

func (p *Panel) remotesList() (any, *protocol.Error) {
	if p.cfg.Remotes == nil {
		return map[string]any{"remotes": []RemoteView{}}, nil
	}
	live := map[string]int{}
	for _, in := range p.cfg.Server.SessionManager().List() {
		if in.Remote != "" && in.State == session.Ready {
			live[in.Remote]++
		}
	}
	out := []RemoteView{}
	for _, r := range p.cfg.Remotes.List() {
		out = append(out, RemoteView{Info: r, Connected: live[r.Name]})
	}
	return map[string]any{"remotes": out}, nil
}

func (p *Panel) remotesRevoke(raw json.RawMessage) (any, *protocol.Error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &in); err != nil || in.Name == "" || p.cfg.Remotes == nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "remotes.revoke needs name (from remotes.list)")
	}
	if err := p.cfg.Remotes.Revoke(in.Name); err != nil {
		if errors.Is(err, remote.ErrUnknown) {
			return nil, protocol.Errorf(protocol.CodeBadRequest, false, "%v", err)
		}
		return nil, protocol.Errorf(protocol.CodeInternal, true, "%v", err)
	}
	p.log.Info("panel: the user revoked a remote agent", "name", in.Name)
	return p.remotesList()
}
