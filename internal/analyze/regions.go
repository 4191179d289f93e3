package analyze

import (
	"image"
	"sort"
)

// maxRegions bounds the changed regions listed (the count is always
// full).
const maxRegions = 20

// regionCell is the grid regions are found on: changed pixels in cells
// that touch (8 directions) belong to one region, so a region bridges
// gaps of up to regionCell−1 unchanged pixels.
const regionCell = 8

// regions finds the changed regions of a pixelmatch diff image (changed
// pixels are diffRed): connected groups of grid cells holding changed
// pixels, each boxed tightly around its pixels, largest first. It returns
// at most limit boxes and how many regions there are.
func regions(diff *image.RGBA, limit int) ([]Box, int) {
	b := diff.Bounds()
	gw, gh := (b.Dx()+regionCell-1)/regionCell, (b.Dy()+regionCell-1)/regionCell
	cells := make([]Box, gw*gh) // per cell: the box of its changed pixels (Pixels 0: none)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := diff.Pix[diff.PixOffset(b.Min.X, y):]
		for x := 0; x < b.Dx(); x++ {
			px := row[x*4 : x*4+4]
			if px[0] != diffRed.R || px[1] != diffRed.G || px[2] != diffRed.B {
				continue
			}
			c := &cells[(y-b.Min.Y)/regionCell*gw+x/regionCell]
			grow(c, x, y-b.Min.Y, 1, 1, 1)
		}
	}
	var out []Box
	seen := make([]bool, len(cells))
	var stack []int
	for i := range cells {
		if seen[i] || cells[i].Pixels == 0 {
			continue
		}
		var r Box
		seen[i] = true
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c := cells[j]
			grow(&r, c.X, c.Y, c.Width, c.Height, c.Pixels)
			cx, cy := j%gw, j/gw
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := cx+dx, cy+dy
					if nx < 0 || ny < 0 || nx >= gw || ny >= gh {
						continue
					}
					k := ny*gw + nx
					if !seen[k] && cells[k].Pixels > 0 {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pixels > out[j].Pixels })
	n := len(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, n
}

// grow extends box r to cover the rectangle (x, y, w, h) holding n
// changed pixels.
func grow(r *Box, x, y, w, h, n int) {
	if r.Pixels == 0 {
		*r = Box{X: x, Y: y, Width: w, Height: h, Pixels: n}
		return
	}
	x0, y0 := min(r.X, x), min(r.Y, y)
	x1, y1 := max(r.X+r.Width, x+w), max(r.Y+r.Height, y+h)
	*r = Box{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0, Pixels: r.Pixels + n}
}
