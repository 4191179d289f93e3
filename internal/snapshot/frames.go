package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// maxFrameNesting bounds how deep cross-origin frames are followed.
const maxFrameNesting = 4

// frameJS returns the iframe a CSS selector matches, or null.
const frameJS = `function (sel) {
  const el = document.querySelector(sel);
  return el && (el.localName === 'iframe' || el.localName === 'frame') ? el : null;
}`

// walkRun is one snapshot across the frames of a tab.
type walkRun struct {
	s        *Snapshotter
	tab      int
	t        *tabRefs
	gen, nav int
	next     int
	issued   []*entry
	pageMS   float64
	hidden   int
	why      map[string]int // hidden by reason
	mask     []string       // sensitive selectors (internal/sensitive)
	// notRendered: the main frame had drawn nothing when the wait for its
	// first content ended (walkArgs.Render).
	notRendered bool
}

// walk runs the walker in world w and splices in the frames it could not
// enter (out-of-process or cross-origin iframes).
func (r *walkRun) walk(ctx context.Context, w world, args walkArgs, nesting int) ([]*Node, error) {
	res, w, err := r.run(ctx, w, args)
	if errors.Is(err, errContextGone) { // the document was replaced since
		delete(r.t.worlds, w)
		res, w, err = r.run(ctx, w, args)
	}
	if err != nil {
		return nil, err
	}
	r.next = res.Next
	r.pageMS += res.MS
	r.notRendered = r.notRendered || res.NotRendered
	r.hidden += res.Hidden
	for k, v := range res.Why {
		if r.why == nil {
			r.why = map[string]int{}
		}
		r.why[k] += v
	}
	nodes, err := parseRecords(res.Records)
	if err != nil {
		return nil, err
	}
	var remotes []*Node
	walk(nodes, func(n *Node) {
		if n.Ref > 0 {
			r.issued = append(r.issued, &entry{n: n.Ref, desc: n.desc(), gen: r.gen, nav: r.nav, world: w})
		}
		if n.remote {
			remotes = append(remotes, n)
		}
	})
	for _, n := range remotes {
		kids, err := r.frame(ctx, w, n, args.Reset, nesting)
		if err != nil {
			kids = []*Node{{Role: "text", Text: "(frame content unavailable: " + shortErr(err) + ")"}}
		}
		n.Kids = append(n.Kids, kids...)
	}
	return nodes, nil
}

func (r *walkRun) run(ctx context.Context, w world, args walkArgs) (walkResult, world, error) {
	ec, w, err := r.s.worldContext(ctx, r.tab, r.t, w)
	if err != nil {
		return walkResult{}, w, err
	}
	args.Next = r.next
	res, err := runWalker(ctx, r.s.session(r.tab, w.session), ec, args)
	return res, w, err
}

// frame walks the document of iframe node n (found in world w).
func (r *walkRun) frame(ctx context.Context, w world, n *Node, reset bool, nesting int) ([]*Node, error) {
	if nesting >= maxFrameNesting {
		return nil, errors.New("frames nested too deep")
	}
	if n.Ref == 0 {
		return nil, errors.New("iframe has no ref")
	}
	fw, err := r.s.frameWorld(ctx, r.tab, r.t, w, resolveJS, n.Ref)
	if err != nil {
		return nil, err
	}
	return r.walk(ctx, fw, walkArgs{Reset: reset, MaxName: r.s.cfg.MaxName, MaxText: r.s.cfg.MaxText, Mask: r.mask}, nesting+1)
}

// frameWorld finds the iframe element fn(arg) returns in world w and
// returns the world of its document: the OOPIF's child session when it has
// one, else the frame in w's own session.
func (s *Snapshotter) frameWorld(ctx context.Context, tab int, t *tabRefs, w world, fn string, arg any) (world, error) {
	ec, w, err := s.worldContext(ctx, tab, t, w)
	if err != nil {
		return world{}, err
	}
	node, err := nodeOf(ctx, s.session(tab, w.session), ec, fn, arg)
	t.grouped[w.session] = true
	if err != nil {
		return world{}, err
	}
	if node == nil || node.FrameID == "" {
		return world{}, argErr("no iframe there")
	}
	fw := world{session: w.session, frame: node.FrameID}
	if sid, ok := s.cfg.Target(tab).ChildOf(string(node.FrameID)); ok {
		fw.session = sid
	}
	return fw, nil
}

// frameOption resolves Options.Frame (a ref or a CSS selector of an
// iframe in the main frame) to the iframe's world.
func (s *Snapshotter) frameOption(ctx context.Context, tab int, t *tabRefs, nav int, spec string) (world, error) {
	if IsRef(spec) {
		e, err := t.lookup(spec, nav)
		if err != nil {
			return world{}, err
		}
		fw, err := s.frameWorld(ctx, tab, t, e.world, resolveJS, e.n)
		if ae := (*ArgError)(nil); errors.As(err, &ae) {
			return world{}, argErr(fmt.Sprintf("frame %s (%s): %s", spec, e.desc, ae.Msg))
		}
		if err != nil {
			return world{}, fmt.Errorf("snapshot: frame %s (%s): %w", spec, e.desc, err)
		}
		return fw, nil
	}
	fw, err := s.frameWorld(ctx, tab, t, world{frame: t.main}, frameJS, spec)
	if ae := (*ArgError)(nil); errors.As(err, &ae) {
		return world{}, argErr(fmt.Sprintf("frame %q: %s", spec, ae.Msg))
	}
	if err != nil {
		return world{}, fmt.Errorf("snapshot: frame %q: %w", spec, err)
	}
	return fw, nil
}

func shortErr(err error) string {
	s := strings.TrimPrefix(err.Error(), "snapshot: ")
	return clip(s, 80)
}
