package recorder

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

const (
	tab     = 7
	sid     = "s1"
	binding = "__gasoline_actions_0011223344556677"
)

// clock is a test clock the recorder and the reports share.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

type fixture struct {
	t     *testing.T
	m     *tabs.Manager
	r     *Recorder
	store *capture.Store
	exp   *export.Recorder
	clock *clock
}

func newFixture(t *testing.T) *fixture {
	ctx, cancel := context.WithCancel(context.Background())
	m := tabs.New(ctx, tabs.Config{Link: noLink{}})
	t.Cleanup(func() { cancel(); m.Wait() })
	m.Registry().Own(sid, tab)
	c := &clock{now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	store, err := capture.NewStore(&capture.Options{Now: c.Now})
	require.NoError(t, err)
	f := &fixture{t: t, m: m, store: store, exp: export.NewRecorder(), clock: c}
	f.r = New(Config{Store: store, Tabs: m, Export: f.exp, Now: c.Now})
	m.Targets().Listen(f.r)
	tabPart.Of(m.Target(tab)).binding = binding // as an install leaves it
	return f
}

// noLink is a link to no browser: the recorder's reports arrive as events.
type noLink struct{}

func (noLink) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("no browser in unit tests")
}

// event delivers one CDP event of a tab as the link does.
func (f *fixture) event(tab int, session, method string, params json.RawMessage) {
	f.m.Event(tab, session, method, params)
}

// report sends one report of the page, seen now by the page's clock.
func (f *fixture) report(name string, rep map[string]any) {
	f.t.Helper()
	if _, ok := rep["at"]; !ok {
		rep["at"] = f.clock.Now().UnixMilli()
	}
	payload, _ := json.Marshal(rep)
	params, _ := json.Marshal(map[string]any{"name": name, "payload": string(payload), "executionContextId": 3})
	f.event(tab, "", "Runtime.bindingCalled", params)
}

func (f *fixture) actions() []capture.Action {
	var out []capture.Action
	for _, e := range f.store.Activity(tab, 0, 0).Entries {
		if e.Action != nil {
			out = append(out, *e.Action)
		}
	}
	return out
}

func TestEventStoresCurrentBindingOnly(t *testing.T) {
	f := newFixture(t)
	f.report(binding, map[string]any{"t": "click", "selector": "#go", "target": `button "Go"`, "clicks": 9})
	f.report("__gasoline_actions_stale", map[string]any{"t": "click", "selector": "#old"})
	f.report("somethingElse", map[string]any{"t": "click"})
	f.report(binding, map[string]any{"t": "explode"})
	f.event(tab, "", "Runtime.bindingCalled", json.RawMessage(`{"name":"`+binding+`","payload":"{not json"}`))
	f.event(tab, "CHILD", "Runtime.bindingCalled", json.RawMessage(`{"name":"`+binding+`","payload":"{\"t\":\"click\"}"}`))
	f.event(9, "", "Runtime.bindingCalled", json.RawMessage(`{"name":"`+binding+`","payload":"{\"t\":\"click\"}"}`)) // no session holds it: never reaches the recorder
	f.m.Registry().Own(sid, 8)
	f.event(8, "", "Runtime.bindingCalled", json.RawMessage(`{"name":"`+binding+`","payload":"{\"t\":\"click\"}"}`))
	got := f.actions()
	require.Len(t, got, 1, "%+v", got)
	assert.Equal(t, capture.Action{Seq: 1, Order: 1, Time: f.clock.Now(), Type: "click", Source: "user", Selector: "#go",
		Target: `button "Go"`, Clicks: 3}, got[0])
	assert.Equal(t, uint64(4), f.r.Dropped(), "the stale binding, the unknown type, the malformed payload, a tab never installed")
}

func TestSourceCarriesTheSensitiveSelectors(t *testing.T) {
	r := New(Config{Secrets: func() ([]string, error) { return []string{".private-note"}, nil }})
	src := r.source("__gasoline_actions_x")
	require.Contains(t, src, "function gasolineSecretTest", "the shared test comes with it")
	require.NotContains(t, src, placeholder)
	require.NotContains(t, src, maskPlaceholder)
	b, _ := json.Marshal(append(append([]string(nil), sensitive.Builtin...), ".private-note"))
	require.Contains(t, src, base64.StdEncoding.EncodeToString(b))

	broken := New(Config{Secrets: func() ([]string, error) { return nil, errors.New("bad policy") }})
	require.Contains(t, broken.source("n"), base64.StdEncoding.EncodeToString([]byte(`["*"]`)), "an unusable policy masks every value")
}

func TestMaskedValuesAreNeverKept(t *testing.T) {
	f := newFixture(t)
	f.report(binding, map[string]any{"t": "type", "selector": "#pw", "value": "hunter2", "masked": "password"})
	f.report(binding, map[string]any{"t": "type", "selector": "#x", "value": "v", "masked": "other"})
	f.report(binding, map[string]any{"t": "select", "selector": "#plan", "value": "gold", "masked": "sensitive"})
	got := f.actions()
	require.Len(t, got, 2)
	assert.Empty(t, got[0].Value, "a page that sends a masked value anyway")
	assert.Equal(t, "password", got[0].Masked)
	assert.Empty(t, got[1].Value, "a sensitive element's choice")
	assert.Equal(t, "sensitive", got[1].Masked)
	f.r.recs[sid] = &recording{name: "r"}
	f.report(binding, map[string]any{"t": "type", "selector": "#card", "masked": "card"})
	acts, _, _ := f.exp.Snapshot(sid)
	require.Len(t, acts, 1)
	assert.Equal(t, "[REDACTED:card]", acts[0].Text)
}

// TestAgentOrUser: a report the page made while an interact call of the
// tab's session ran — by the page's clock — is the agent's, even when it
// arrives after the call ended.
func TestAgentOrUser(t *testing.T) {
	f := newFixture(t)
	end := f.r.begin(sid)
	during := f.clock.add(100 * time.Millisecond)
	f.report(binding, map[string]any{"t": "click", "selector": "#during-running"})
	f.clock.add(100 * time.Millisecond)
	end()
	f.clock.add(time.Second)
	f.report(binding, map[string]any{"t": "type", "selector": "#typed-during", "at": during.UnixMilli()})
	f.report(binding, map[string]any{"t": "click", "selector": "#after"})
	f.r.begin("other-session")() // another session's call says nothing about this tab
	f.report(binding, map[string]any{"t": "click", "selector": "#other"})
	var got []string
	for _, a := range f.actions() {
		got = append(got, a.Selector+" "+a.Source)
	}
	assert.Equal(t, []string{"#during-running agent", "#typed-during agent", "#after user", "#other user"}, got)
}

// TestRecordingNavigations: while recording, a navigation the browser
// started becomes navigate, refresh, back or forward; one the page
// announced (a link, a form) and the agent's are left out.
func TestRecordingNavigations(t *testing.T) {
	f := newFixture(t)
	f.r.recs[sid] = &recording{name: "r"}
	idx := func(i int) *int { return &i }
	f.report(binding, map[string]any{"t": "ready", "index": idx(0), "url": "http://a/1"})
	f.report(binding, map[string]any{"t": "nav", "nav": "navigate", "index": idx(1), "url": "http://a/2"}) // address bar
	f.report(binding, map[string]any{"t": "click", "selector": "#link"})
	f.report(binding, map[string]any{"t": "navigating", "nav": "push"})
	f.report(binding, map[string]any{"t": "nav", "nav": "navigate", "index": idx(2), "url": "http://a/3"}) // the link's
	f.report(binding, map[string]any{"t": "nav", "nav": "back_forward", "index": idx(1), "url": "http://a/2"})
	f.report(binding, map[string]any{"t": "nav", "nav": "back_forward", "index": idx(2), "url": "http://a/3"})
	f.report(binding, map[string]any{"t": "nav", "nav": "reload", "index": idx(2), "url": "http://a/3"})
	f.report(binding, map[string]any{"t": "navigating", "nav": "push"}) // cancelled: the page stays
	f.report(binding, map[string]any{"t": "key_press", "keys": "Escape"})
	f.report(binding, map[string]any{"t": "nav", "nav": "navigate", "index": idx(3), "url": "http://a/4"})
	end := f.r.begin(sid)
	f.report(binding, map[string]any{"t": "nav", "nav": "navigate", "index": idx(4), "url": "http://a/5"}) // the agent's
	end()
	acts, _, _ := f.exp.Snapshot(sid)
	var got []string
	for _, a := range acts {
		got = append(got, strings.TrimSpace(a.Mode+" "+a.URL+a.Selector+a.Keys))
	}
	assert.Equal(t, []string{"navigate http://a/2", "click #link", "back", "forward", "refresh", "key_press Escape", "navigate http://a/4"}, got)
	assert.Equal(t, 7, f.r.recs[sid].actions)
}

func TestExportAction(t *testing.T) {
	yes := true
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   capture.Action
		want export.Action
	}{
		{capture.Action{Type: "type", Selector: "#n", Target: `textbox "N"`, Value: "Ada", Time: at, URL: "http://p"},
			export.Action{Mode: "type", Selector: "#n", Target: `textbox "N"`, Text: "Ada", Clear: true, At: at, PageURL: "http://p"}},
		{capture.Action{Type: "check", Selector: "#c", Checked: &yes, Time: at},
			export.Action{Mode: "check", Selector: "#c", Checked: &yes, At: at}},
		{capture.Action{Type: "select", Selector: "#s", Value: "high", Time: at},
			export.Action{Mode: "select", Selector: "#s", Value: "high", At: at}},
		{capture.Action{Type: "click", Selector: "#b", Target: `button "B"`, Frame: "http://f/", Time: at},
			export.Action{Mode: "click", Target: `button "B" in frame http://f/`, At: at}},
	} {
		tc.want.TabID, tc.want.OK, tc.want.Source = tab, true, "user"
		assert.Equal(t, tc.want, exportAction(tab, tc.in))
	}
}

func TestParseReportBounds(t *testing.T) {
	_, err := parseReport(strings.Repeat("x", maxReport+1))
	assert.ErrorIs(t, err, errReport)
	rep, err := parseReport(`{"t":"click","clicks":-4}`)
	require.NoError(t, err)
	assert.Zero(t, rep.Clicks)
	assert.True(t, rep.at().IsZero())
	assert.Equal(t, -1, rep.index())
}
