package mcprelay

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/tidwall/gjson"
)

// initState is what the relay knows of the client's initialize and the
// cache (initcache.go). It belongs to the run goroutine.
type initState struct {
	cache *initCache // nil: no cache (Config.InitCache empty)
	first bool       // the next stdin line is the client's first
	pv    string     // the protocolVersion the client's initialize asked for
	// given is the cached result the client was answered with, until the
	// daemon's own answer is checked against it.
	given json.RawMessage
	check int64 // the relay's id of the initialize whose answer checks given
	fill  int64 // the relay's id of the client's initialize, forwarded: its answer fills the cache
	// daemonVersion is the version the connected daemon reports: only a
	// daemon of this relay's version writes the cache.
	daemonVersion string
}

// answerFromCache answers the client's first message from the cache when
// it is an initialize for a protocolVersion the cache holds, and returns
// the line that forwards it to the daemon under the relay's own id
// (forwardCached) once connected.
func (r *relay) answerFromCache(in line) (line, bool) {
	if in.tooLong || r.init.cache == nil {
		return in, false
	}
	// gjson, not peek: encoding/json's first decode costs ~0.1 ms of a
	// cold start, and this is the answer's path.
	if !gjson.ValidBytes(in.data) {
		return in, false
	}
	head := gjson.GetManyBytes(in.data, "method", "id")
	id := json.RawMessage(head[1].Raw)
	if head[0].Type != gjson.String || head[0].Str != "initialize" || !validID(id) {
		return in, false
	}
	pv := requestedVersion(in.data)
	res, ok := r.init.cache.lookup(pv)
	if !ok {
		return in, false
	}
	// Without a live daemon the client must not hear it is connected:
	// the initialize goes the uncached way (the daemon started, or a
	// clear error).
	if r.cfg.Running != nil && !r.cfg.Running() {
		r.log.Info("no daemon runs: initialize is answered by the daemon the relay starts, not from the cache")
		return in, false
	}
	res = compact(res)
	reply := make([]byte, 0, len(res)+len(id)+40)
	reply = append(reply, `{"jsonrpc":"2.0","id":`...)
	reply = append(reply, id...)
	reply = append(reply, `,"result":`...)
	reply = append(append(reply, res...), '}')
	r.write(reply)
	r.log.Info("initialize answered from the cache; the daemon gets it with the first request", "protocol", pv)
	r.initReq = bytes.Clone(in.data)
	r.init.given, r.init.pv = res, pv
	return line{data: in.data, ownInit: true}, true
}

// forwardCached sends the initialize the cache answered to the daemon,
// under the relay's own id: the daemon's session is initialized as
// before, and its answer (checked) is never written to stdout. The
// client's later messages wait for that answer (relay.waiting).
func (r *relay) forwardCached(ctx context.Context, l *link, req []byte) *link {
	if l == nil {
		return nil // the first connection failed: the next connect replays this initialize
	}
	id := r.ids.addOwn()
	msg, err := setTopLevel(req, "id", json.RawMessage(strconv.FormatInt(id, 10)))
	if err != nil {
		return l // peek decoded it, so this cannot fail
	}
	if err := l.send(ctx, msg); err != nil {
		return r.dropped(ctx, l, err)
	}
	r.init.check = id
	return l
}

// checked compares the daemon's answer to the initialize the cache
// answered with what the client was given, and rewrites the cache when
// they differ (saying so on stderr: the client runs with the cached one).
func (r *relay) checked(msg []byte) {
	given := r.init.given
	r.init.check, r.init.given = 0, nil
	res := gjson.GetBytes(msg, "result")
	if !res.IsObject() {
		r.log.Warn("the daemon refused the initialize the relay had answered from its cache",
			"cache", r.init.cache.path, "error", gjson.GetBytes(msg, "error.message").String())
		return
	}
	got := compact([]byte(res.Raw))
	if bytes.Equal(got, given) {
		return
	}
	r.log.Warn("the daemon's initialize answer differs from the cached one the client was given; the cache now holds the daemon's",
		"cache", r.init.cache.path, "protocol", r.init.pv)
	r.store(got)
}

// filled stores the daemon's answer to the client's own initialize
// (passed through to the client) in the cache.
func (r *relay) filled(msg []byte) {
	r.init.fill = 0
	if res := gjson.GetBytes(msg, "result"); res.IsObject() {
		r.store(compact([]byte(res.Raw)))
	}
}

// store writes a result of a daemon of this relay's version to the cache.
func (r *relay) store(res json.RawMessage) {
	if r.init.cache == nil || r.init.daemonVersion != r.cfg.Version {
		return
	}
	if err := r.init.cache.store(r.init.pv, res); err != nil {
		r.log.Info("could not write the initialize cache", "cache", r.init.cache.path, "err", err)
	}
}

// requestedVersion is the protocolVersion an initialize request asks for
// ("" when it names none).
func requestedVersion(msg []byte) string {
	v := gjson.GetBytes(msg, "params.protocolVersion")
	if v.Type != gjson.String {
		return ""
	}
	return v.Str
}
