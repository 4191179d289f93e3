package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// js quotes s as a JavaScript string literal (JSON is valid JS; U+2028 and
// U+2029 are escaped by encoding/json).
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// locator is the Playwright expression for a selector: label= and
// placeholder= become getByLabel / getByPlaceholder; CSS, text=, role=
// and ">> nth=N" chains are Playwright selectors as they are.
func locator(sel string) string {
	base, nth, hasNth := strings.Cut(sel, " >> nth=")
	var loc string
	switch {
	case strings.HasPrefix(base, "label="):
		loc = "page.getByLabel(" + js(unquote(strings.TrimPrefix(base, "label="))) + ")"
	case strings.HasPrefix(base, "placeholder="):
		loc = "page.getByPlaceholder(" + js(unquote(strings.TrimPrefix(base, "placeholder="))) + ")"
	default:
		return "page.locator(" + js(sel) + ")"
	}
	if hasNth {
		loc += ".nth(" + js(nth) + " * 1)"
	}
	return loc
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		var out string
		if json.Unmarshal([]byte(s), &out) == nil {
			return out
		}
	}
	return s
}

// FormOf is how an action replays: the Replay form of its mode's
// definition (tools.Mode.Replay), or NotRecorded for an action of no
// interact mode. A recording's start marker is no mode.
func FormOf(a Action) tools.Replay {
	if m, ok := tools.Lookup("interact", a.Mode); ok && a.Source != "recording" {
		return m.Replay
	}
	return tools.NotRecorded
}

// Replayable reports an action a generated script replays (not only names
// in a comment).
func Replayable(a Action) bool {
	if !a.OK {
		return false
	}
	switch r := FormOf(a); {
	case r == tools.ReplayGoto:
		return a.URL != ""
	case r == tools.ReplayFill:
		return slices.ContainsFunc(a.Fields, func(f Field) bool { return f.Selector != "" })
	case r.OnElement():
		return a.Selector != ""
	case r == tools.ReplayReload, r == tools.ReplayBack, r == tools.ReplayForward, r == tools.ReplayPress:
		return true
	}
	return false
}

// steps writes the replay of the actions as statements on page, indented
// by ind, each in the form its mode's definition says (FormOf); actions
// that cannot be replayed become comments.
func steps(b *strings.Builder, r Replay, ind string) {
	line := func(format string, a ...any) { fmt.Fprintf(b, ind+format+"\n", a...) }
	if r.StartURL != "" && (len(r.Actions) == 0 || !startsAt(r.Actions[0])) {
		line("await page.goto(%s);", js(r.StartURL))
	}
	for i, a := range r.Actions {
		if a.Source == "recording" { // a recording's start: where a replay of it begins
			if i == 0 && a.URL != "" {
				line("await page.goto(%s); // recording %s starts here", js(a.URL), js(a.Target))
			} else {
				line("// recording %s started on %s", js(a.Target), oneLine(a.URL))
			}
			continue
		}
		if !a.OK {
			line("// #%d %s failed when recorded; skipped", a.Seq, a.Mode)
			continue
		}
		form := FormOf(a)
		if form.OnElement() && a.Selector == "" {
			why := "no stable selector"
			if a.Ref != "" {
				why += " (it was given by ref)"
			}
			line("// #%d %s on %s: %s; not replayed", a.Seq, a.Mode, oneLine(a.Target), why)
			continue
		}
		replayStep(line, form, a)
	}
}

// replayStep writes one action in its replay form.
func replayStep(line func(string, ...any), form tools.Replay, a Action) {
	switch form {
	case tools.ReplayGoto:
		if a.URL != "" {
			line("await page.goto(%s);", js(a.URL))
		}
	case tools.ReplayReload:
		line("await page.reload();")
	case tools.ReplayBack:
		line("await page.goBack();")
	case tools.ReplayForward:
		line("await page.goForward();")
	case tools.ReplayClick:
		opts := []string{}
		if a.Button != "" && a.Button != "left" {
			opts = append(opts, "button: "+js(a.Button))
		}
		if a.Clicks > 1 {
			opts = append(opts, fmt.Sprintf("clickCount: %d", a.Clicks))
		}
		arg := ""
		if len(opts) > 0 {
			arg = "{ " + strings.Join(opts, ", ") + " }"
		}
		line("await %s.click(%s);", locator(a.Selector), arg)
	case tools.ReplayType:
		if a.Clear {
			line("await %s.fill(%s);", locator(a.Selector), js(a.Text))
		} else {
			line("await %s.pressSequentially(%s);", locator(a.Selector), js(a.Text))
		}
	case tools.ReplaySelect:
		line("await %s.selectOption(%s);", locator(a.Selector), js(a.Value))
	case tools.ReplayCheck:
		line("await %s.setChecked(%t);", locator(a.Selector), a.Checked == nil || *a.Checked)
	case tools.ReplayHover:
		line("await %s.hover();", locator(a.Selector))
	case tools.ReplayFocus:
		line("await %s.focus();", locator(a.Selector))
	case tools.ReplayScroll:
		line("await %s.scrollIntoViewIfNeeded();", locator(a.Selector))
	case tools.ReplayPress:
		if a.Selector != "" {
			line("await %s.press(%s);", locator(a.Selector), js(a.Keys))
		} else {
			line("await page.keyboard.press(%s);", js(a.Keys))
		}
	case tools.ReplayFill:
		for _, f := range a.Fields {
			if f.Selector == "" {
				line("// field %s: no stable selector; not replayed", oneLine(f.Target))
				continue
			}
			line("await %s.fill(%s);", locator(f.Selector), js(f.Value))
		}
	default:
		line("// #%d %s: not replayed by this generator", a.Seq, a.Mode)
	}
}

// startsAt reports an action that loads its own page: a replay that starts
// with it needs no goto first.
func startsAt(a Action) bool {
	return FormOf(a) == tools.ReplayGoto || a.Source == "recording" && a.URL != ""
}

func oneLine(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
	if s == "" {
		return "an element"
	}
	return s
}

// Reproduction is a Playwright script (playwright-core, CommonJS) that
// replays the session's actions. `node script.js` runs it in Chromium
// (GASOLINE_CHROMIUM or CHROME_PATH names the browser; headless unless
// HEADED=1); tools/replay/replay.mjs imports its replay(page).
func Reproduction(doc Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Reproduction generated by Gasoline at %s.\n", doc.GeneratedAt.Format("2006-01-02T15:04:05Z07:00"))
	fmt.Fprintf(&b, "// %d recorded actions; start %s. Secrets are redacted: typed values may read [REDACTED:…].\n", len(doc.Replay.Actions), oneLine(doc.Replay.StartURL))
	b.WriteString("'use strict';\n\n")
	fmt.Fprintf(&b, "const viewport = { width: %d, height: %d };\n\n", doc.Replay.Viewport.Width, doc.Replay.Viewport.Height)
	b.WriteString("async function replay(page) {\n")
	steps(&b, doc.Replay, "  ")
	b.WriteString("}\n\n")
	b.WriteString(`async function main() {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.GASOLINE_CHROMIUM || process.env.CHROME_PATH || undefined,
    headless: process.env.HEADED !== '1',
  });
  try {
    const page = await browser.newPage({ viewport });
    await replay(page);
    console.log('replayed; final url', page.url());
  } finally {
    await browser.close();
  }
}

module.exports = { replay, viewport };

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
`)
	return b.String()
}

// Test is a Playwright test (@playwright/test) of the session: the same
// steps, then assertions on what the recording saw — the final URL, the
// values typed and the boxes checked.
func Test(doc Document, name string) string {
	if name == "" {
		name = "reproduces the recorded session"
	}
	var b strings.Builder
	b.WriteString("// Playwright test generated by Gasoline.\n")
	b.WriteString("const { test, expect } = require('@playwright/test');\n\n")
	fmt.Fprintf(&b, "test.use({ viewport: { width: %d, height: %d } });\n\n", doc.Replay.Viewport.Width, doc.Replay.Viewport.Height)
	fmt.Fprintf(&b, "test(%s, async ({ page }) => {\n", js(name))
	b.WriteString("  const errors = [];\n  page.on('pageerror', (err) => errors.push(err.message));\n")
	steps(&b, doc.Replay, "  ")
	for _, a := range doc.Replay.Actions {
		if !a.OK || a.Selector == "" {
			continue
		}
		switch FormOf(a) {
		case tools.ReplayType:
			if a.Clear {
				fmt.Fprintf(&b, "  await expect(%s).toHaveValue(%s);\n", locator(a.Selector), js(a.Text))
			}
		case tools.ReplayCheck:
			if a.Checked == nil || *a.Checked {
				fmt.Fprintf(&b, "  await expect(%s).toBeChecked();\n", locator(a.Selector))
			} else {
				fmt.Fprintf(&b, "  await expect(%s).not.toBeChecked();\n", locator(a.Selector))
			}
		case tools.ReplaySelect:
			fmt.Fprintf(&b, "  await expect(%s).toHaveValue(%s);\n", locator(a.Selector), js(a.Value))
		}
	}
	if doc.Replay.FinalURL != "" {
		fmt.Fprintf(&b, "  await expect(page).toHaveURL(%s);\n", js(doc.Replay.FinalURL))
	}
	b.WriteString("  expect(errors).toEqual([]);\n});\n")
	return b.String()
}
