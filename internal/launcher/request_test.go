package launcher

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func portOf(t *testing.T, addr net.Addr) int { return addr.(*net.TCPAddr).Port }

// Probe and askShutdown speak HTTP/1.0 on net alone (request.go); a real
// net/http server answers them as it answers any client.
func TestRequestAgainstNetHTTP(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "" {
			http.Error(w, "no host", 400)
			return
		}
		w.Write([]byte(`{"service-name":"gasoline","version":"v9","pid":42}`))
	})
	mux.HandleFunc("POST /shutdown", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", 403)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	port := portOf(t, srv.Listener.Addr())
	h, err := Probe(context.Background(), port)
	if err != nil || h.Version != "v9" || h.PID != 42 {
		t.Fatalf("Probe = %+v, %v", h, err)
	}
	if !askShutdown(context.Background(), port, "tok") || askShutdown(context.Background(), port, "other") {
		t.Fatal("askShutdown did not tell 202 from 403")
	}
}

// Something that is not Gasoline on the port: ErrForeignPort for an HTTP
// server, an error (no hang) for a program that does not speak HTTP.
func TestProbeForeign(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"name":"other"}`)) }))
	defer srv.Close()
	if _, err := Probe(context.Background(), portOf(t, srv.Listener.Addr())); !errors.Is(err, ErrForeignPort) {
		t.Fatalf("Probe of another HTTP server: %v, want ErrForeignPort", err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("SSH-2.0-OpenSSH\r\n"))
			c.Close()
		}
	}()
	if _, err := Probe(context.Background(), portOf(t, ln.Addr())); !errors.Is(err, errNotHTTP) {
		t.Fatalf("Probe of a program that is not HTTP: %v", err)
	}
}
