package mcprelay

import (
	"bufio"
	"io"

	"github.com/gasoline-mcp/gasoline/internal/mcpline"
)

// line is one message from stdin, or the marker of a line that was too
// long and was dropped.
type line struct {
	data    []byte
	tooLong bool
	ownInit bool // the initialize the cache answered, to forward under the relay's id
}

func fromLine(l mcpline.Line) line { return line{data: l.Data, tooLong: l.TooLong} }

// readLines reads newline-delimited messages from in on a goroutine until
// EOF (then the channel closes) or stop is closed. in may be a
// *bufio.Reader readFirst has read from already. Lines longer than max
// are skipped to their end and reported as tooLong. Blank lines are
// skipped. The goroutine may stay blocked in in.Read after stop if in
// never returns; for os.Stdin that ends with the process.
func readLines(in io.Reader, max int, stop <-chan struct{}) <-chan line {
	out := make(chan line)
	go func() {
		defer close(out)
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			l, err := mcpline.ReadNonBlank(br, max)
			if !l.Blank() {
				select {
				case out <- fromLine(l):
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// readFirst reads the first message on the caller's goroutine, skipping
// blank lines as readLines does; nil when stdin ends first.
func readFirst(br *bufio.Reader, max int) *line {
	l, _ := mcpline.ReadNonBlank(br, max)
	if l.Blank() {
		return nil
	}
	first := fromLine(l)
	return &first
}
