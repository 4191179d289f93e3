package actions

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// maxListed bounds the errors and failed requests an answer lists.
const maxListed = 5

// urlEventWait bounds the wait for the navigation event of a URL change
// the page probe saw before the event arrived.
const urlEventWait = time.Second

// skipCaptured moves the tab's capture cursor past what is stored now, so
// an action reports only what arrived during it.
func (a *act) skipCaptured() {
	c := a.e.cfg.Capture
	if c == nil {
		return
	}
	for range 100 { // bounded: at most 100k entries
		p := c.Timeline(a.tab, a.t.cursor, capture.MaxLimit)
		if p.Next > a.t.cursor {
			a.t.cursor = p.Next
		}
		if !p.Truncated {
			return
		}
	}
}

// collect fills in the result's Changes after the action.
func (a *act) collect(ctx context.Context, probed bool, before pageState) {
	ch := &a.res.Changes
	w := a.w
	ch.Navigated = w.navigated
	ch.Dialogs = append(ch.Dialogs, w.dialogs...)
	a.res.WindowsOpened = w.windowOpens
	errs, failed := w.errors, w.failed
	navURL := w.url
	dialogOpen := len(ch.Dialogs) > 0 && ch.Dialogs[len(ch.Dialogs)-1].Open
	if dialogOpen && a.e.cfg.Capture == nil {
		a.t.dialog = ch.Dialogs[len(ch.Dialogs)-1]
	}
	if probed {
		read := readState
		if dialogOpen || ch.Navigated { // the page's script is blocked or loading; the history is not
			read = historyState
		}
		after, err := pageState{}, error(nil)
		switch {
		case a.after != nil && !dialogOpen:
			after = *a.after
		case a.settled != nil && !dialogOpen && !ch.Navigated:
			after = *a.settled // read in the settle's round trip; a navigation since makes it stale
		default:
			after, err = read(ctx, a.s)
		}
		if err != nil {
			after, err = historyState(ctx, a.s)
		}
		if err == nil {
			if before.URL != "" && after.URL != before.URL {
				ch.URL = &Delta{From: before.URL, To: after.URL}
				w.awaitURLEvent(ctx, urlEventWait)
				ch.Navigated = w.navigated
			}
			if before.URL != "" && after.Title != before.Title {
				ch.Title = &Delta{From: before.Title, To: after.Title}
			}
			a.t.last = after
		}
	} else if navURL != "" && navURL != a.t.last.URL {
		ch.URL = &Delta{From: a.t.last.URL, To: navURL}
		a.t.last.URL = navURL
	}
	if a.e.cfg.Capture != nil {
		errs, failed = a.captured()
		ch.InFlight = len(a.e.cfg.Capture.Pending(a.tab))
	}
	ch.Errors, ch.FailedRequests = cut(errs, &ch.More), cut(failed, &ch.More)
	if g := a.e.cfg.Snapshots.Generation(a.tab); g != a.gen {
		ch.Generation = &[2]int{a.gen, g}
	}
}

func cut(list []string, more *int) []string {
	if len(list) > maxListed {
		*more += len(list) - maxListed
		return list[:maxListed]
	}
	return list
}

// captured reads the errors and failed requests stored since the cursor
// and moves the cursor past them.
func (a *act) captured() (errs, failed []string) {
	c := a.e.cfg.Capture
	for range 100 {
		p := c.Timeline(a.tab, a.t.cursor, capture.MaxLimit)
		for _, e := range p.Entries {
			switch {
			case e.Console != nil && e.Console.Level == "error":
				errs = append(errs, clip("console.error: "+e.Console.Text, 200))
			case e.Exception != nil:
				errs = append(errs, clip(e.Exception.Message, 200))
			case e.Request != nil && (e.Request.Failed || e.Request.Status >= 400) && !isFavicon(e.Request.URL):
				failed = append(failed, requestLine(e.Request))
			}
		}
		if p.Next > a.t.cursor {
			a.t.cursor = p.Next
		}
		if !p.Truncated {
			break
		}
	}
	return errs, failed
}

func requestLine(r *capture.Request) string {
	out := fmt.Sprintf("%s %s → ", r.Method, clip(r.URL, 120))
	if r.Failed {
		return out + r.ErrorText
	}
	return out + fmt.Sprint(r.Status)
}

// isFavicon reports the browser's own favicon request, whose 404 is noise.
func isFavicon(url string) bool {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	return strings.HasSuffix(url, "/favicon.ico")
}
