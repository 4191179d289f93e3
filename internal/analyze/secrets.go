package analyze

import (
	"net/url"
	"sort"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// Secrets are found with the redaction engine in force, so security_audit
// flags exactly what redaction would hide: the same value patterns and
// secret key names, the same user patterns. Only a key's name and the
// class of secret are ever reported, never the value.

var markerRE = lazyRE(`\[REDACTED:([a-z0-9_]+)\]`)

// standIn stands for a marker while a URL is parsed.
const standIn = "GASOLINExREDACTEDx"

var standInRE = lazyRE(standIn + `([a-z0-9_]+)` + standIn)

// secretClass returns the class of secret the engine finds in value under
// key (a storage item, a cookie name with a probe value), or "".
func secretClass(e *redact.Engine, key, value string) string {
	_, st, err := e.Value(map[string]any{key: value})
	if err != nil {
		return "unscannable" // too large or malformed: flagged, never shown
	}
	return topClass(st)
}

// secretName reports the class of secret a name holds by its name alone
// (a cookie called session_id), or "".
func secretName(e *redact.Engine, name string) string {
	return secretClass(e, name, "gasoline-probe-value")
}

func topClass(st redact.Stats) string {
	if st.Redacted == 0 {
		return ""
	}
	names := make([]string, 0, len(st.ByClass))
	for k := range st.ByClass {
		names = append(names, k)
	}
	sort.Strings(names)
	return names[0]
}

// urlSecret is a secret in a URL: the query or fragment parameter that
// holds it ("(path)" or "(userinfo)" when it sits there), and its class.
type urlSecret struct {
	Key, Class string
}

// urlSecrets finds the secrets in u (already redacted URLs carry markers,
// which count as found), and returns u with every query and fragment
// value dropped and secrets in the path redacted: safe to name where the
// secret was.
func urlSecrets(e *redact.Engine, u string) ([]urlSecret, string) {
	red, _, err := e.URL(u)
	if err != nil {
		return []urlSecret{{Key: "(url)", Class: "unscannable"}}, "(a URL too large to scan)"
	}
	// A marker is not valid in every part of a URL (userinfo): parse with
	// a stand-in that is.
	p, err := url.Parse(markerRE().ReplaceAllString(red, standIn+"${1}"+standIn))
	if err != nil {
		return []urlSecret{{Key: "(url)", Class: "unparsable"}}, "(a URL that does not parse)"
	}
	var out []urlSecret
	add := func(key, s string) {
		for _, m := range standInRE().FindAllStringSubmatch(s, -1) {
			out = append(out, urlSecret{Key: key, Class: m[1]})
		}
	}
	if p.User != nil {
		add("(userinfo)", p.User.String())
	}
	add("(path)", p.Path)
	for _, raw := range []string{p.RawQuery, p.Fragment} {
		q, _ := url.ParseQuery(raw)
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(k, strings.Join(q[k], " "))
		}
	}
	where := p.Scheme + "://" + p.Host + standInRE().ReplaceAllString(p.Path, "[REDACTED:$1]")
	if p.RawQuery != "" {
		where += "?…"
	}
	return out, where
}
