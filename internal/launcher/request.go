package launcher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// requestTimeout bounds one request to the daemon (a probe, a shutdown).
const requestTimeout = 2 * time.Second

// request makes one HTTP/1.0 request to the daemon on 127.0.0.1:port and
// returns the status code and the body (at most 1 MiB). The launcher asks
// the daemon two things, GET /health and POST /shutdown, both with empty
// bodies and small answers; an HTTP/1.0 request is answered without
// chunking and ends with the connection, so a few lines on net do it. Not
// net/http: the stdio relay (gasoline-mcp) links the launcher, and
// net/http's package inits (crypto/tls, x509, mime…) would be on every
// agent's start.
func request(ctx context.Context, port int, method, path, token string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var d net.Dialer
	host := "127.0.0.1:" + strconv.Itoa(port)
	c, err := d.DialContext(ctx, "tcp4", host)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	dl, _ := ctx.Deadline()
	c.SetDeadline(dl)
	defer context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })()
	req := method + " " + path + " HTTP/1.0\r\nHost: " + host + "\r\nContent-Length: 0\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return 0, nil, err
	}
	br := bufio.NewReader(io.LimitReader(c, 1<<20))
	status, err := readHead(br)
	if err != nil {
		return 0, nil, fmt.Errorf("launcher: %s %s on %s: %w", method, path, host, err)
	}
	body, err := io.ReadAll(br)
	return status, body, err
}

// errNotHTTP: what answered is not an HTTP server.
var errNotHTTP = errors.New("the answer is not HTTP")

// readHead reads a response's status line and headers, and returns the
// status code.
func readHead(br *bufio.Reader) (int, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	proto, rest, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return 0, errNotHTTP
	}
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if strings.TrimRight(h, "\r\n") == "" {
			return status, nil
		}
	}
}
