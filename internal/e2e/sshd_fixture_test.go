//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sshdServer is a real OpenSSH server (Debian's openssh-server) on a
// loopback port, with its own host key, its own config and one user key
// the test holds: the "remote machine" of the remote-agent tests. It is
// not the system's sshd and touches none of its files (Debian's sshd
// needs /run/sshd, its privilege separation folder, to exist; it is made
// when missing).
type sshdServer struct {
	dir, user, key, knownHosts string
	port                       int
}

// needSSH skips outside CI when OpenSSH is not installed (make test
// installs it as root); in CI a missing sshd fails.
func needSSH(tb testing.TB) {
	tb.Helper()
	for _, bin := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				tb.Fatalf("%s is missing: make test installs openssh-server and openssh-client (apt-get) as root", bin)
			}
			tb.Skipf("%s is missing: run make sshd (as root) or apt-get install openssh-server openssh-client", bin)
		}
	}
}

func startSSHD(tb testing.TB) *sshdServer {
	tb.Helper()
	needSSH(tb)
	u, err := user.Current()
	if err != nil {
		tb.Fatal(err)
	}
	s := &sshdServer{dir: tb.TempDir(), user: u.Username, port: FreePort(tb)}
	hostKey := filepath.Join(s.dir, "host_ed25519")
	s.key = filepath.Join(s.dir, "user_ed25519")
	for _, k := range []string{hostKey, s.key} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gasoline-test", "-f", k).CombinedOutput(); err != nil {
			tb.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(s.key + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	auth := filepath.Join(s.dir, "authorized_keys")
	must(tb, os.WriteFile(auth, pub, 0o600))
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	s.knownHosts = filepath.Join(s.dir, "known_hosts")
	must(tb, os.WriteFile(s.knownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", s.port, hostPub)), 0o600))
	conf := filepath.Join(s.dir, "sshd_config")
	must(tb, os.WriteFile(conf, []byte(strings.Join([]string{
		"Port " + strconv.Itoa(s.port), "ListenAddress 127.0.0.1", "HostKey " + hostKey,
		"AuthorizedKeysFile " + auth, "PidFile " + filepath.Join(s.dir, "sshd.pid"),
		"PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no",
		"PermitRootLogin prohibit-password", "StrictModes no", "AllowTcpForwarding yes",
		"GatewayPorts no", "X11Forwarding no", "PrintMotd no", "LogLevel VERBOSE",
	}, "\n")+"\n"), 0o600))
	if os.Geteuid() == 0 {
		must(tb, os.MkdirAll("/run/sshd", 0o755))
	}
	var log bytes.Buffer
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", conf)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		tb.Fatalf("sshd: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if tb.Failed() {
			tb.Logf("sshd log:\n%s", log.String())
		}
	})
	waitListening(tb, s.port, exited, &log)
	return s
}

// waitListening waits (bounded) until something accepts on a loopback
// port; exited ends the wait at once.
func waitListening(tb testing.TB, port int, exited <-chan struct{}, log *bytes.Buffer) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for backoff := time.Millisecond; ; backoff = min(backoff*2, 50*time.Millisecond) {
		if c, err := net.DialTimeout("tcp4", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			tb.Fatalf("exited before listening on %d:\n%s", port, log.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("nothing listens on %d after 20s:\n%s", port, log.String())
		}
		time.Sleep(backoff) // polling a port someone else opens: no signal to wait on
	}
}

// sshArgs are the options every ssh of the test uses: its key, its known
// host, no prompts.
func (s *sshdServer) sshArgs(extra ...string) []string {
	return append([]string{"-i", s.key, "-p", strconv.Itoa(s.port), "-o", "UserKnownHostsFile=" + s.knownHosts,
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-F", "/dev/null"}, extra...)
}

// forward runs `ssh -N -R spec` to the server (as the user's laptop does
// to their dev box) until the test ends, and waits until the remote end
// of the forward answers Gasoline's /health.
func (s *sshdServer) forward(tb testing.TB, spec string, remotePort int) *exec.Cmd {
	tb.Helper()
	var log bytes.Buffer
	cmd := exec.Command("ssh", s.sshArgs("-N", "-o", "ExitOnForwardFailure=yes", "-R", spec, s.user+"@127.0.0.1")...)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitListening(tb, remotePort, exited, &log)
	return cmd
}

// remoteShell runs a command on the "remote machine" through ssh, as the
// user would in a shell there.
func (s *sshdServer) remoteShell(tb testing.TB, command string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ssh", s.sshArgs(s.user+"@127.0.0.1", command)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("remote %q: %v\n%s", command, err, out)
	}
	return string(out)
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// healthVia reads /health on a loopback port.
func healthVia(port int) (string, error) {
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
