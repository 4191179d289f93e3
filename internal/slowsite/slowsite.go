// Package slowsite serves the fixtures of the developer-tools modes
// (emulation, performance traces, routes, downloads, PDF) beside
// testdata/: images, styles and scripts delayed on the server by a query
// parameter (?ms=), JSON for a page to fetch, and files to download. The
// end-to-end tests mount it on their test server; `go run ./tools/slowsite`
// serves it for the side-by-side benchmark (bench/lcp.mjs). Tests only:
// the product never serves pages.
package slowsite

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"time"
)

// Prefix is where the handlers live.
const Prefix = "/devtools/"

// Register mounts the fixtures on mux under Prefix.
func Register(mux *http.ServeMux) {
	mux.HandleFunc(Prefix+"image.png", imagePNG)
	mux.HandleFunc(Prefix+"style.css", text("text/css", "h1 { font: bold 40px sans-serif; margin: 8px 0; }\n"))
	mux.HandleFunc(Prefix+"third.js", text("text/javascript", thirdJS))
	mux.HandleFunc(Prefix+"items.json", text("application/json", `{"items":[{"id":1,"name":"Real one"},{"id":2,"name":"Real two"}]}`))
	mux.HandleFunc(Prefix+"report.csv", attachment("text/csv", "report.csv", ReportCSV))
	mux.HandleFunc(Prefix+"notes.txt", text("text/plain; charset=utf-8", NotesTXT))
	mux.HandleFunc(Prefix+"archive.bin", attachment("application/octet-stream", "archive.bin", string(Archive())))
}

// The downloadable files' contents, for tests to compare against.
const (
	ReportCSV = "name,amount\nAda,42\nGrace,7\n"
	NotesTXT  = "notes saved by an a[download] link\n"
)

// Archive is archive.bin: 200,000 bytes of a fixed pattern (binary, not
// text, so observe downloads shows no content).
func Archive() []byte {
	b := make([]byte, 200_000)
	for i := range b {
		b[i] = byte(i*31 + i/256)
	}
	return b
}

// thirdJS does a fixed amount of work (not a fixed time: a CPU slowdown
// stretches it) when loaded from another origin, as a third-party tag
// would.
const thirdJS = `(function () { let x = 0; for (let i = 0; i < 4e6; i++) x = (x + i * 13) % 1000003; window.__third = x; })();`

// delay holds the response for ?ms= milliseconds (at most 10 s), or until
// the client goes away.
func delay(r *http.Request) bool {
	ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(min(ms, 10_000)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func noStore(w http.ResponseWriter, typ string) {
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Access-Control-Allow-Origin", "*")
}

func text(typ, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !delay(r) {
			return
		}
		noStore(w, typ)
		fmt.Fprint(w, body)
	}
}

func attachment(typ, name, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		noStore(w, typ)
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		fmt.Fprint(w, body)
	}
}

// texture is a w×h image of 8×8 blocks, each a shade of c drawn from a
// fixed sequence: a photo-like amount of detail. Chrome does not count an
// image of (almost) one colour as contentful (the LCP entropy heuristic:
// under 0.05 bits per displayed pixel), so a flat fixture image would or
// would not be the LCP depending on the window's size.
func texture(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	seed := uint32(2463534242)
	shade := func(v uint8, d int) uint8 { return uint8(max(0, min(255, int(v)+d))) }
	for by := 0; by < h; by += 8 {
		for bx := 0; bx < w; bx += 8 {
			seed ^= seed << 13
			seed ^= seed >> 17
			seed ^= seed << 5
			d := int(seed%97) - 48
			for y := by; y < min(by+8, h); y++ {
				for x := bx; x < min(bx+8, w); x++ {
					i := img.PixOffset(x, y)
					img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = shade(c.R, d), shade(c.G, d), shade(c.B, d), 0xff
				}
			}
		}
	}
	return img
}

// imagePNG answers a w×h textured PNG in shades of ?color=rrggbb after
// ?ms=.
func imagePNG(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	wd, _ := strconv.Atoi(q.Get("w"))
	ht, _ := strconv.Atoi(q.Get("h"))
	wd, ht = clamp(wd, 1, 4000, 100), clamp(ht, 1, 4000, 100)
	c := color.RGBA{0x33, 0x66, 0x99, 0xff}
	if v, err := strconv.ParseUint(q.Get("color"), 16, 32); err == nil {
		c = color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
	}
	img := texture(wd, ht, c)
	var buf bytes.Buffer
	png.Encode(&buf, img)
	if !delay(r) {
		return
	}
	noStore(w, "image/png")
	w.Write(buf.Bytes())
}

func clamp(v, lo, hi, def int) int {
	if v == 0 {
		return def
	}
	return max(lo, min(v, hi))
}
