// Package snapshot takes the accessibility snapshot agents read and act
// on: one node a line (`role "name" [state] [eN]`), indented one space per
// depth, with refs on every interactive and named node.
//
// The text stays lean: generic wrappers (divs, spans, unnamed sections)
// are flattened; a control's value follows a colon (`textbox "Email"
// [e3]: ada@example.com`, sensitive fields as ••••, internal/sensitive); a text-only node reads
// `paragraph: …`; states are [checked], [checked=mixed], [disabled],
// [expanded], [collapsed], [selected], [pressed], [required], [readonly],
// [current], [focused] and [level=N]; a name taken from the children
// prints only on a node without printed children; a list item or
// paragraph around one node prints as that node; a table row of simple
// cells prints on one line (`row: #1 | link "Ada" [e9] | $12`); closed
// <details> show only their summary; native <select> options list under
// their combobox without refs (select by value).
//
// Find (find.go) answers only the lines matching a query, under their
// parents' lines; Diff (diff.go) answers what changed since the session's
// previous snapshot of the tab. Both walk the whole tab as a full snapshot
// does, so the refs they show are current.
//
// A walker (walker.js) runs once per frame with Runtime.callFunctionOn in
// Gasoline's isolated world, where the page's own scripts cannot see or
// change it. It computes roles, names and states, flattens generic
// wrappers, and walks open shadow roots and same-origin iframes inline;
// out-of-process and cross-origin iframes are walked in their own frame
// (a child CDP session for an OOPIF) and spliced under their iframe node.
//
// Refs number elements per tab and keep their number across snapshots.
// Each full snapshot is a new generation: a ref resolves only if the latest
// snapshot issued it, the tab has not navigated since, and the element is
// still in the page; otherwise Resolve returns a *StaleRefError naming the
// element it was.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Options shape one snapshot. The zero value is a complete snapshot of the
// tab's main frame.
type Options struct {
	InteractiveOnly bool   // only controls, with the headings and landmarks around them
	Depth           int    // levels shown; 0 = all
	Limit           int    // nodes shown; 0 = all. A cut snapshot says so and how to get the rest
	Root            string // a ref (e12) or CSS selector: snapshot only that subtree
	Frame           string // a ref or CSS selector of an iframe: snapshot that frame
	// Find answers only the lines matching a query and their parents'
	// lines (find.go); Limit caps the matches.
	Find string
	// Diff answers only what changed since Session's previous full
	// snapshot of the tab (diff.go); a whole-tab snapshot only.
	Diff bool
	// Session is whose snapshot this is: a full snapshot taken with a
	// Session is kept for its next Diff.
	Session string
}

// check refuses options that do not go together.
func (o Options) check() error {
	bad := argErr
	switch {
	case o.Depth < 0 || o.Limit < 0:
		return bad("depth and limit must not be negative")
	case o.Find != "" && o.Diff:
		return bad("find and diff do not go together; ask for one")
	case o.Diff && (o.Root != "" || o.Frame != ""):
		return bad("diff compares whole-tab snapshots; drop ref, selector and frame")
	case o.Diff && (o.InteractiveOnly || o.Depth > 0):
		return bad("diff compares full snapshots; drop interactive_only and depth")
	case o.Diff && o.Session == "":
		return bad("diff needs the session whose previous snapshot it compares with")
	case o.Find != "" && o.Depth > 0:
		return bad("find shows each match with all its parents; drop depth")
	}
	return nil
}

// Result is one snapshot.
type Result struct {
	Text       string  // the snapshot, one node a line
	Generation int     // the tab's snapshot generation after this snapshot
	Nodes      int     // lines the whole snapshot has (before Depth and Limit)
	Shown      int     // lines shown
	Refs       int     // refs issued
	Tree       []*Node // the nodes, for structured output
	PageMS     float64 // time the walkers spent in the page
	// Hidden counts the text runs and names left out because no person
	// sees them (internal/visible): the answer's hidden_dropped.
	Hidden int
	// HiddenWhy is Hidden by reason (covered, colour, clipped …): the
	// answer's hidden_reasons.
	HiddenWhy map[string]int
	// Note says what Text holds when it is not the whole snapshot: the
	// find query and its matches, or what a diff compares.
	Note string
	// NotRendered: the page's body had drawn nothing yet when the wait for
	// its first content (RenderWait) ended.
	NotRendered bool
	Matches     int        // Find: lines matching
	Diff        *DiffStats // Diff: what changed; nil when Text is the full snapshot
}

// Config wires a Snapshotter. Target is required.
type Config struct {
	// Target returns a tab's target (the tab manager's): its CDP session,
	// its out-of-process iframes' child sessions, and the tab's ref table,
	// which the target holds (a Part) and drops when it closes.
	Target func(tab int) *target.Target
	// MaxText caps a text run (default 200 characters); MaxName caps a
	// name or value (default 100).
	MaxText, MaxName int
	// Secrets adds the redaction policy's mask selectors to the built-in
	// sensitive ones (internal/sensitive): their values and text read ••••.
	Secrets sensitive.Func
}

// Snapshotter takes snapshots. Each tab's ref table lives in its target.
type Snapshotter struct {
	cfg Config
}

// New returns a Snapshotter. It panics without cfg.Target.
func New(cfg Config) *Snapshotter {
	if cfg.Target == nil {
		panic("snapshot: Config.Target is required")
	}
	if cfg.MaxText <= 0 {
		cfg.MaxText = 200
	}
	if cfg.MaxName <= 0 {
		cfg.MaxName = 100
	}
	return &Snapshotter{cfg: cfg}
}

// refsPart is each target's ref table.
var refsPart = target.NewPart("snapshot refs", func(*target.Target) *tabRefs { return newTabRefs() })

func (s *Snapshotter) tab(id int) (*tabRefs, int) {
	t := refsPart.Of(s.cfg.Target(id))
	return t, int(t.navs.Load())
}

func (s *Snapshotter) nav(id int) int { return int(refsPart.Of(s.cfg.Target(id)).navs.Load()) }

// session is the CDP session of the tab, or of one of its child sessions.
func (s *Snapshotter) session(tab int, sid string) cdproto.Session {
	t := s.cfg.Target(tab)
	if sid != "" {
		return t.Child(sid)
	}
	return t.Session()
}

// Invalidate clears a tab's refs: its main frame navigated. Refs issued
// before stay known, so that using one names its element. It never waits
// for a snapshot in progress.
func Invalidate(t *target.Target) { refsPart.Of(t).navs.Add(1) }

// ForgetSession drops a session's previous snapshots from every target
// (the session ended).
func ForgetSession(targets *target.Set, session string) {
	refsPart.Each(targets, func(t *tabRefs) {
		t.mu.Lock()
		delete(t.prev, session)
		t.mu.Unlock()
	})
}

// Generation is a tab's snapshot generation (0 before its first snapshot).
// Actions report whether it moved.
func (s *Snapshotter) Generation(tab int) int {
	t, _ := s.tab(tab)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

// Take snapshots a tab. A full snapshot (no Root, no Frame) starts a new
// generation: refs it does not issue go stale. A subtree or frame snapshot
// issues its refs into the current generation and leaves the others valid.
func (s *Snapshotter) Take(ctx context.Context, tab int, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var q query
	if o.Find != "" {
		var err error
		if q, err = parseFind(o.Find); err != nil {
			return nil, argErr("find: " + err.Error())
		}
	}
	t, nav := s.tab(tab)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sync(nav)
	full := o.Root == "" && o.Frame == ""
	w := world{frame: t.main}
	mask, err := sensitive.Of(s.cfg.Secrets)
	if err != nil {
		return nil, err
	}
	args := walkArgs{Next: t.next, Reset: full, MaxName: s.cfg.MaxName, MaxText: s.cfg.MaxText, Mask: mask}
	if o.Frame != "" {
		if w, err = s.frameOption(ctx, tab, t, nav, o.Frame); err != nil {
			return nil, err
		}
	}
	var root *entry
	if o.Root != "" {
		if !IsRef(o.Root) {
			args.Root = o.Root
		} else if root, err = t.lookup(o.Root, nav); err != nil {
			return nil, err
		} else {
			w, args.RootRef = root.world, root.n
		}
	}
	gen := t.gen
	if full {
		gen++
		s.release(ctx, tab, t)
	}
	run := &walkRun{s: s, tab: tab, t: t, gen: gen, nav: nav, next: t.next, mask: mask}
	if full {
		args.Render = RenderWait.Milliseconds()
	}
	nodes, err := run.walk(ctx, w, args, 0)
	if root != nil && errors.Is(err, errRootGone) {
		return nil, root.gone("the element was removed from the page after snapshot %d")
	}
	if err != nil {
		return nil, err
	}
	if s.nav(tab) != nav {
		return nil, ErrNavigated
	}
	t.commit(run.issued, gen, run.next)
	r := &Result{Generation: gen, Refs: len(run.issued), Tree: nodes, PageMS: run.pageMS, Hidden: run.hidden, HiddenWhy: run.why, NotRendered: run.notRendered}
	ls, deeper := lines(nodes, o)
	var prev *kept
	if full && o.Session != "" {
		all := ls
		if o.InteractiveOnly || o.Depth > 0 {
			all, _ = lines(nodes, Options{})
		}
		prev = t.swapPrev(o.Session, &kept{gen: gen, nav: nav, lines: bare(all), used: time.Now()})
	}
	switch {
	case o.Find != "":
		findText(r, ls, q, o.Limit)
	case o.Diff:
		diffText(r, ls, prev, nav)
	default:
		r.Text, r.Shown, r.Nodes = formatLines(ls, deeper, o)
	}
	return r, nil
}

// release frees the remote objects that lookups since the last full
// snapshot left in each session. Failing only costs page memory until the
// document goes, so errors are ignored.
func (s *Snapshotter) release(ctx context.Context, tab int, t *tabRefs) {
	for sid := range t.grouped {
		_, _ = cdproto.Call(ctx, s.session(tab, sid), runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
	}
	clear(t.grouped)
}

// Resolve returns the DOM node a ref of the tab's latest snapshot stands
// for, checking that the element is still in the page. A ref from an older
// snapshot, from before a navigation, or whose element is gone returns a
// *StaleRefError naming the element.
func (s *Snapshotter) Resolve(ctx context.Context, tab int, ref string) (Target, error) {
	t, nav := s.tab(tab)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sync(nav)
	e, err := t.lookup(ref, nav)
	if err != nil {
		return Target{}, err
	}
	sess := s.session(tab, e.world.session)
	ec, ok := t.worlds[e.world]
	if !ok {
		return Target{}, e.gone("the page was replaced after snapshot %d")
	}
	id, err := backendOf(ctx, sess, ec, e.n)
	t.grouped[e.world.session] = true
	switch {
	case errors.Is(err, errContextGone):
		delete(t.worlds, e.world)
		return Target{}, e.gone("the page was replaced after snapshot %d")
	case err != nil:
		return Target{}, fmt.Errorf("snapshot: resolving ref %s on tab %d: %w", ref, tab, err)
	case id == 0:
		return Target{}, e.gone("the element was removed from the page after snapshot %d")
	}
	return Target{BackendNodeID: id, Desc: e.desc, SessionID: e.world.session, FrameID: e.world.frame}, nil
}

// Located is where a ref's element is, found without a round trip: a
// function run in Context (the snapshot's isolated world in the element's
// frame, in SessionID) gets the element with ElementJS(N). A caller acting
// on it in one round trip reports what it found with Gone and Replaced.
type Located struct {
	Target
	Context runtime.ExecutionContextID
	N       int

	s   *Snapshotter
	tab int
	e   *entry
}

// Locate checks a ref as Resolve does (it must be from the tab's latest
// snapshot of the current document) and says where its element is.
func (s *Snapshotter) Locate(tab int, ref string) (*Located, error) {
	t, nav := s.tab(tab)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sync(nav)
	e, err := t.lookup(ref, nav)
	if err != nil {
		return nil, err
	}
	ec, ok := t.worlds[e.world]
	if !ok {
		return nil, e.gone("the page was replaced after snapshot %d")
	}
	return &Located{Target: Target{Desc: e.desc, SessionID: e.world.session, FrameID: e.world.frame},
		Context: ec, N: e.n, s: s, tab: tab, e: e}, nil
}

// Gone is the error for a located element that ElementJS did not find: it
// left the page.
func (l *Located) Gone() error {
	return l.e.gone("the element was removed from the page after snapshot %d")
}

// Replaced is the error for a located element whose world no longer
// exists (its document was replaced); the world is forgotten.
func (l *Located) Replaced() error {
	t, _ := l.s.tab(l.tab)
	t.mu.Lock()
	if t.worlds[l.e.world] == l.Context {
		delete(t.worlds, l.e.world)
	}
	t.mu.Unlock()
	return l.e.gone("the page was replaced after snapshot %d")
}

// worldContext returns (creating if needed) the isolated world's context.
func (s *Snapshotter) worldContext(ctx context.Context, tab int, t *tabRefs, w world) (runtime.ExecutionContextID, world, error) {
	if ec, ok := t.worlds[w]; ok {
		return ec, w, nil
	}
	ec, frame, err := createWorld(ctx, s.session(tab, w.session), w.frame)
	if err != nil {
		return 0, w, err
	}
	if err := installWalker(ctx, s.session(tab, w.session), ec); err != nil {
		return 0, w, err
	}
	if w.frame == "" && w.session == "" {
		t.main = frame
	}
	w.frame = frame
	t.worlds[w] = ec
	return ec, w, nil
}
