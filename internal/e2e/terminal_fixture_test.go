//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/stretchr/testify/require"
)

// The panel's Terminal tab, driven as the user would: a click on the tab,
// trusted keystrokes into xterm.js, the screen read from its DOM renderer.

// screenJS is the terminal's screen text: the DOM renderer's rows, one a
// line (a long line wraps over rows), their no-break spaces as spaces.
const screenJS = `[...(document.querySelector('#terminal .xterm-rows')?.children ?? [])]
  .map((row) => row.textContent.replaceAll('\u00a0', ' ').trimEnd()).join('\n')`

// openTerminal switches the panel to the Terminal tab and waits until its
// view is open on the daemon.
func (p *panel) openTerminal(ctx context.Context) {
	p.t.Helper()
	// Once the link is up the page stops moving (the banner and the
	// status card have their text), so the click lands on the tab.
	p.waitFor(ctx, "the link up", `['ready', 'degraded'].includes(document.body.dataset.state)`)
	// A click that lands while the page lays itself out again is lost
	// now and then (seen under load); the tab switches synchronously, so
	// its state right after the click says whether it took.
	for range 3 {
		p.click(ctx, "#tab-terminal")
		var selected bool
		require.NoError(p.t, p.eval(ctx, `document.getElementById('tab-terminal').getAttribute('aria-selected') === 'true'`, &selected))
		if selected {
			break
		}
	}
	p.waitFor(ctx, "the terminal ready", `document.getElementById('term-status').textContent.startsWith('Press a key to start')`)
}

// typeTerminal focuses the terminal and types text, then Enter.
func (p *panel) typeTerminal(ctx context.Context, text string) {
	p.t.Helper()
	p.click(ctx, "#terminal")
	p.insertText(ctx, text)
	p.pressEnter(ctx)
}

// insertText types text into the focused element (as an input method
// would: one input event).
func (p *panel) insertText(ctx context.Context, text string) {
	p.t.Helper()
	if text == "" {
		return
	}
	_, err := cdproto.Call(ctx, p.s, input.InsertText, input.InsertTextParams{Text: text})
	require.NoError(p.t, err)
}

// key sends one printable key (keydown with its text, then keyup).
func (p *panel) key(ctx context.Context, ch string, code string, vk int64) {
	p.t.Helper()
	for _, ev := range []input.DispatchKeyEventParams{
		{Type: input.DispatchKeyEventTypeKeyDown, Key: ch, Code: code, Text: ch, WindowsVirtualKeyCode: vk},
		{Type: input.DispatchKeyEventTypeKeyUp, Key: ch, Code: code, WindowsVirtualKeyCode: vk},
	} {
		_, err := cdproto.Call(ctx, p.s, input.DispatchKeyEvent, ev)
		require.NoError(p.t, err)
	}
}

// waitScreen waits until the terminal's screen matches pattern (a regular
// expression both Go and JavaScript read the same way; ^ and $ match at
// line ends) and returns the match's groups.
func (p *panel) waitScreen(ctx context.Context, what, pattern string) []string {
	p.t.Helper()
	re := regexp.MustCompile("(?m)" + pattern)
	js, _ := json.Marshal(pattern)
	p.waitFor(ctx, what, `new RegExp(`+string(js)+`, 'm').test(`+screenJS+`)`)
	var screen string
	require.NoError(p.t, p.eval(ctx, screenJS, &screen))
	return re.FindStringSubmatch(screen)
}

// listening lists the listening sockets open in process pid: TCP (v4 and
// v6, "tcp ADDR:PORT" as /proc shows them) and Unix ("unix PATH"). The
// same as `ss -ltnp` and `ss -lxp` filtered on the process.
func listening(t testing.TB, pid int) []string {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	require.NoError(t, err)
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		procLines(t, "/proc/net/"+table, func(f []string) {
			// sl local_address rem_address st … inode: st 0A is LISTEN.
			if len(f) > 9 && f[3] == "0A" && inodes[f[9]] {
				host, port, _ := strings.Cut(f[1], ":")
				p, _ := strconv.ParseInt(port, 16, 32)
				out = append(out, "tcp "+host+":"+strconv.Itoa(int(p)))
			}
		})
	}
	procLines(t, "/proc/net/unix", func(f []string) {
		// Num RefCount Protocol Flags Type St Inode Path: flag 0x10000 is
		// __SO_ACCEPTCON, a listening socket.
		if len(f) > 6 && inodes[f[6]] {
			flags, _ := strconv.ParseUint(f[3], 16, 32)
			if flags&0x10000 != 0 {
				path := ""
				if len(f) > 7 {
					path = f[7]
				}
				out = append(out, "unix "+path)
			}
		}
	})
	slices.Sort(out)
	return out
}

func procLines(t testing.TB, path string, each func([]string)) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return // no IPv6 on this machine
	}
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		each(strings.Fields(sc.Text()))
	}
}
