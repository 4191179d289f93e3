// Package download keeps the files the session's tabs download: it tells
// a download from a page load (Detect, on a document response Gasoline
// holds at the Fetch response stage), names the file safely, writes it
// under the state directory's downloads/ (0600) with its SHA-256, and
// lists what each session downloaded for observe downloads — the content
// too for small text files. A download is a high-risk action (Action,
// tools.HighRisk): it is saved only once the approval policy or the user
// allows it.
package download

import (
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Action is the approval action of a download: the policy matches it
// ("interact.download", "interact.*", "*") like a mode, and the approval
// engine asks for it like a gated call. It is no mode of the tool table:
// a download is caused by another action (a click, a navigation) and
// decided when the browser starts it.
const Action = tools.DownloadAction

// Header is one HTTP header of a paused response.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Detect reports whether a document response the browser would otherwise
// display is a download: a 2xx answer with Content-Disposition:
// attachment, one to a request the browser made for a download (an
// <a download> link: the request carries no Accept header, which every
// navigation does), or one of a type the browser does not display
// (archives, executables, office files, octet streams). What it misses
// Chrome still starts as a download, and the extension cancels it before
// any file is written (docs/DEVTOOLS.md).
func Detect(reqHeaders map[string]string, status int, resp []Header) bool {
	if status < 200 || status > 299 {
		return false
	}
	if d, _, err := mime.ParseMediaType(get(resp, "Content-Disposition")); err == nil && d == "attachment" {
		return true
	} else if strings.HasPrefix(strings.ToLower(strings.TrimSpace(get(resp, "Content-Disposition"))), "attachment") {
		return true
	}
	if _, ok := lookup(reqHeaders, "Accept"); !ok {
		return true
	}
	return undisplayable(get(resp, "Content-Type"))
}

// undisplayable reports a media type Chrome saves rather than shows.
func undisplayable(ct string) bool {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false // no type or a broken one: Chrome sniffs, and usually shows
	}
	switch {
	case t == "application/octet-stream", t == "application/zip", t == "application/gzip", t == "application/x-gzip",
		t == "application/x-tar", t == "application/x-7z-compressed", t == "application/vnd.rar", t == "application/x-msdownload",
		t == "application/java-archive", t == "application/msword", t == "application/vnd.apple.installer+xml":
		return true
	case strings.HasPrefix(t, "application/vnd.openxmlformats-officedocument."), strings.HasPrefix(t, "application/vnd.ms-"),
		strings.HasPrefix(t, "application/vnd.oasis.opendocument."):
		return true
	}
	return false
}

func get(h []Header, name string) string {
	for _, x := range h {
		if strings.EqualFold(x.Name, name) {
			return x.Value
		}
	}
	return ""
}

func lookup(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Filename is the name to save a response under: the one its
// Content-Disposition gives (filename* first), else the last segment of
// its URL, else "download"; made safe by SafeName.
func Filename(rawURL string, resp []Header) string {
	if _, p, err := mime.ParseMediaType(get(resp, "Content-Disposition")); err == nil {
		if n := p["filename"]; n != "" { // mime decodes filename* into filename
			return SafeName(n)
		}
	}
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "data" && u.Scheme != "blob" {
		if b := path.Base(u.Path); b != "/" && b != "." {
			return SafeName(b)
		}
	}
	return "download"
}

// SafeName keeps a file name a single harmless path element: the last
// element of a path, no separators, no control characters, no leading dots (no hidden files, no
// ".."), at most 120 bytes with its extension kept; "download" when
// nothing is left.
func SafeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 { // a path: its last element
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f, r == '/', r == '\\', r == ':', r == '*', r == '?', r == '"', r == '<', r == '>', r == '|':
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ". ")
	if len(name) > 120 {
		ext := path.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := 120 - len(ext)
		for cut > 0 && name[cut]&0xC0 == 0x80 {
			cut--
		}
		name = name[:cut] + ext
	}
	if name == "" {
		return "download"
	}
	return name
}
