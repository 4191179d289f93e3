package notes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Config configures the notes modes. All fields are required.
type Config struct {
	Store *Store
	// Redact is the egress stage of the redaction gateway for a session: a
	// value passes it before it is written. An error refuses the write.
	Redact func(sessionID, text string) (string, error)
}

// Register serves configure store and load on m.
func Register(m *mcpserver.Server, cfg Config) {
	md := modes{cfg}
	m.Handle("configure", "store", md.store)
	m.Handle("configure", "load", md.load)
}

type modes struct{ cfg Config }

// StoreResult is configure store's answer.
type StoreResult struct {
	Key      string `json:"key"`
	Bytes    int    `json:"bytes"`
	Redacted bool   `json:"redacted,omitempty"` // the value held secrets, written as [REDACTED:…]
	Deleted  bool   `json:"deleted,omitempty"`
	Notes    int    `json:"notes"`
}

func (md modes) store(ctx context.Context, c *mcpserver.Call) (any, error) {
	key, value := c.Args.Key, c.Args.Value
	if err := CheckKey(key); err != nil {
		return nil, toolError(err, nil)
	}
	if len(value) > MaxValue {
		return nil, toolError(fmt.Errorf("%w: %d bytes (at most %d)", ErrTooLarge, len(value), MaxValue), nil)
	}
	safe, err := md.cfg.Redact(c.Session.ID(), value)
	if err != nil {
		return nil, &tools.Error{Code: "redaction_failed", Message: "the note was not written: redaction failed (" + err.Error() + "); fix redaction.json and retry"}
	}
	n := Note{Key: key, Value: safe, UpdatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if info := c.Session.Info(); info.Client.Name != "" {
		n.By = info.Client.Name
	}
	deleted, err := md.cfg.Store.Put(n)
	if err != nil {
		return nil, toolError(err, md.cfg.Store)
	}
	keys, _ := md.cfg.Store.Keys()
	res := StoreResult{Key: key, Bytes: len(safe), Redacted: safe != value, Deleted: deleted, Notes: len(keys)}
	text := fmt.Sprintf("note %q saved (%d bytes); %d notes", key, len(safe), len(keys))
	switch {
	case deleted:
		text = fmt.Sprintf("note %q deleted; %d notes", key, len(keys))
	case res.Redacted:
		text += "; secrets in it were saved as [REDACTED:…]"
	}
	return mcpserver.Result(text, res)
}

// LoadResult is configure load's answer.
type LoadResult struct {
	Note
	Keys []string `json:"keys"` // every note's key
}

func (md modes) load(ctx context.Context, c *mcpserver.Call) (any, error) {
	n, err := md.cfg.Store.Get(c.Args.Key)
	if err != nil {
		return nil, toolError(err, md.cfg.Store)
	}
	keys, _ := md.cfg.Store.Keys()
	return mcpserver.Result(fmt.Sprintf("note %q (saved %s by %s):\n%s", n.Key, n.UpdatedAt.Format(time.RFC3339), or(n.By, "an agent"), n.Value),
		LoadResult{Note: n, Keys: keys})
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// toolError maps the store's errors to structured tool errors; s, when
// given, lists the keys that exist.
func toolError(err error, s *Store) error {
	var keys []string
	if s != nil {
		keys, _ = s.Keys()
	}
	list := func() string {
		if len(keys) == 0 {
			return "no notes are saved"
		}
		shown := keys[:min(len(keys), 20)]
		more := ""
		if len(keys) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(keys)-len(shown))
		}
		return "notes saved: " + strings.Join(shown, ", ") + more
	}
	switch {
	case errors.Is(err, ErrKey):
		return &tools.Error{Code: tools.CodeInvalidArgument, Message: err.Error()}
	case errors.Is(err, ErrTooLarge):
		return &tools.Error{Code: "note_too_large", Message: err.Error() + "; save a shorter value or split it under several keys"}
	case errors.Is(err, ErrFull):
		return &tools.Error{Code: "too_many_notes", Message: err.Error() + "; delete one (store it with an empty value) first; " + list()}
	case errors.Is(err, ErrNotFound):
		return &tools.Error{Code: "note_not_found", Message: err.Error() + "; " + list()}
	}
	return err
}
