package mcprelay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// The daemon answers initialize the same way every time for one Gasoline
// version and one requested protocolVersion: the go-sdk's result is the
// negotiated protocolVersion (from the requested one), the server's
// capabilities (from the tools it registered), its instructions and its
// serverInfo, none of it from the client's capabilities or clientInfo. So
// the relay keeps the daemon's last result per requested protocolVersion
// and answers a client's initialize from it at once, while it forwards the
// initialize to the daemon and checks the daemon's answer against what the
// client was given (relay.go).

// maxInitCache bounds the cache file (a result is ~2 KB).
const maxInitCache = 256 << 10

// initCacheFile is the cache's content: the version of Gasoline that wrote
// it and the daemon's initialize result per requested protocolVersion.
type initCacheFile struct {
	Version string                     `json:"version"`
	Results map[string]json.RawMessage `json:"results"`
}

// initCache is the cache file at path, for relays of version.
type initCache struct {
	path, version string
	file          *initCacheFile // as read at the first use (load)
}

// load reads the file; anything unreadable, unsafe or of another version
// reads as empty (and is replaced at the next store). It is on every
// start's path, before the first answer: gjson reads it without
// encoding/json's reflection (~0.2 ms at a cold start).
func (c *initCache) load() (initCacheFile, error) {
	empty := initCacheFile{Version: c.version, Results: map[string]json.RawMessage{}}
	raw, err := state.ReadPrivateFile(c.path, maxInitCache)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, err
	}
	if !gjson.ValidBytes(raw) {
		return empty, fmt.Errorf("mcprelay: %s does not parse", c.path)
	}
	doc := gjson.ParseBytes(raw)
	results := doc.Get("results")
	if !doc.IsObject() || doc.Get("version").String() != c.version || !results.IsObject() {
		return empty, nil
	}
	results.ForEach(func(k, v gjson.Result) bool {
		empty.Results[k.String()] = json.RawMessage(v.Raw)
		return true
	})
	return empty, nil
}

// read is the file as this process first read it (an unreadable one reads
// as empty).
func (c *initCache) read() initCacheFile {
	if c.file == nil {
		f, _ := c.load()
		c.file = &f
	}
	return *c.file
}

// holdsAny reports whether the cache holds a result of this version.
func (c *initCache) holdsAny() bool { return c != nil && len(c.read().Results) > 0 }

// lookup returns the cached result for a requested protocolVersion, if
// this version of Gasoline wrote one that is a JSON object.
func (c *initCache) lookup(pv string) (json.RawMessage, bool) {
	if c == nil || pv == "" {
		return nil, false
	}
	res, ok := c.read().Results[pv]
	if !ok || !isObject(res) {
		return nil, false
	}
	return res, true
}

// store records the daemon's result for pv, rewriting the file only when
// it held something else (a file that was unreadable or of another
// version is replaced whole).
func (c *initCache) store(pv string, result json.RawMessage) error {
	if c == nil || pv == "" || !isObject(result) {
		return nil
	}
	f, err := c.load()
	if err == nil && bytes.Equal(f.Results[pv], result) {
		return nil
	}
	f.Results[pv] = result
	raw, err := encode(f)
	if err != nil {
		return err
	}
	return state.WritePrivate(c.path, raw, false)
}

// encode writes results as the daemon sent them: json.Marshal would
// rewrite the instructions' "<<<" as "\u003c\u003c\u003c", and the next
// start's answer would then differ from the daemon's byte for byte.
func encode(f initCacheFile) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 1 && raw[0] == '{' && json.Valid(raw)
}

// compact is raw without insignificant whitespace (raw when it is not
// JSON), so results compare byte for byte.
func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
