package mcprelay

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// oddIDs are request ids the daemon's SDK would not echo as sent (it reads
// ids as strings or 64-bit integers), and ordinary ones beside them.
var oddIDs = []string{
	`1.5`, `1`, `9007199254740993`, `1e29`, `-0`, `1E+2`, `0.0`, `-7`,
	`123456789012345678901234567890`, `"a\u0062"`, `""`, `"1"`, `"x y"`,
}

// TestRelayEchoesIDsByteForByte: requests with every kind of id are in
// flight at once; the daemon sees only the relay's own distinct integer ids
// and answers in reverse order; the client gets each answer under its id,
// byte for byte, and 1.5 never collides with 1.
func TestRelayEchoesIDsByteForByte(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	var daemonIDs []string
	for _, id := range oddIDs {
		r.send(`{"jsonrpc":"2.0","id": ` + id + ` ,"method":"ping"}`)
		got := d.recv()
		if _, isNum := got["id"].(float64); !isNum || got["method"] != "ping" {
			t.Fatalf("daemon got %v for client id %s", got, id)
		}
		daemonIDs = append(daemonIDs, idOf(got))
	}
	if uniq := slices.Compact(slices.Sorted(slices.Values(daemonIDs))); len(uniq) != len(oddIDs) {
		t.Fatalf("daemon ids %v are not distinct", daemonIDs)
	}
	for i := len(daemonIDs) - 1; i >= 0; i-- {
		d.send(`{"jsonrpc":"2.0","id":` + daemonIDs[i] + `,"result":{"n":` + daemonIDs[i] + `}}`)
		want := `{"jsonrpc":"2.0","id":` + oddIDs[i] + `,"result":{"n":` + daemonIDs[i] + `}}`
		if got := string(r.recvRaw()); got != want {
			t.Errorf("answer to id %s:\n got %s\nwant %s", oddIDs[i], got, want)
		}
	}
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
}

// TestRelayRefusesBadIDs: a request whose id is null, a boolean, an object
// or an array is answered with Invalid Request (id null) and never reaches
// the daemon; a response with id null (the client answering something)
// passes.
func TestRelayRefusesBadIDs(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	for _, id := range []string{`null`, `true`, `{"a":1}`, `[1]`} {
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		got := r.recv()
		if got["id"] != nil || dig(got, "error", "code") != -32600.0 || !strings.Contains(dig(got, "error", "message").(string), "request id") {
			t.Errorf("id %s: answer %v", id, got)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}`)
	if got := d.recv(); got["error"] == nil {
		t.Fatalf("daemon got %v first; the refused requests must not reach it", got)
	}
	r.exit()
}

// TestRelayMapsCancellation: notifications/cancelled names the client's id;
// the daemon gets the relay's.
func TestRelayMapsCancellation(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	r.send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"observe","arguments":{"what":"page"}}}`)
	call := d.recv()
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5,"reason":"user"}}`)
	got := d.recv()
	if dig(got, "params", "requestId") != call["id"] || dig(got, "params", "reason") != "user" {
		t.Fatalf("daemon got %v for a cancel of %v", got, call)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`) // not in flight: as is
	if got := d.recv(); dig(got, "params", "requestId") != 99.0 {
		t.Fatalf("daemon got %v", got)
	}
	r.exit()
}

// TestRelayExitsSoonAfterEOF: stdin ends with a request the daemon never
// answers (a daemon that is slow, or an id the old relay lost track of).
// The relay answers it with relay_exiting, naming the session to resume,
// and exits; it does not wait 30 s.
func TestRelayExitsSoonAfterEOF(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	r.send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"observe","arguments":{"what":"page"}}}`)
	d.recv()
	r.in.Close()
	got := r.recvRaw()
	if !bytes.HasPrefix(got, []byte(`{"jsonrpc":"2.0","id":1.5,"error":`)) || gjson.GetBytes(got, "error.data.code").String() != "relay_exiting" ||
		!strings.Contains(gjson.GetBytes(got, "error.message").String(), "--session s1.k1") {
		t.Fatalf("in-flight answer %s", got)
	}
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
}

// FuzzRelayLine drives one client line through the relay's id handling and
// a daemon that answers every request it gets: a request with an allowed
// id gets exactly one answer carrying that id byte for byte; one with a
// refused id gets Invalid Request; stdout only ever carries one JSON
// value per line.
func FuzzRelayLine(f *testing.F) {
	for _, id := range oddIDs {
		f.Add([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`))
	}
	for _, s := range []string{`{"id":null,"method":"x"}`, `{"id":true,"method":"x"}`, `[1,2]`, `{"method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"id":1,"id":2,"method":"a"}`, `{"id":"\ud800","method":"a"}`, "{\"id\":1,\"method\":\"a\"}\r", `nul`, `{"id":1e400,"method":"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.ContainsAny(data, "\n") {
			return // one line
		}
		var out bytes.Buffer
		r := newRelay(Config{Out: &out})
		h, ok := peek(data)
		if ok && h.isRequest() && !validID(h.ID) {
			return // answered before the daemon; TestRelayRefusesBadIDs
		}
		sent := data
		if ok {
			sent = r.outgoing(h, data)
		}
		if !ok || !h.isRequest() {
			return
		}
		var toDaemon struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sent, &toDaemon); err != nil {
			t.Fatalf("to daemon %q: %v", sent, err)
		}
		r.fromDaemon([]byte(`{"jsonrpc":"2.0","id":` + string(toDaemon.ID) + `,"result":{}}`))
		line := out.Bytes()
		if bytes.Count(line, []byte("\n")) != 1 || !json.Valid(bytes.TrimSpace(line)) {
			t.Fatalf("stdout %q", line)
		}
		if got := gjson.GetBytes(line, "id").Raw; got != string(h.ID) {
			t.Fatalf("answer id %s, sent %s (line %q)", got, h.ID, data)
		}
		if r.ids.clientRequests() != 0 {
			t.Fatalf("still in flight after its answer")
		}
	})
}

// FuzzReadLines: any input splits into lines with no newline, none longer
// than the bound, none blank.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\r\n\n"+strings.Repeat("x", 40)+"\nbb\nlast"), 10)
	f.Add([]byte("\r\r\n  \n{}"), 3)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		stop := make(chan struct{})
		defer close(stop)
		for l := range readLines(bytes.NewReader(data), max, stop) {
			if l.tooLong {
				continue
			}
			if bytes.ContainsAny(l.data, "\n") || len(l.data) > max+1 || len(bytes.TrimSpace(l.data)) == 0 {
				t.Fatalf("line %q (max %d)", l.data, max)
			}
		}
	})
}
