package redact

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSON(t *testing.T) {
	q := func(s string) string { return `"` + s + `"` }
	tests := []struct{ name, in, want string }{
		{"keys stay values go", `{"user":"bob","password":"hunter2"}`, `{"user":"bob","password":` + q(m("password")) + `}`},
		{"any depth", `{"a":{"b":[{"c":{"refresh_token":"x"}}]}}`, `{"a":{"b":[{"c":{"refresh_token":` + q(m("password")) + `}}]}}`},
		{"numbers and containers go", `{"pin":1234,"session":{"id":"x","n":[1,2]},"secret":[1]}`,
			`{"pin":` + q(m("password")) + `,"session":` + q(m("session_id")) + `,"secret":` + q(m("password")) + `}`},
		{"flags stay", `{"password":true,"token":null,"secret":false}`, `{"password":true,"token":null,"secret":false}`},
		{"formatting kept", "{\n  \"a\" : 1 ,\n  \"token\" :\t\"x\"\n}\n", "{\n  \"a\" : 1 ,\n  \"token\" :\t" + q(m("password")) + "\n}\n"},
		{"escapes kept when unchanged", `{"s":"a\u0041\/b","k":"x"}`, `{"s":"a\u0041\/b","k":"x"}`},
		{"values scanned", `{"msg":"auth ` + testJWT + ` ok"}`, `{"msg":"auth ` + m("jwt") + ` ok"}`},
		{"escaped values scanned", `{"msg":"k\u003d` + awsKey + `"}`, `{"msg":"k=` + m("aws_access_key") + `"}`},
		{"keys scanned", `{"` + gh36 + `":1}`, `{` + q(m("github_token")) + `:1}`},
		{"card as number", `{"n":4111111111111111,"m":12.5}`, `{"n":` + q(m("card")) + `,"m":12.5}`},
		{"whole token label", `{"token":"` + testJWT + `","auth":"Bearer abc123def456ghi"}`,
			`{"token":` + q(m("jwt")) + `,"auth":"Bearer ` + m("bearer") + `"}`},
		{"authorization keeps scheme", `{"Authorization":"Basic dXNlcjpwYXNz"}`, `{"Authorization":"Basic ` + m("basic") + `"}`},
		{"cookie keeps names", `{"cookie":"a=1; b=2"}`, `{"cookie":"a=` + m("cookie") + `; b=` + m("cookie") + `"}`},
		{"embedded JSON walked", `{"body":"{\"session\":{\"id\":\"x\"}}"}`, `{"body":"{\"session\":\"` + m("session_id") + `\"}"}`},
		{"HAR header pair", `[{"name":"X-Api-Key","value":"k1"},{"name":"Accept","value":"*/*"}]`,
			`[{"name":"X-Api-Key","value":` + q(m("password")) + `},{"name":"Accept","value":"*/*"}]`},
		{"HAR cookie header pair", `{"name":"Cookie","value":"a=1"}`, `{"name":"Cookie","value":"a=` + m("cookie") + `"}`},
		{"storage item pair", `{"key":"refresh_token","value":"r1"}`, `{"key":"refresh_token","value":` + q(m("password")) + `}`},
		{"storage array pair", `[["theme","dark"],["access_token","a1"]]`, `[["theme","dark"],["access_token",` + q(m("password")) + `]]`},
		{"CDP cookie object", `{"name":"theme","value":"dark","domain":".x.test","httpOnly":false}`,
			`{"name":"theme","value":` + q(m("cookie")) + `,"domain":".x.test","httpOnly":false}`},
		{"cookies container", `{"cookies":{"sid":"s1","theme":"dark"}}`, `{"cookies":{"sid":` + q(m("cookie")) + `,"theme":` + q(m("cookie")) + `}}`},
		{"cookies array", `{"cookies":[{"name":"sid","value":"s1","path":"/"}]}`,
			`{"cookies":[{"name":"sid","value":` + q(m("cookie")) + `,"path":"/"}]}`},
		{"service account", `{"type":"service_account","private_key_id":"abc","private_key":"-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n","client_email":"a@b"}`,
			`{"type":"service_account","private_key_id":"abc","private_key":` + q(m("gcp_service_account")) + `,"client_email":"a@b"}`},
		{"not secret names", `{"keyboard":"x","max_tokens":5,"token_type":"Bearer","sessionStorage":{"a":"b"}}`,
			`{"keyboard":"x","max_tokens":5,"token_type":"Bearer","sessionStorage":{"a":"b"}}`},
		{"already redacted", `{"password":"[REDACTED:password]"}`, `{"password":"[REDACTED:password]"}`},
		{"html chars kept", `{"t":"<a href=x>&amp;</a>","password":"<&>"}`, `{"t":"<a href=x>&amp;</a>","password":` + q(m("password")) + `}`},
	}
	e := defaultEngine(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := e.JSON([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.True(t, json.Valid(got), "output must stay valid JSON")
		})
	}
}

// TestJSONInvalidFallsBackToText: invalid JSON is scanned as text, never
// passed through.
func TestJSONInvalidFallsBackToText(t *testing.T) {
	e := defaultEngine(t)
	in := `{"password":"hunter2", "t":"` + testJWT + `"` // truncated
	got, st, err := e.JSON([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, `{"password":"`+m("password")+`", "t":"`+m("jwt")+`"`, string(got))
	assert.Equal(t, 2, st.Redacted)
}

func TestValue(t *testing.T) {
	e := defaultEngine(t)
	in := map[string]any{
		"user":     "bob",
		"password": "hunter2",
		"pin":      1234,
		"nested": []any{
			map[string]any{"refresh_token": map[string]any{"v": "x"}, "note": "key " + awsKey},
			json.Number("4111111111111111"),
			float64(4111111111111111),
			[]string{"session_id=abc", "ok"},
		},
		"headers":   map[string]string{"Authorization": "Bearer abc123def456ghi", "Accept": "*/*"},
		"raw":       json.RawMessage(`{"secret":"s"}`),
		"flag":      true,
		"none":      nil,
		"struct":    struct{ Token string }{"abc"},
		gh36:        "a key that is a token",
		"password2": []any{"a"},
	}
	got, st, err := e.Value(in)
	require.NoError(t, err)
	want := map[string]any{
		"user":     "bob",
		"password": m("password"),
		"pin":      m("password"),
		"nested": []any{
			map[string]any{"refresh_token": m("password"), "note": "key " + m("aws_access_key")},
			m("card"),
			m("card"),
			[]any{"session_id=" + m("session_id"), "ok"},
		},
		"headers":         map[string]any{"Authorization": "Bearer " + m("bearer"), "Accept": "*/*"},
		"raw":             json.RawMessage(`{"secret":"` + m("password") + `"}`),
		"flag":            true,
		"none":            nil,
		"struct":          json.RawMessage(`{"Token":"` + m("password") + `"}`),
		m("github_token"): "a key that is a token",
		"password2":       m("password"),
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 12, st.Redacted, "%v", st.ByClass)
	assert.Equal(t, "hunter2", in["password"], "the input is not modified")
}

// TestValueKeyCollision: two keys redacted to the same marker both survive.
func TestValueKeyCollision(t *testing.T) {
	e := defaultEngine(t)
	got, _, err := e.Value(map[string]any{gh36: 1, "ghp_" + "zZ9yY8xX7wW6vV5uU4tT3sS2rR1qQ0pP9oO8": 2})
	require.NoError(t, err)
	assert.Len(t, got, 2)
	assert.Contains(t, got, m("github_token"))
	assert.Contains(t, got, m("github_token")+"#2")
}

func TestHeaders(t *testing.T) {
	e := defaultEngine(t)
	in := map[string]string{
		"Authorization":       "Bearer abc123def456ghi",
		"Proxy-Authorization": "Basic dXNlcjpwYXNz",
		"Cookie":              "sid=s1; theme=dark",
		"Set-Cookie":          "id=a1; Path=/; HttpOnly\nlang=en; Max-Age=60",
		"X-Api-Key":           "k1",
		"X-CSRF-Token":        "c1",
		"X-XSRF-TOKEN":        "c2",
		"X-Auth-Token":        "t1",
		"X-Session-Token":     "s2",
		"Content-Type":        "application/json",
		"Referer":             "https://x.test/?access_token=a1&q=ok",
		"Keyboard-Layout":     "qwerty",
	}
	want := map[string]string{
		"Authorization":       "Bearer " + m("bearer"),
		"Proxy-Authorization": "Basic " + m("basic"),
		"Cookie":              "sid=" + m("cookie") + "; theme=" + m("cookie"),
		"Set-Cookie":          "id=" + m("cookie") + "; Path=/; HttpOnly\nlang=" + m("cookie") + "; Max-Age=60",
		"X-Api-Key":           m("password"),
		"X-CSRF-Token":        m("csrf"),
		"X-XSRF-TOKEN":        m("csrf"),
		"X-Auth-Token":        m("password"),
		"X-Session-Token":     m("session_id"),
		"Content-Type":        "application/json",
		"Referer":             "https://x.test/?access_token=" + m("password") + "&q=ok",
		"Keyboard-Layout":     "qwerty",
	}
	got, st, err := e.Headers(in)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, 12, st.Redacted, "%v", st.ByClass)

	hh, _, err := e.HTTPHeader(http.Header{"Authorization": {"Bearer abc123def456ghi"}, "Accept": {"a", "b"}})
	require.NoError(t, err)
	assert.Equal(t, http.Header{"Authorization": {"Bearer " + m("bearer")}, "Accept": {"a", "b"}}, hh)

	one, _, err := e.Header("Cookie", "a=1")
	require.NoError(t, err)
	assert.Equal(t, "a="+m("cookie"), one)
}

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://x.test/p?a=1&token=abc&b=2", "https://x.test/p?a=1&token=" + m("password") + "&b=2"},
		{"https://u:p4ss@x.test/", "https://u:" + m("password") + "@x.test/"},
		{"https://x.test/cb#access_token=abc&state=s", "https://x.test/cb#access_token=" + m("password") + "&state=s"},
		{"https://x.test/reset/" + testJWT + "?x=1", "https://x.test/reset/" + m("jwt") + "?x=1"},
		{"https://x.test/?note=" + "Bearer%20abc123def456ghi", "https://x.test/?note=Bearer+" + m("bearer")},
		{"https://x.test/?pass%77ord=x", "https://x.test/?pass%77ord=" + m("password")},
		{"https://x.test/?q=100%&password=x", "https://x.test/?q=100%&password=" + m("password")},
		{"https://x.test/?q=keyboard&page=2#top", "https://x.test/?q=keyboard&page=2#top"},
		{"data:text/plain,password=abc", "data:text/plain,password=" + m("password")},
		{"https://x.test/?token=" + m("password"), "https://x.test/?token=" + m("password")},
	}
	e := defaultEngine(t)
	for _, tt := range tests {
		got, _, err := e.URL(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "in: %q", tt.in)
	}
}

func TestFormAndBody(t *testing.T) {
	e := defaultEngine(t)
	got, st, err := e.Form("user=bob&password=p%40ss&csrf_token=c1&remember=on&card=4111+1111+1111+1111")
	require.NoError(t, err)
	assert.Equal(t, "user=bob&password="+m("password")+"&csrf_token="+m("csrf")+"&remember=on&card="+m("card"), got)
	assert.Equal(t, 3, st.Redacted)

	b, _, err := e.Body("application/json; charset=utf-8", []byte(`{"token":"t"}`))
	require.NoError(t, err)
	assert.Equal(t, `{"token":"`+m("password")+`"}`, string(b))
	b, _, err = e.Body("application/x-www-form-urlencoded", []byte("secret=s&a=1"))
	require.NoError(t, err)
	assert.Equal(t, "secret="+m("password")+"&a=1", string(b))

	mp := "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nbob\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter 2 with spaces\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n--XyZ--\r\n"
	b, _, err = e.Body("multipart/form-data; boundary=XyZ", []byte(mp))
	require.NoError(t, err)
	assert.Contains(t, string(b), "name=\"password\"\r\n\r\n"+m("password")+"\r\n--XyZ")
	assert.Contains(t, string(b), "\r\n\r\nbob\r\n")
	assert.NotContains(t, string(b), "hunter")
}

// TestTruncatedJSON: a document cut off at the end keeps the structural
// rules, and the output is cut at the same place.
func TestTruncatedJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[{"name":"X-Api-Key","value":"k1"},{"name":"Accept","val`, `[{"name":"X-Api-Key","value":"` + m("password") + `"},{"name":"Accept","val`},
		{`{"cookies":[{"name":"sid","value":"s1","domain":"x"`, `{"cookies":[{"name":"sid","value":"` + m("cookie") + `","domain":"x"`},
		{`{"password":"hunt`, `{"password":"` + m("password")},
		{`{"pin":12`, `{"pin":"` + m("password") + `"`},
		{`{"a":"x\`, `{"a":"x\`},
		{`{"a":"\u00`, `{"a":"\u00`},
		{`{"a":[1,2,`, `{"a":[1,2,`},
		{`{"a":1,`, `{"a":1,`},
		{`{"a":tr`, `{"a":tr`},
		{`{"a":-`, `{"a":-`},
		{`{"token"`, `{"token"`},
		{`[["refresh_token","r1"],["x"`, `[["refresh_token","` + m("password") + `"],["x"`},
	}
	e := defaultEngine(t)
	for _, tt := range tests {
		got, _, err := e.JSON([]byte(tt.in))
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(got), "in: %s", tt.in)
		txt, _, err := e.Text(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, txt, "Text, in: %s", tt.in)
		again, _, err := e.Text(txt)
		require.NoError(t, err)
		assert.Equal(t, txt, again, "idempotent")
	}
	for _, in := range []string{`{"a":1}}`, `{"a" 1`, `{"a":1]`, `[1,,`} {
		tail, ok := completion(in)
		assert.False(t, ok, "%s is not a truncated document (tail %q)", in, tail)
	}
}

// TestJSONKeepTypes: numbers under secret-sounding names keep their type
// (a CDP decoder relies on the schema); strings are redacted as by JSON.
func TestJSONKeepTypes(t *testing.T) {
	e := defaultEngine(t)
	in := `{"securityDetails":{"keyExchangeGroup":"X25519","serverSignatureAlgorithm":1027,"certificateId":0},` +
		`"headers":{"Authorization":"Bearer abcdefghijklmnopqrstuvwxyz0123","set-cookie":"sid=abc123; Secure"},"pin":1234}`
	out, st, err := e.JSONKeepTypes([]byte(in))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v))
	sd := v["securityDetails"].(map[string]any)
	assert.Equal(t, 1027.0, sd["serverSignatureAlgorithm"], "a number stays a number")
	assert.Equal(t, 1234.0, v["pin"])
	assert.NotContains(t, string(out), "abcdefghijklmnopqrstuvwxyz0123")
	assert.NotContains(t, string(out), "abc123")
	assert.GreaterOrEqual(t, st.Redacted, 2)

	plain, _, err := e.JSON([]byte(in))
	require.NoError(t, err)
	assert.Contains(t, string(plain), `"pin":"[REDACTED:`, "JSON itself still replaces them")
}
