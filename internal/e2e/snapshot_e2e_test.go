package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

// snapFixture is one chain with a Snapshotter wired the way the daemon
// wires it: over the daemon's targets, which track each tab's child
// sessions (out-of-process iframes) and keep its refs in step with its
// navigations, for tabs no session holds too.
type snapFixture struct {
	c    *Chain
	snap *snapshot.Snapshotter
}

func newSnapFixture(t testing.TB) *snapFixture {
	f := &snapFixture{}
	f.c = StartChain(t, hostBin)
	f.snap = snapshot.New(snapshot.Config{Target: f.c.Server.Target})
	return f
}

func (f *snapFixture) session(tab int, sessionID string) cdproto.Session {
	t := f.c.Server.Target(tab)
	if sessionID != "" {
		return t.Child(sessionID)
	}
	return t.Session()
}

// open opens a tab on about:blank (its target follows its child sessions
// and main-frame navigations from now on), then navigates it to url and
// waits for the load event.
func (f *snapFixture) open(t testing.TB, ctx context.Context, url string) *cdp.Session {
	t.Helper()
	raw, err := f.c.Link.Call(ctx, "tabs.create", map[string]any{"url": "about:blank"})
	require.NoError(t, err)
	var res struct {
		Tab tab `json:"tab"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	s := f.c.Server.CDP(res.Tab.ID)
	_, err = cdproto.Call(ctx, s, page.Enable, page.EnableParams{})
	require.NoError(t, err)
	navigate(t, ctx, s, url)
	return s
}

// navigate loads url in the tab and waits for its load event.
func navigate(t testing.TB, ctx context.Context, s *cdp.Session, url string) {
	t.Helper()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loaded := cdproto.Events(lctx, s, page.LoadEventFired)
	nav, err := cdproto.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url})
	require.NoError(t, err)
	require.Empty(t, nav.ErrorText)
	for _, err := range loaded {
		require.NoError(t, err)
		break
	}
}

var refRE = regexp.MustCompile(`\[(e\d+)\]`)

// refOf finds the line that starts (after its indentation) with prefix and
// returns its ref.
func refOf(t testing.TB, text, prefix string) string {
	t.Helper()
	for l := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), prefix) {
			m := refRE.FindStringSubmatch(l)
			require.NotNil(t, m, "line %q has no ref", l)
			return m[1]
		}
	}
	t.Fatalf("no line starts with %q in:\n%s", prefix, text)
	return ""
}

// describe returns the DOM node of a backend node id in a session.
func describe(t testing.TB, ctx context.Context, s cdproto.Session, id cdproto.BackendNodeID) *cdproto.Node {
	t.Helper()
	d, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: id})
	require.NoError(t, err)
	return d.Node
}

func attrOf(n *cdproto.Node, name string) string {
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		if n.Attributes[i] == name {
			return n.Attributes[i+1]
		}
	}
	return ""
}

var controlRoles = []string{"button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "tab", "slider", "spinbutton", "switch", "menuitem"}

func TestE2ESnapshotForm(t *testing.T) {
	f := newSnapFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.open(t, ctx, f.c.PageURL("pages/form.html"))
	tabID := s.TabID()
	r, err := f.snap.Take(ctx, tabID, snapshot.Options{})
	require.NoError(t, err)
	t.Logf("form snapshot (%d bytes):\n%s", len(r.Text), r.Text)

	for _, want := range []string{
		`heading "Create account" [level=1] [`,
		`form "Sign up" [`,
		`textbox "Full name" [required] [`, `]: Ada Lovelace`,
		`textbox "Email" [`,
		`textbox "Password" [`, `]: ••••`,
		`combobox "Plan" [`, `option "Pro" [selected]`,
		`checkbox "I accept the terms" [`,
		`group "Contact by"`,
		`radio "Email" [checked] [`,
		`radio "Phone" [`,
		`textbox "Tell us about you" [`,
		`button "Avatar" [`,
		`searchbox "Search the docs" [`,
		`button "Disabled action" [disabled] [`,
		`button "More options" [collapsed] [`,
		`button "Create account" [`,
		"text: Layout cell second line\n", // a presentational table adds no rows or cells
	} {
		assert.Contains(t, r.Text, want)
	}
	for _, hidden := range []string{"Hidden by", "Hidden from", "Hidden attribute", "Inert", "csrf", "token", "secret-value", "legend"} {
		assert.NotContains(t, r.Text, hidden)
	}
	assert.NotRegexp(t, `(?m)^ *(img|row|cell)\b`, r.Text, "no image, row or cell lines")
	for l := range strings.SplitSeq(r.Text, "\n") {
		role, _, _ := strings.Cut(strings.TrimLeft(l, " -"), " ")
		for _, c := range controlRoles {
			if role == c {
				assert.Regexp(t, refRE, l, "control without a ref")
			}
		}
	}

	t.Run("checking a checkbox shows in the next snapshot", func(t *testing.T) {
		before := refOf(t, r.Text, `checkbox "I accept the terms"`)
		_, err := evaluate(ctx, s, `document.getElementById('terms').click(); document.getElementById('name').focus()`)
		require.NoError(t, err)
		r2, err := f.snap.Take(ctx, tabID, snapshot.Options{})
		require.NoError(t, err)
		assert.Contains(t, r2.Text, `checkbox "I accept the terms" [checked] [`+before+`]`)
		assert.Contains(t, r2.Text, `textbox "Full name" [required] [focused] [`)
		assert.Equal(t, r.Generation+1, r2.Generation)
		r = r2
	})

	t.Run("a ref resolves to its element", func(t *testing.T) {
		for prefix, id := range map[string]string{`button "Remove me"`: "remove-me", `checkbox "I accept the terms"`: "terms", `textbox "Full name"`: "name"} {
			target, err := f.snap.Resolve(ctx, tabID, refOf(t, r.Text, prefix))
			require.NoError(t, err)
			assert.Equal(t, prefix, target.Desc)
			n := describe(t, ctx, s, target.BackendNodeID)
			assert.Equal(t, id, attrOf(n, "id"), "ref of %s resolved to <%s>", prefix, n.LocalName)
		}
	})

	t.Run("a removed element's ref fails naming it", func(t *testing.T) {
		ref := refOf(t, r.Text, `button "Remove me"`)
		_, err := evaluate(ctx, s, `document.getElementById('remove-me').remove()`)
		require.NoError(t, err)
		_, err = f.snap.Resolve(ctx, tabID, ref)
		var stale *snapshot.StaleRefError
		require.ErrorAs(t, err, &stale)
		assert.Contains(t, err.Error(), `ref `+ref+` (button "Remove me") is stale: the element was removed`)
		assert.Contains(t, err.Error(), "take a new snapshot")

		r2, err := f.snap.Take(ctx, tabID, snapshot.Options{})
		require.NoError(t, err)
		assert.NotContains(t, r2.Text, "Remove me")
		_, err = f.snap.Resolve(ctx, tabID, ref)
		assert.ErrorContains(t, err, `(button "Remove me") is stale: the page changed since snapshot`)
		r = r2
	})

	t.Run("navigation clears refs", func(t *testing.T) {
		ref := refOf(t, r.Text, `checkbox "I accept the terms"`)
		navigate(t, ctx, s, f.c.PageURL("pages/title.html"))
		_, err := f.snap.Resolve(ctx, tabID, ref)
		var stale *snapshot.StaleRefError
		require.True(t, errors.As(err, &stale), "got %v", err)
		assert.Contains(t, err.Error(), `(checkbox "I accept the terms") is stale: the tab navigated after snapshot`)
		r2, err := f.snap.Take(ctx, tabID, snapshot.Options{})
		require.NoError(t, err)
		assert.Contains(t, r2.Text, `heading "Title page" [level=1] [`)
		assert.NotContains(t, r2.Text, "["+ref+"]", "refs are never reused")
	})

	t.Run("a replaced page fails loudly", func(t *testing.T) {
		f.c.Server.Tabs().Targets().Close(tabID) // start over with a new target
		r2, err := f.snap.Take(ctx, tabID, snapshot.Options{})
		require.NoError(t, err)
		ref := refOf(t, r2.Text, `heading "Title page"`)
		_, err = evaluate(ctx, s, `location.reload()`)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			_, err := f.snap.Resolve(ctx, tabID, ref)
			return err != nil && strings.Contains(err.Error(), `(heading "Title page") is stale`)
		}, 10*time.Second, 50*time.Millisecond)
	})
}
