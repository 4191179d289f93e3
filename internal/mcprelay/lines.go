package mcprelay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// line is one message from stdin, or the marker of a line that was too
// long and was dropped.
type line struct {
	data    []byte
	tooLong bool
	ownInit bool // the initialize the cache answered, to forward under the relay's id
}

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
			l, err := readLine(br, max)
			if len(bytes.TrimSpace(l.data)) > 0 || l.tooLong {
				select {
				case out <- l:
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
	for {
		l, err := readLine(br, max)
		if len(bytes.TrimSpace(l.data)) > 0 || l.tooLong {
			return &l
		}
		if err != nil {
			return nil
		}
	}
}

// readLine returns the next line without its newline. At EOF it returns
// the last partial line, if any, with io.EOF.
func readLine(br *bufio.Reader, max int) (line, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			return skipRest(br, err)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return line{data: bytes.TrimRight(buf, "\r\n")}, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line{data: bytes.TrimRight(buf, "\r\n")}, err
		}
	}
}

// skipRest discards the rest of an overlong line.
func skipRest(br *bufio.Reader, err error) (line, error) {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = br.ReadSlice('\n')
	}
	return line{tooLong: true}, err
}
