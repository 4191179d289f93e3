package redact

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreLifecycle: no file is the default policy; a broken file fails
// closed until fixed; Update versions and saves; a hand edit is seen.
func TestStoreLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := OpenStore(path)
	now := time.Unix(1000, 0)
	s.now = func() time.Time { return now }
	e, err := s.Engine()
	require.NoError(t, err)
	assert.Equal(t, DefaultVersion, e.PolicyVersion())

	p, err := s.Update(func(p *Policy) error {
		p.UserPatterns = append(p.UserPatterns, Pattern{Label: "emp", Regex: `EMP-\d{6}`})
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, DefaultVersion+"+1", p.Version)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	e, _ = s.Engine()
	out, _, _ := e.Text("id EMP-123456")
	assert.Equal(t, "id [REDACTED:emp]", out)

	require.NoError(t, os.WriteFile(path, []byte(`{"version":`), 0o600))
	e, err = s.Engine()
	assert.NoError(t, err, "within the recheck interval the file is not looked at")
	assert.NotNil(t, e)
	now = now.Add(recheck)
	e, err = s.Engine()
	assert.Nil(t, e)
	assert.ErrorIs(t, err, ErrPolicy, "a broken file fails closed")
	_, err = (&Gateway{Engine: s.Engine}).Text("s", "x")
	assert.ErrorIs(t, err, ErrBlocked)
	assert.ErrorIs(t, err, ErrPolicy)

	p, err = s.Update(func(p *Policy) error { p.Version = "fixed"; return nil })
	require.NoError(t, err, "Update starts from the default policy when the file is broken")
	assert.Equal(t, "fixed+1", p.Version)
	_, err = s.Update(func(p *Policy) error { return errors.New("no") })
	assert.Error(t, err)
	_, err = s.Update(func(p *Policy) error { p.MaskSelectors = []string{"a{b}"}; return nil })
	assert.ErrorIs(t, err, ErrPolicy, "an invalid change is refused, nothing saved")
	e, err = s.Engine()
	require.NoError(t, err)
	assert.Equal(t, "fixed+1", e.PolicyVersion())
}

func TestNextVersion(t *testing.T) {
	for in, want := range map[string]string{"v": "v+1", "v+1": "v+2", "a+b": "a+b+1", "x+0": "x+0+1", "+3": "+3+1"} {
		assert.Equal(t, want, nextVersion(in), in)
	}
}

// TestGatewayCounts: every call reaches Count with its stage; a nil
// gateway or engine blocks.
func TestGatewayCounts(t *testing.T) {
	e := defaultEngine(t)
	var got []string
	g := &Gateway{Engine: func() (*Engine, error) { return e, nil }, Stage: StageEgress,
		Count: func(id string, st Stage, s Stats, err error) {
			got = append(got, id+":"+string(st)+":"+map[bool]string{true: "blocked", false: "ok"}[err != nil])
		}}
	out, err := g.Text("s1", "Bearer abcdefghijklmnopqrstuvwxyz0123")
	require.NoError(t, err)
	assert.Equal(t, "Bearer [REDACTED:bearer]", out)
	_, err = g.JSON("s1", []byte(`{"password":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"s1:egress:ok", "s1:egress:ok"}, got)

	var nilGW *Gateway
	_, err = nilGW.Text("s", "x")
	assert.ErrorIs(t, err, ErrBlocked)
	_, err = (&Gateway{Engine: func() (*Engine, error) { return nil, nil }}).Value("s", "x")
	assert.ErrorIs(t, err, ErrBlocked)
}

func TestMaskSelectorsValidated(t *testing.T) {
	for _, bad := range []string{"", "a{", "a}b", "a;b", "</style>", `a\b`, "a/*x*/"} {
		_, err := New(Policy{Version: "v", MaskSelectors: []string{bad}})
		assert.ErrorIs(t, err, ErrPolicy, "%q", bad)
	}
	e, err := New(Policy{Version: "v", MaskSelectors: []string{" .private ", "#ssn"}})
	require.NoError(t, err)
	assert.Equal(t, []string{".private", "#ssn"}, e.MaskSelectors())
}
