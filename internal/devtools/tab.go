package devtools

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/emulate"
	"github.com/gasoline-mcp/gasoline/internal/route"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// tabState is everything this package keeps for one tab of a session:
// the emulation in force, the routes, and the subscription that hands
// the tab's paused requests and downloads to the manager. Close ends it.
type tabState struct {
	tab    int
	ctx    context.Context // ends with Close: delays, downloads in flight
	cancel context.CancelFunc
	routes route.Table
	// change serializes the calls that change what is in force (emulate,
	// route, unroute), so two of them never send their CDP commands
	// interleaved or out of order.
	change sync.Mutex
	// tracing is held while a trace records: one at a time (a second
	// Tracing.end would end the first one's recording).
	tracing sync.Mutex

	mu       sync.Mutex
	captured map[string]time.Time // URLs of downloads saved from the Fetch stage, lately
	emu      emulate.Settings
	applied  bool   // overrides were sent in this debugger session
	unsub    func() // the current subscriptions
}

func newTabState(tg *target.Target) *tabState {
	ctx, cancel := context.WithCancel(tg.Context())
	return &tabState{tab: tg.ID(), ctx: ctx, cancel: cancel}
}

// Close ends the tab's state: its subscriptions, delays and downloads in
// flight. Idempotent.
func (t *tabState) Close() {
	t.cancel()
	t.mu.Lock()
	unsub := t.unsub
	t.unsub = nil
	t.mu.Unlock()
	if unsub != nil {
		unsub()
	}
}

// capturedLately is how long a download captured at the Fetch stage may
// still be announced by Chrome: an <a download> link's request, aborted
// once its body is read, still makes Chrome start (and the extension
// cancel) a download of it.
const capturedLately = 30 * time.Second

// markCaptured notes a download saved from the Fetch stage.
func (t *tabState) markCaptured(url string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.captured == nil {
		t.captured = map[string]time.Time{}
	}
	for u, at := range t.captured {
		if now.Sub(at) > capturedLately {
			delete(t.captured, u)
		}
	}
	t.captured[url] = now
}

// wasCaptured reports a download Chrome announces that Gasoline already
// captured (and forgets it).
func (t *tabState) wasCaptured(url string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.captured[url]
	delete(t.captured, url)
	return ok && now.Sub(at) <= capturedLately
}

func (t *tabState) emulation() emulate.Settings {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.emu
}

// patterns are the Fetch patterns of the tab: every document's response
// (a download is told from a page load there), and each route's requests.
func (t *tabState) patterns() []*fetch.RequestPattern {
	ps := []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageResponse}}
	for _, r := range t.routes.List() {
		p := &fetch.RequestPattern{URLPattern: r.Pattern, RequestStage: fetch.RequestStageRequest}
		if r.Type != "" {
			p.ResourceType = network.ResourceType(r.Type)
		}
		ps = append(ps, p)
	}
	return ps
}

// Enable is the tab manager's hook, after capture is enabled in a tab
// that was (re)attached: it subscribes to the tab's paused requests and
// download starts, turns on the Fetch interception (dropping any a
// previous daemon left, with the requests it held), and puts the tab's
// emulation back in force.
func (m *Manager) Enable(ctx context.Context, tg *target.Target) error {
	if err := m.enable(ctx, tg); err != nil { // capture works all the same
		m.log.Warn("request interception or emulation not restored in this tab", "tab", tg.ID(), "err", err)
	}
	return nil
}

func (m *Manager) enable(ctx context.Context, tg *target.Target) error {
	s := tg.Session()
	t := tabPart.Of(tg)
	t.change.Lock() // after a route or an emulation change, never between its state and its commands
	defer t.change.Unlock()
	m.subscribe(t, s)
	steps := []cdp.Step{
		{Method: fetch.Disable.Method, Always: true},
		cdp.NewStep(fetch.Enable, fetch.EnableParams{Patterns: t.patterns()}),
	}
	t.mu.Lock()
	emu, again := t.emu, t.applied
	t.mu.Unlock()
	if again || !emu.Empty() {
		steps = append(steps, emu.Steps()...)
	}
	res, err := s.Sequence(ctx, steps...)
	if err != nil {
		return err
	}
	if err := res[1].Err; err != nil {
		return fmt.Errorf("devtools: turning on request interception in tab %d: %w", s.TabID(), err)
	}
	return errors.Join(stepErrors(res[2:])...)
}

// subscribe (re)starts the goroutine that hands the tab's paused requests
// and download starts to the manager. It ends when the tab's events end
// (the router closes them on a detach) or the state closes.
func (m *Manager) subscribe(t *tabState, s *cdp.Session) {
	paused, stopPaused := s.Subscribe(fetch.RequestPaused.Method)
	began, stopBegan := s.Subscribe(downloadWillBegin)
	var once sync.Once
	stop := func() { once.Do(func() { stopPaused(); stopBegan() }) }
	t.mu.Lock()
	old := t.unsub
	t.unsub = stop
	t.mu.Unlock()
	if old != nil {
		old()
	}
	if t.ctx.Err() != nil {
		stop()
		return
	}
	m.g.Go(func(ctx context.Context) {
		defer stop()
		for {
			select {
			case v, ok := <-paused:
				if !ok {
					return
				}
				var ev fetch.EventRequestPaused
				if jsonv2.Unmarshal(v, &ev) == nil {
					m.g.Go(func(context.Context) { m.paused(t, s, &ev) })
				}
			case v, ok := <-began:
				if !ok {
					return
				}
				var ev downloadStart
				if jsonv2.Unmarshal(v, &ev) == nil {
					m.g.Go(func(context.Context) { m.downloadBegan(t, s, &ev) })
				}
			case <-t.ctx.Done():
				return
			case <-ctx.Done():
				return
			}
		}
	})
}

// refreshPatterns sends the tab's Fetch patterns after its routes
// changed.
func (m *Manager) refreshPatterns(ctx context.Context, t *tabState, s *cdp.Session) error {
	_, err := cdproto.Call(ctx, s, fetch.Enable, fetch.EnableParams{Patterns: t.patterns()})
	return err
}

// stepErrors are the failures of a sequence's steps, by method.
func stepErrors(res []cdp.StepResult) []error {
	var errs []error
	for _, r := range res {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errs
}
