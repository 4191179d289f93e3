package main

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// negatives returns look-alikes that must survive redaction untouched.
func (g *gen) negatives() []Negative {
	var out []Negative
	add := func(kind string, values ...string) {
		for _, v := range values {
			out = append(out, Negative{Kind: kind, Value: v})
		}
	}
	g.numberNegatives(add)
	for range 8 {
		add("hex_id", g.pick(hexLower, 32))
	}
	for range 8 {
		u := g.pick(hexLower, 32)
		add("uuid", u[:8]+"-"+u[8:12]+"-4"+u[13:16]+"-a"+u[17:20]+"-"+u[20:])
	}
	for range 8 {
		add("git_sha", g.pick(hexLower, 40))
	}
	add("order_number", "ORD-2024-000123", "INV-20240611-0042", "PO 4500012345", "Order #112-3456789-1234567",
		"ticket JIRA-48213", "RMA 2024/06/118")
	add("timestamp", "1718035200000", "1718035200", "2024-06-10T12:34:56.789Z", "Mon, 10 Jun 2024 12:34:56 GMT",
		"1718035200123456789", "12:34:56.789")
	add("phone", "+1 415 555 0132", "(415) 555-0132", "+44 20 7946 0958", "+49 30 901820", "415-555-0132",
		"+33 1 42 68 53 00")
	add("word", "keyboard", "monkey", "keyframes", "turkey", "hotkey", "tokenizer", "secretary", "passport",
		"compass", "bypass", "donkey", "whiskey", "passenger", "sessions are great", "The password is required",
		"Forgot your password?", "Your session has expired", "Enter the token you received")
	add("key_value", "keyboard: qwerty", "monkey=banana", "keyframes: 3", "primary_key: id", "public_key=abc123",
		"token_type: Bearer", "max_tokens: 4096", "input_tokens=1200", "sessionStorage: 12 items",
		"password_policy: min 12 chars", "auth_url=https://auth.example.test/login", "hotkey=ctrl+k",
		"keyCode: 13", "sort_key=created_at", "cookie_consent=accepted", "author: Jane Doe", "tokenizer=bert",
		"token_count: 1234", "has_password: true", "sessionTimeout=30")
	add("css", "@keyframes spin { from { transform: rotate(0deg); } to { transform: rotate(360deg); } }",
		".keyboard-key:hover { color: #ff0000; }", "#monkey { margin: 0 auto; }")
	add("base64_image", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7",
		"data:image/svg+xml;base64,"+base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)))
	enc := base64.RawURLEncoding.EncodeToString
	add("not_jwt", enc([]byte(`{"foo":"bar"}`)), enc([]byte(`{"foo":"bar"}`))+"."+enc([]byte(`{"x":1}`))+"."+enc([]byte("signature")),
		"eyJ", "eyJhbGciOi")
	add("prose_prefix", "the sk-learn library", "sk-", "risk-free", "task-force-alpha", "sk-this-is-not-a-real-key-just-prose",
		"Use a Bearer token in the Authorization header", "Basic authentication is deprecated", "Basic HTML",
		"xoxo hugs", "ghp_short", "glpat-", "AIzaSy", "AKIA1234", "AKIAIOSFODNN7EXAMPLEX", "the github_pat_ prefix",
		"whsec_", "sk_live_", "bearer of bad news", "-----BEGIN SOMETHING-----")
	add("publishable", "pk_live_"+g.mixed(alnum, 24), "pk_test_"+g.mixed(alnum, 24), "pk_live_"+g.mixed(alnum, 99))
	add("bad_iban", "DE89370400440532013001", "GB82WEST12345698765433", "FR7630006000011234567890188",
		"XX12345678901234", "DE89 3704 0044 0532 0130 01", "NL91ABNA0417164301")
	add("pem_public", "-----BEGIN CERTIFICATE-----\nMIIB"+g.pick(b64, 60)+"\n-----END CERTIFICATE-----",
		"-----BEGIN PUBLIC KEY-----\nMFkw"+g.pick(b64, 60)+"\n-----END PUBLIC KEY-----")
	add("misc", "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "192.168.1.10", "2001:db8::1",
		"00:1A:2B:3C:4D:5E", "1.2.3-beta.4", "37.7749,-122.4194", "978-3-16-148410-0", "94103-1234",
		"https://example.test/search?q=keyboard&page=2", "https://example.test/item?id=550e8400-e29b-41d4-a716-446655440000",
		"mailto:help@example.test", "https://example.test:8443/a/b@c", "rgba(255, 0, 0, 0.5)", "v=spf1 include:_spf.example.test ~all")
	return out
}

// numberNegatives: numbers that look like cards but are not.
func (g *gen) numberNegatives(add func(string, ...string)) {
	bad := func(prefix string, n int) string {
		d := []byte(g.luhnNumber(prefix, n))
		d[n-1] = '0' + (d[n-1]-'0'+1)%10
		return string(d)
	}
	for i := range 14 {
		add("non_luhn", bad([]string{"4", "51", "55", "37", "6011", "2221", "35"}[i%7], []int{16, 16, 16, 15, 16, 16, 16}[i%7]))
	}
	for range 4 {
		d := bad("4", 16)
		add("non_luhn", d[:4]+" "+d[4:8]+" "+d[8:12]+" "+d[12:])
	}
	for _, p := range []string{"1", "7", "8", "9", "0", "1"} {
		add("bad_iin", g.luhnNumber(p, 16))
	}
	add("short", g.luhnNumber("4", 12), g.luhnNumber("4", 11), g.luhnNumber("5", 10))
	add("long", g.luhnNumber("4", 20), g.luhnNumber("5", 24))
	for range 3 {
		add("float", "0."+g.luhnNumber("4", 16))
	}
	add("glued", "id4"+g.luhnNumber("4", 16)[1:], g.luhnNumber("4", 16)+"px", "v"+g.luhnNumber("5", 16))
	add("thousands", fmt.Sprintf("%s,%s", g.digitsN(3), g.luhnNumber("4", 16)))
	add("grouped_small", strings.Join([]string{"4", "5", "6", "7", "8", "9", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, " "))
}
