//go:build linux

package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real-app suite (issue 28) drives an application nobody here wrote:
// Debian's classic Jupyter Notebook (6.4, package jupyter-notebook, which
// `make test` installs when missing: mk/realapp.mk). The notebook server
// runs on a loopback port with a token and a temporary notebook
// directory, its configuration, data and runtime directories temporary
// too (no user config is read), and it never launches a browser. What
// the agent did is checked through Jupyter's own REST API (contents,
// kernels), never through Gasoline.

// jupyterBin is Debian's notebook launcher.
const jupyterBin = "/usr/bin/jupyter-notebook"

// jupyter is a running notebook server.
type jupyter struct {
	t     testing.TB
	base  string // http://127.0.0.1:<port>
	token string
	dir   string // the notebook directory
}

// startJupyter starts the notebook server, or skips the test when it is
// not installed — except in CI, where a missing app fails the run.
func startJupyter(t testing.TB) *jupyter {
	t.Helper()
	if _, err := os.Stat(jupyterBin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the real-app suite needs Debian's jupyter-notebook (%v); run make jupyter as root", err)
		}
		t.Skipf("jupyter-notebook not installed (%v); make jupyter installs it", err)
	}
	root := t.TempDir()
	j := &jupyter{t: t, token: randomHex(t), dir: filepath.Join(root, "nb")}
	env := []string{"HOME=" + root, "PATH=/usr/bin:/bin", "JUPYTER_NO_CONFIG=1", "PYTHONNOUSERSITE=1",
		"JUPYTER_CONFIG_DIR=" + filepath.Join(root, "cfg"), "JUPYTER_DATA_DIR=" + filepath.Join(root, "data"),
		"JUPYTER_RUNTIME_DIR=" + filepath.Join(root, "rt"), "IPYTHONDIR=" + filepath.Join(root, "ipython")}
	for _, d := range []string{j.dir, filepath.Join(root, "cfg"), filepath.Join(root, "data"), filepath.Join(root, "rt")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	port := FreePort(t)
	cmd := exec.Command(jupyterBin, "--no-browser", "--allow-root", "--ip=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--port-retries=0", "--notebook-dir="+j.dir, "--NotebookApp.token="+j.token, "--NotebookApp.password=",
		"--NotebookApp.open_browser=False", "--NotebookApp.terminals_enabled=False", "--NotebookApp.disable_check_xsrf=False", "--MappingKernelManager.cull_idle_timeout=0")
	cmd.Env = env
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting jupyter-notebook: %v", err)
	}
	ready := make(chan struct{})
	go func() { // the server says when it listens; the rest of its log is kept for a failure
		sc := bufio.NewScanner(stderr)
		var once bool
		for sc.Scan() {
			line := sc.Text()
			if !once && strings.Contains(line, "is running at") {
				once = true
				close(ready)
			}
			if testing.Verbose() {
				t.Log("jupyter: " + line)
			}
		}
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // the kernels are its children
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("jupyter-notebook did not start within 60s")
	}
	j.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	return j
}

func randomHex(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// url is a page of the notebook server with the token (the first page
// the browser opens logs it in: the server sets its cookie).
func (j *jupyter) url(path string) string {
	return j.base + path + "?token=" + url.QueryEscape(j.token)
}

// api GETs a REST path with the token and decodes the JSON answer.
func (j *jupyter) api(path string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "token "+j.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("GET %s: %s: %s", path, res.Status, b)
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// content is an item of Jupyter's contents API.
type content struct {
	Name    string          `json:"name"`
	Path    string          `json:"path"`
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

// list is the notebook directory as Jupyter lists it.
func (j *jupyter) list() []content {
	j.t.Helper()
	var dir content
	if err := j.api("/api/contents/", &dir); err != nil {
		j.t.Fatal(err)
	}
	var items []content
	if err := json.Unmarshal(dir.Content, &items); err != nil {
		j.t.Fatal(err)
	}
	return items
}

// file reads one item with its content.
func (j *jupyter) file(path string) (content, error) {
	var c content
	err := j.api("/api/contents/"+url.PathEscape(path)+"?content=1", &c)
	return c, err
}

// kernels lists the running kernels.
func (j *jupyter) kernels() []map[string]any {
	j.t.Helper()
	var ks []map[string]any
	if err := j.api("/api/kernels", &ks); err != nil {
		j.t.Fatal(err)
	}
	return ks
}
