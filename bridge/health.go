package bridge

import (
	"encoding/json"
	"net/http"
	"os"
)

// Health is the /health answer (ARCHITECTURE.md). It never carries the token.
type Health struct {
	ServiceName     string          `json:"service-name"`
	Version         string          `json:"version"`
	PID             int             `json:"pid"`
	TransportStatus TransportStatus `json:"transport_status"`
}

// TransportStatus counts live MCP sessions per transport and says whether an
// extension is connected.
type TransportStatus struct {
	Stdio     int    `json:"stdio"`
	HTTP      int    `json:"http"`
	Extension string `json:"extension"`
}

// Health reports the daemon's health.
func (s *Server) Health() Health {
	h := Health{ServiceName: "gasoline", Version: s.cfg.Version, PID: os.Getpid()}
	if s.mcp != nil {
		h.TransportStatus.Stdio, h.TransportStatus.HTTP = s.mcp.Sessions()
	}
	h.TransportStatus.Extension = "disconnected"
	if s.links.Connected() {
		h.TransportStatus.Extension = "connected"
	}
	return h
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.Health())
}
