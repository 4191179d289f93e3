package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// keepGenerations is how many snapshot generations a ref is remembered
// after it was last issued, so that a stale ref still names its element.
const keepGenerations = 20

// StaleRefError is a ref that no longer addresses its element: it is from
// an older snapshot, the tab navigated, or the element left the page. The
// message names the element and tells the agent to take a new snapshot.
type StaleRefError struct {
	Ref    string // e12
	Desc   string // button "Save"; empty when the ref was never issued
	Gen    int    // the snapshot that issued it
	Reason string
}

func (e *StaleRefError) Error() string {
	if e.Desc == "" {
		return fmt.Sprintf("ref %s is unknown: %s; take a new snapshot", e.Ref, e.Reason)
	}
	return fmt.Sprintf("ref %s (%s) is stale: %s; take a new snapshot", e.Ref, e.Desc, e.Reason)
}

// Target is what a ref resolves to.
type Target struct {
	BackendNodeID cdproto.BackendNodeID
	Desc          string // button "Save"
	// SessionID is the CDP child session that owns the node (an
	// out-of-process iframe); empty for the tab's own session.
	SessionID string
	FrameID   cdproto.FrameID // the node's frame; empty for the main frame
}

// entry is one issued ref.
type entry struct {
	n     int
	desc  string
	gen   int // the latest snapshot that issued it
	nav   int // the tab's navigation count when it was issued
	world world
}

// tabRefs is one tab's ref table, its snapshot generation and its isolated
// worlds. mu serializes snapshots and resolutions of the tab (they share
// the worlds and the ref counter); navigation is counted apart, under the
// Snapshotter's lock, so that Invalidate never waits for a snapshot.
type tabRefs struct {
	mu       sync.Mutex
	gen      int // the latest full snapshot
	next     int // the next ref number
	refs     map[int]*entry
	worlds   map[world]runtime.ExecutionContextID
	main     cdproto.FrameID // the tab's main frame
	worldNav int             // navigation count the worlds belong to
	grouped  map[string]bool // sessions holding objects in objectGroup
}

func newTabRefs() *tabRefs {
	return &tabRefs{next: 1, refs: map[int]*entry{}, worlds: map[world]runtime.ExecutionContextID{}, grouped: map[string]bool{}}
}

// sync drops the isolated worlds of a document the tab navigated away from.
func (t *tabRefs) sync(nav int) {
	if t.worldNav != nav {
		clear(t.worlds)
		t.main = ""
		t.worldNav = nav
	}
}

// commit records the refs a snapshot issued and forgets refs issued too
// many generations ago.
func (t *tabRefs) commit(issued []*entry, gen, next int) {
	t.gen = gen
	t.next = max(t.next, next)
	for _, e := range issued {
		t.refs[e.n] = e
		// A walk that was not committed (the tab navigated meanwhile)
		// numbered elements in the page's world, which the same document
		// keeps: the counter must pass every number shown.
		t.next = max(t.next, e.n+1)
	}
	for n, e := range t.refs {
		if e.gen < gen-keepGenerations {
			delete(t.refs, n)
		}
	}
}

// lookup checks a ref against the table: it must have been issued by the
// latest snapshot of the current document.
func (t *tabRefs) lookup(ref string, nav int) (*entry, error) {
	n, ok := parseRef(ref)
	if !ok {
		return nil, argErr(fmt.Sprintf("%q is not a ref (refs look like e12)", ref))
	}
	e := t.refs[n]
	switch {
	case e == nil && n > 0 && n < t.next:
		return nil, &StaleRefError{Ref: ref, Reason: fmt.Sprintf("it is from a snapshot older than %d generations", keepGenerations)}
	case e == nil:
		return nil, &StaleRefError{Ref: ref, Reason: "no snapshot of this tab issued it"}
	case e.nav != nav:
		return nil, &StaleRefError{Ref: ref, Desc: e.desc, Gen: e.gen, Reason: fmt.Sprintf("the tab navigated after snapshot %d", e.gen)}
	case e.gen != t.gen:
		return nil, &StaleRefError{Ref: ref, Desc: e.desc, Gen: e.gen, Reason: fmt.Sprintf("the page changed since snapshot %d", e.gen)}
	}
	return e, nil
}

// gone is the error for a ref whose element left the page.
func (e *entry) gone(reason string) error {
	return &StaleRefError{Ref: "e" + strconv.Itoa(e.n), Desc: e.desc, Gen: e.gen, Reason: fmt.Sprintf(reason, e.gen)}
}

// parseRef reads "e12" (or "[e12]", "ref=e12", "[ref=e12]").
func parseRef(ref string) (int, bool) {
	ref = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(ref), "["), "]")
	ref = strings.TrimPrefix(ref, "ref=")
	if len(ref) < 2 || ref[0] != 'e' {
		return 0, false
	}
	n, err := strconv.Atoi(ref[1:])
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// IsRef reports whether s is written as a ref (e12) rather than a selector.
func IsRef(s string) bool {
	_, ok := parseRef(s)
	return ok
}
