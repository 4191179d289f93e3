package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitKey(t *testing.T) {
	tests := map[string][]string{
		"X-CSRF-Token":          {"x", "csrf", "token"},
		"refreshToken":          {"refresh", "token"},
		"APIKey":                {"api", "key"},
		"sessionID":             {"session", "id"},
		"aws_secret_access_key": {"aws", "secret", "access", "key"},
		"connect.sid":           {"connect", "sid"},
		"ASP.NET_SessionId":     {"asp", "net", "session", "id"},
		"cvv2":                  {"cvv2"},
		"keyboard":              {"keyboard"},
		"XMLHttpRequest":        {"xml", "http", "request"},
		"  __Host-id ":          {"host", "id"},
	}
	for in, want := range tests {
		assert.Equal(t, want, splitKey(in), "splitKey(%q)", in)
	}
}

// TestKeyNamesSecret: names whose values go, with their label.
func TestKeyNamesSecret(t *testing.T) {
	tests := map[string]Class{
		"password": Password, "Password": Password, "PASSWORD": Password, "passwd": Password, "pwd": Password, "pw": Password, "new_pw": Password,
		"new_password": Password, "userPassword": Password, "password_confirmation": Password, "db_pass": Password,
		"secret": Password, "client_secret": Password, "clientSecret": Password, "token": Password,
		"access_token": Password, "accessToken": Password, "refresh_token": Password, "id_token": Password,
		"auth": Password, "auth_token": Password, "x-auth-token": Password, "X-Auth-Token": Password,
		"api_key": Password, "apiKey": Password, "apikey": Password, "X-Api-Key": Password, "x-goog-api-key": Password,
		"Ocp-Apim-Subscription-Key": Password, "secretKey": Password, "signing_key": Password, "licenseKey": Password,
		"encryption_key": Password, "private_token": Password, "credentials": Password, "passphrase": Password,
		"pin": Password, "otp": Password, "X-Amz-Signature": Password, "X-Amz-Security-Token": Password,
		"github_token": Password, "tokens": Password, "oauth": Password, "jwt": Password,
		"authorization_code": Password, "stripe_key": Password,
		"session": SessionID, "sessionid": SessionID, "session_id": SessionID, "sessionId": SessionID,
		"SESSION_ID": SessionID, "JSESSIONID": SessionID, "PHPSESSID": SessionID, "connect.sid": SessionID,
		"sid": SessionID, "ASP.NET_SessionId": SessionID, "laravel_session": SessionID, "session_token": SessionID,
		"x-session-token": SessionID, "sessions": SessionID,
		"csrf": CSRF, "csrf_token": CSRF, "csrfToken": CSRF, "X-CSRF-Token": CSRF, "X-XSRF-TOKEN": CSRF,
		"_csrf": CSRF, "csrfmiddlewaretoken": CSRF, "authenticity_token": CSRF, "__RequestVerificationToken": CSRF,
		"cvv": CVV, "CVC": CVV, "cvv2": CVV, "security_code": CVV, "securityCode": CVV, "card_code": CVV, "csc": CVV,
		"card_number": Card, "cardNumber": Card, "cc_number": Card, "creditCard": Card,
		"iban": IBAN, "IBAN": IBAN,
		"aws_secret_access_key": AWSSecret, "SecretAccessKey": AWSSecret, "AWS_SECRET_ACCESS_KEY": AWSSecret,
		"private_key": PrivateKey, "privateKey": PrivateKey,
		"AccountKey": Azure, "SharedAccessKey": Azure, "sig": Azure, "SharedAccessSignature": Azure,
		"cookie": Cookie, "Cookie": Cookie, "Set-Cookie": Cookie, "cookies": Cookie,
		"Authorization": Password, "Proxy-Authorization": Password,
	}
	e := defaultEngine(t)
	for name, want := range tests {
		r, ok := e.rule(name)
		if assert.True(t, ok, "%q should be secret", name) {
			assert.Equal(t, string(want), r.label, "label of %q", name)
		}
	}
}

// TestKeyNamesNotSecret: no absurd hits — word parts, not substrings.
func TestKeyNamesNotSecret(t *testing.T) {
	names := []string{
		"keyboard", "monkey", "keyframes", "turkey", "hotkey", "donkey", "whiskey", "key", "keys", "keyCode",
		"key_id", "api_key_id", "access_key_id", "apiKeyName", "primary_key", "primaryKey", "public_key",
		"publicKey", "publishable_key", "sort_key", "partitionKey", "cache_key", "idempotency_key", "foreign_key",
		"tokenizer", "secretary", "passport", "passenger", "bypass", "compass", "pass", "author", "authored_by",
		"token_type", "tokenType", "token_url", "token_endpoint", "auth_url", "authDomain", "auth_provider",
		"authorization_endpoint", "password_policy", "passwordStrength", "password_min_length", "sessionStorage",
		"session_storage", "session_timeout", "sessionTimeout", "session_count", "csrf_header_name",
		"max_tokens", "maxTokens", "input_tokens", "output_tokens", "prompt_tokens", "completion_tokens",
		"total_tokens", "cache_read_input_tokens", "maxtokens", "token_count", "has_password", "is_secret",
		"show_password", "remember_session", "max_sessions", "cookie_consent", "cookieEnabled", "card", "card_type",
		"cardholder", "code", "name", "value", "type", "id", "user", "email", "username", "url", "expires_in",
		"SharedAccessKeyName", "tokens_used", "private_key_id", "auth_type", "keyPath",
	}
	e := defaultEngine(t)
	for _, name := range names {
		r, ok := e.rule(name)
		assert.False(t, ok, "%q should not be secret (got %q)", name, r.label)
	}
}

// TestKeyNamesPolicy: secret_keys and allow_keys adjust the rule, matched
// ignoring case and separators.
func TestKeyNamesPolicy(t *testing.T) {
	p := DefaultPolicy()
	p.SecretKeys = []string{"x-acme-pin-code", "Employee Number"}
	p.AllowKeys = []string{"next_page_token"}
	e, err := New(p)
	require.NoError(t, err)
	for _, n := range []string{"X_ACME_PIN_CODE", "xAcmePinCode", "employee_number", "EmployeeNumber"} {
		_, ok := e.rule(n)
		assert.True(t, ok, "%q", n)
	}
	_, ok := e.rule("nextPageToken")
	assert.False(t, ok, "allow_keys wins")
	_, ok = defaultEngine(t).rule("nextPageToken")
	assert.True(t, ok, "without allow_keys a *token name is secret")
}

// TestKeyValueInText: the name=value forms text holds.
func TestKeyValueInText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"password=x1&user=bob", "password=" + m("password") + "&user=bob"},
		{"password: x1 rest", "password: " + m("password") + " rest"},
		{`"password":"a b c"`, `"password":"` + m("password") + `"`},
		{`'password': 'a b'`, `'password': '` + m("password") + `'`},
		{"password := `x`", "password := `" + m("password") + "`"},
		{`obj["api_key"] = "x"`, `obj["api_key"] = "` + m("password") + `"`},
		{"{password=a,b, user=c}", "{password=" + m("password") + ", user=c}"},
		{"(token=abc)", "(token=" + m("password") + ")"},
		{"session: {\"id\": \"x\", \"n\": [1]} tail", "session: " + m("session_id") + " tail"},
		{"password: true", "password: true"},
		{"password: null", "password: null"},
		{"password:\nnext", "password:\nnext"},
		{"password == other", "password == other"},
		{"password: \"unterminated", "password: \"" + m("password")},
		{"Set-Cookie: a=b; Path=/", "Set-Cookie: a=" + m("cookie") + "; Path=/"},
		{"Authorization: Digest username=\"x\", response=\"y\"\nnext", "Authorization: Digest " + m("password") + "\nnext"},
		{"Authorization: opaque123", "Authorization: " + m("password")},
		{"IBAN: DE89 3704 0044 0532 0130 00", "IBAN: " + m("iban")},
		{"token=Bearer abc123def456ghi", "token=Bearer " + m("bearer")},
		{"see note=Bearer%20abc123def456ghi", "see note=Bearer+" + m("bearer")},
		{"q=a%20b&r=c+d", "q=a%20b&r=c+d"},
	}
	e := defaultEngine(t)
	for _, tt := range tests {
		got, _, err := e.Text(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "in: %q", tt.in)
	}
}

// TestNothingSkipped: bytes between a trigger and its span are scanned.
func TestNothingSkipped(t *testing.T) {
	e := defaultEngine(t)
	got, _, err := e.Text("https://" + gh36 + ":x-oauth-basic@github.com/o/r")
	require.NoError(t, err)
	assert.Equal(t, "https://"+m("github_token")+":"+m("password")+"@github.com/o/r", got)
	got, _, err = e.Text("form-data; name=\"password\"\n" + awsKey + "\n\nhunter2\n--b")
	require.NoError(t, err)
	assert.Equal(t, "form-data; name=\"password\"\n"+m("aws_access_key")+"\n\n"+m("password")+"\n--b", got)
	got, _, err = e.Text("Authorization: sk_live_abcdefghij1234567 trailing")
	require.NoError(t, err)
	assert.Equal(t, "Authorization: "+m("password"), got, "an unknown scheme word is not kept")
}

// TestKebabNamesJudgedWhole: a dashed or dotted name is judged as a whole,
// not again from each of its sub-words.
func TestKebabNamesJudgedWhole(t *testing.T) {
	e := defaultEngine(t)
	for _, in := range []string{"max-tokens: 5", "input-tokens=7", "password.policy=strong", "session-timeout: 30"} {
		got, _, err := e.Text(in)
		require.NoError(t, err)
		assert.Equal(t, in, got)
	}
	got, _, err := e.Text("card-cvv 123 x-" + gh36 + "=1")
	require.NoError(t, err)
	assert.Equal(t, "card-cvv "+m("cvv")+" x-"+m("github_token")+"=1", got, "tokens inside a name are still found")
}

// TestTokenInsideLongerValue: a token that is only the start of a secret
// name's value does not let the rest through.
func TestTokenInsideLongerValue(t *testing.T) {
	e := defaultEngine(t)
	got, _, err := e.Text("password=" + openai + "!tail and more")
	require.NoError(t, err)
	assert.Equal(t, "password="+m("password")+" and more", got)
}
