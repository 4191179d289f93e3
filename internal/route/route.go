// Package route is interact route's model: a tab's table of request
// routes (block, fulfil or delay the requests whose URL matches a glob),
// which route a paused request matches, and what each route did. It
// knows nothing of CDP sessions: the caller turns the table into Fetch
// patterns and acts on the Decision for each paused request.
package route

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits: a tab holds at most MaxRoutes routes, a fulfilled body is at
// most MaxBody bytes (it travels to the extension base64-encoded, in one
// message of at most 1 MiB), a delay at most MaxDelay.
const (
	MaxRoutes = 32
	MaxBody   = 512 << 10
	MaxDelay  = 60 * time.Second
	keepHits  = 5
)

// Spec is what interact route asks for.
type Spec struct {
	Pattern string            `json:"url_pattern"`
	Method  string            `json:"method,omitempty"`
	Type    string            `json:"type,omitempty"`
	Block   bool              `json:"block,omitempty"`
	Status  int               `json:"status_code,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    *string           `json:"body,omitempty"`
	DelayMS int               `json:"delay_ms,omitempty"`
}

// Route is one route of a tab and what it did.
type Route struct {
	ID string `json:"id"`
	Spec
	Effect string    `json:"effect"` // block, fulfill, delay, delay+fulfill, delay+block
	Hits   int       `json:"hits"`
	Recent []Hit     `json:"recent,omitempty"` // the latest matches, newest last
	Added  time.Time `json:"added"`
}

// Hit is one request a route matched.
type Hit struct {
	Method string    `json:"method"`
	URL    string    `json:"url"`
	At     time.Time `json:"at"`
}

// Fulfills reports whether the route answers in the browser's place.
func (s Spec) Fulfills() bool { return s.Status != 0 || s.Body != nil || s.Headers != nil }

// Error is a bad route, said so an agent can fix the call.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func bad(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// ErrFull is returned when the tab already holds MaxRoutes routes.
var ErrFull = errors.New("route: table full")

// check validates a spec and names its effect.
func (s *Spec) check() (string, error) {
	switch {
	case strings.TrimSpace(s.Pattern) == "":
		return "", bad("url_pattern is empty; give a glob such as */api/items*")
	case len(s.Pattern) > 2048:
		return "", bad("url_pattern is %d bytes; at most 2048", len(s.Pattern))
	case s.Block && s.Fulfills():
		return "", bad("block and a response (status_code, headers, body) exclude each other: a blocked request gets no response")
	case !s.Block && !s.Fulfills() && s.DelayMS == 0:
		return "", bad("say what the route does: block:true, a response (status_code, headers, body), or delay_ms")
	case s.DelayMS < 0 || time.Duration(s.DelayMS)*time.Millisecond > MaxDelay:
		return "", bad("delay_ms must be 0 to %d", MaxDelay.Milliseconds())
	case s.Status != 0 && (s.Status < 100 || s.Status > 599):
		return "", bad("status_code must be 100 to 599; got %d", s.Status)
	case s.Body != nil && len(*s.Body) > MaxBody:
		return "", bad("body is %d bytes; a fulfilled body is at most %d", len(*s.Body), MaxBody)
	}
	if s.Type != "" {
		t, ok := resourceTypes[strings.ToLower(s.Type)]
		if !ok {
			return "", bad("type %q is not a resource type; one of: %s", s.Type, strings.Join(typeNames(), ", "))
		}
		s.Type = t
	}
	s.Method = strings.ToUpper(s.Method)
	for name, v := range s.Headers {
		if name == "" || strings.ContainsAny(name, " :\r\n") || strings.ContainsAny(v, "\r\n") {
			return "", bad("header %q: names are tokens and values one line", name)
		}
	}
	effect := ""
	if s.DelayMS > 0 {
		effect = "delay"
	}
	switch {
	case s.Block:
		effect = join(effect, "block")
	case s.Fulfills():
		effect = join(effect, "fulfill")
	}
	return effect, nil
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "+" + b
}

// resourceTypes maps what an agent writes to CDP's Network.ResourceType as
// the Fetch domain reports it: it calls a fetch() request XHR (Chromium's
// network service knows one type for both), so fetch and xhr are one.
var resourceTypes = map[string]string{
	"document": "Document", "stylesheet": "Stylesheet", "image": "Image", "media": "Media", "font": "Font",
	"script": "Script", "xhr": "XHR", "fetch": "XHR", "eventsource": "EventSource", "websocket": "WebSocket",
	"manifest": "Manifest", "ping": "Ping", "other": "Other",
}

func typeNames() []string {
	out := make([]string, 0, len(resourceTypes))
	for k := range resourceTypes {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Table is a tab's routes. Its methods are safe for concurrent use.
type Table struct {
	mu     sync.Mutex
	routes []*Route // in the order added
	next   int
}

// Add validates spec and adds it as the newest route (it wins over older
// ones that match the same request).
func (t *Table) Add(spec Spec, now time.Time) (Route, error) {
	effect, err := spec.check()
	if err != nil {
		return Route{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.routes) >= MaxRoutes {
		return Route{}, ErrFull
	}
	t.next++
	r := &Route{ID: "r" + strconv.Itoa(t.next), Spec: spec, Effect: effect, Added: now}
	t.routes = append(t.routes, r)
	return r.clone(), nil
}

// Remove takes away the route with id, else every route with pattern,
// else (both empty) every route; it returns what it removed.
func (t *Table) Remove(id, pattern string) []Route {
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []Route
	t.routes = slices.DeleteFunc(t.routes, func(r *Route) bool {
		hit := (id == "" && pattern == "") || (id != "" && r.ID == id) || (id == "" && r.Pattern == pattern)
		if hit {
			gone = append(gone, r.clone())
		}
		return hit
	})
	return gone
}

// List returns the routes, oldest first.
func (t *Table) List() []Route {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Route, len(t.routes))
	for i, r := range t.routes {
		out[i] = r.clone()
	}
	return out
}

// Len is the number of routes.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.routes)
}

// Match finds the newest route matching a request and counts the hit; ok
// is false when none does (the request goes on untouched).
func (t *Table) Match(method, url, resourceType string, now time.Time) (Route, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.routes) - 1; i >= 0; i-- {
		r := t.routes[i]
		if (r.Method != "" && r.Method != method) || (r.Type != "" && r.Type != resourceType) || !Glob(r.Pattern, url) {
			continue
		}
		r.Hits++
		r.Recent = append(r.Recent, Hit{Method: method, URL: url, At: now})
		if len(r.Recent) > keepHits {
			r.Recent = r.Recent[len(r.Recent)-keepHits:]
		}
		return r.clone(), true
	}
	return Route{}, false
}

func (r *Route) clone() Route {
	c := *r
	c.Recent = slices.Clone(r.Recent)
	if r.Headers != nil {
		c.Headers = make(map[string]string, len(r.Headers))
		for k, v := range r.Headers {
			c.Headers[k] = v
		}
	}
	return c
}

// Glob matches s against pattern the way Chrome's Fetch patterns do: *
// is any run of characters, ? exactly one, a backslash escapes the next
// character.
func Glob(pattern, s string) bool {
	px, sx := 0, 0
	star, mark := -1, 0
	for sx < len(s) {
		if px < len(pattern) {
			c := pattern[px]
			switch {
			case c == '*':
				star, mark = px, sx
				px++
				continue
			case c == '?':
				px++
				sx++
				continue
			case c == '\\' && px+1 < len(pattern):
				if pattern[px+1] == s[sx] {
					px += 2
					sx++
					continue
				}
			case c == s[sx]:
				px++
				sx++
				continue
			}
		}
		if star < 0 {
			return false
		}
		px, mark = star+1, mark+1
		sx = mark
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}
