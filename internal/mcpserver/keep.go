package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Pending results outlive the daemon. A call handed to its client to
// collect later (it answered still_processing, or ran in the background)
// is kept in <state>/pending/: first as running, then with its result,
// redacted as any output, once it finishes. A daemon that starts puts them
// back into the sessions it restored (sessions.json), so observe
// command_result answers the same correlation id after a restart: the
// result, or — for a command that was still running when the daemon died
// — command_lost, which says its effect is unknown. Results over
// maxKeptResult are not kept (the answer says so); at most maxKept
// commands are kept; what outlived its session or ResultTTL is removed at
// start.

// CodeCommandLost is the error of a command the daemon died running.
const CodeCommandLost = "command_lost"

const (
	maxKeptResult = 256 << 10
	maxKept       = 256
)

type keptCommand struct {
	Session string          `json:"session"`
	ID      string          `json:"correlation_id"`
	Tool    string          `json:"tool"`
	What    string          `json:"what"`
	Started time.Time       `json:"started_at"`
	Ended   time.Time       `json:"ended_at,omitzero"`
	State   string          `json:"state"` // running | complete | too_large
	Result  json.RawMessage `json:"result,omitempty"`
}

// keepDir is where handed-off commands are kept ("" when sessions are not
// kept across restarts).
func (s *Server) keepDir() string {
	if s.opts.Sessions.File == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(s.opts.Sessions.File), "pending")
}

func keptPath(dir, sid, id string) string {
	h := sha256.Sum256([]byte(sid))
	return filepath.Join(dir, hex.EncodeToString(h[:8])+"-"+id+".json")
}

// keepHandoff keeps cmd, just handed to its client, and its result once it
// finishes (unless the daemon stops first: then it stays running, and the
// next daemon reports it lost).
func (s *Server) keepHandoff(sess *session.Session, cmd *session.Command) {
	dir := s.keepDir()
	if t := sess.Info().Transport; dir == "" || (t != session.Stdio && t != session.HTTP) {
		return // only sessions that outlive the daemon
	}
	k := keptCommand{Session: sess.ID(), ID: cmd.ID, Tool: cmd.Tool, What: cmd.What, Started: cmd.Started, State: "running"}
	if err := s.writeKept(dir, k); err != nil {
		s.log.Warn("keeping a pending command failed; a daemon restart loses it", "err", err)
		return
	}
	s.watchers.Go(func(ctx context.Context) {
		select {
		case <-cmd.Done():
		case <-ctx.Done():
			return
		}
		if s.stopping() {
			return // cancelled by the stop, not finished
		}
		v, _ := cmd.Result()
		res, _ := v.(*mcp.CallToolResult)
		if res == nil {
			return
		}
		red, ok := s.redactResult(k.Session, res)
		if !ok {
			return // a result the gateway blocks is not kept
		}
		raw, err := json.Marshal(withoutPage(red))
		k.State, k.Ended = "complete", time.Now()
		switch {
		case err != nil:
			return
		case len(raw) > maxKeptResult:
			k.State = "too_large"
		default:
			k.Result = raw
		}
		if err := s.writeKept(dir, k); err != nil {
			s.log.Warn("keeping a pending result failed", "err", err)
		}
	})
}

func (s *Server) stopping() bool {
	select {
	case <-s.ctxDone:
		return true
	default:
		return false
	}
}

// writeKept writes one record (0600) and keeps the folder under maxKept.
func (s *Server) writeKept(dir string, k keptCommand) error {
	s.keepMu.Lock()
	defer s.keepMu.Unlock()
	raw, err := json.Marshal(k)
	if err != nil {
		return err
	}
	if err := state.WritePrivate(keptPath(dir, k.Session, k.ID), raw, false); err != nil {
		return err
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) > maxKept {
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return modTime(a).Compare(modTime(b)) })
		for _, e := range ents[:len(ents)-maxKept] {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

func modTime(e fs.DirEntry) time.Time {
	if fi, err := e.Info(); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}

// restoreKept puts the kept commands back into their restored sessions,
// and removes what no session or the result TTL keeps.
func (s *Server) restoreKept() {
	dir := s.keepDir()
	if dir == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	ttl := s.opts.Sessions.ResultTTL
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	n := 0
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			os.Remove(path)
			continue
		}
		var k keptCommand
		raw, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(raw, &k)
		}
		sess := s.sessions.Get(k.Session)
		if err != nil || sess == nil || time.Since(later(k.Started, k.Ended)) > ttl {
			os.Remove(path)
			continue
		}
		sess.RestoreCommand(k.ID, k.Tool, k.What, k.Started, later(k.Ended, time.Now()), keptResult(k))
		n++
	}
	if n > 0 {
		s.log.Info("pending results restored", "commands", n)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// keptResult is what command_result answers for a kept command.
func keptResult(k keptCommand) *mcp.CallToolResult {
	switch k.State {
	case "complete":
		var res mcp.CallToolResult
		if json.Unmarshal(k.Result, &res) == nil {
			if res.StructuredContent != nil { // as the dispatcher holds it
				raw, _ := json.Marshal(res.StructuredContent)
				res.StructuredContent = json.RawMessage(raw)
			}
			return &res
		}
	case "too_large":
		return errorResult(&tools.Error{Code: CodeCommandLost, Retryable: true,
			Message: fmt.Sprintf("%s %s finished, but its result was too large to keep across the daemon's restart; run it again", k.Tool, k.What)})
	}
	return errorResult(&tools.Error{Code: CodeCommandLost, Retryable: true,
		NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "page"}},
		Message:    fmt.Sprintf("the daemon restarted while %s %s ran, so its result is lost; it may or may not have taken effect: check the page before running it again", k.Tool, k.What)})
}
