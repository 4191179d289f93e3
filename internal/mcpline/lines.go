// Package mcpline is the stdio relay's link to the daemon: MCP JSON-RPC as
// newline-framed lines over a loopback TCP connection to the daemon's port
// (docs/DAEMON.md, "The relay's link"). It holds what both ends share: the
// bounded line reader (the relay reads its stdin with it too), the hello
// that opens a link and its answer, and the control line that ends a
// session. It links no HTTP, so the slim relay (gasoline-mcp) starts
// without net/http's package inits.
package mcpline

import (
	"bufio"
	"bytes"
	"errors"
)

// Line is one line read, without its newline, or the marker of a line
// longer than the reader's bound, which was read to its end and dropped.
type Line struct {
	Data    []byte
	TooLong bool
}

// Blank reports whether the line holds nothing but white space (readers
// skip such lines).
func (l Line) Blank() bool { return !l.TooLong && len(bytes.TrimSpace(l.Data)) == 0 }

// Read returns the next line of br without its newline ("\n" or "\r\n"),
// reading at most max bytes of it into memory: a longer line is read to
// its newline, dropped, and returned as TooLong, so the next Read starts
// on the next line. At the end of the input it returns the last partial
// line, if any, with the read error (io.EOF).
func Read(br *bufio.Reader, max int) (Line, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max+2 { // max bytes and "\r\n" at most
			return skipRest(br, err)
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		data := bytes.TrimRight(buf, "\r\n")
		if len(data) > max {
			return Line{TooLong: true}, err
		}
		return Line{Data: data}, err
	}
}

// skipRest discards the rest of an overlong line.
func skipRest(br *bufio.Reader, err error) (Line, error) {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = br.ReadSlice('\n')
	}
	return Line{TooLong: true}, err
}

// ReadNonBlank is Read, skipping blank lines.
func ReadNonBlank(br *bufio.Reader, max int) (Line, error) {
	for {
		l, err := Read(br, max)
		if !l.Blank() || err != nil {
			return l, err
		}
	}
}
