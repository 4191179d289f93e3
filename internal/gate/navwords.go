package gate

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// What a navigation prompt says (navigate, new_tab): the whole address —
// query and fragment too, the secrets in it masked by the redaction
// gateway afterwards and named here — and in words whether it leaves the
// site the tab shows and whether it carries data to another origin.

// maxLineURL is the longest address the prompt's target line holds; a
// longer one is shown whole in Detail.
const maxLineURL = 600

// navWords are the words of a navigation to dest from the page the tab
// shows now (from; "" for a new tab or a tab with no page yet). redact is
// the server stage of the redaction gateway: the notes name the query
// parameters it masks.
func navWords(verb, dest, from string, redact func(string) (string, error)) (Words, error) {
	var w Words
	if strings.EqualFold(strings.TrimSpace(dest), "about:blank") || dest == "" {
		w.Target = verb + " a blank page (about:blank)"
		return w, nil
	}
	u, err := url.Parse(dest)
	if err != nil {
		return w, err
	}
	w.Target = verb + " " + dest
	if len(dest) > maxLineURL {
		w.Target = fmt.Sprintf("%s an address of %d characters on %s (shown whole below)", verb, len(dest), originText(u))
		w.Detail, w.DetailLabel = dest, "The whole address"
	}
	w.Notes = append(w.Notes, siteNote(u, from))
	secrets, err := maskedParams(u, redact)
	if err != nil {
		return w, err
	}
	w.Notes = append(w.Notes, dataNote(u, from, secrets))
	return w, nil
}

// siteNote says whether the navigation leaves the site the tab shows.
func siteNote(u *url.URL, from string) string {
	to := originText(u)
	f, err := url.Parse(from)
	if from == "" || err != nil || f.Host == "" {
		return fmt.Sprintf("It opens %s (%s).", to, siteText(u))
	}
	switch {
	case sameOrigin(u, f):
		return fmt.Sprintf("It stays on %s, the page's own origin.", to)
	case site(u) == site(f):
		return fmt.Sprintf("It goes to %s, another origin of the same site as the page (%s).", to, siteText(u))
	}
	return fmt.Sprintf("It leaves the site the tab shows (%s) for another site: %s.", siteText(f), siteText(u))
}

// dataNote says whether the address carries data to another origin: its
// path, query parameters (by name, the masked ones named as secrets) and
// fragment.
func dataNote(u *url.URL, from string, secrets []string) string {
	var parts []string
	if p := u.EscapedPath(); p != "" && p != "/" {
		parts = append(parts, "the path "+p)
	}
	if names := paramNames(u); len(names) > 0 {
		parts = append(parts, "query parameters "+strings.Join(names, ", "))
	}
	if u.Fragment != "" || u.RawFragment != "" {
		parts = append(parts, fmt.Sprintf("a fragment (#) of %d characters", len(u.EscapedFragment())))
	}
	secretText := ""
	if len(secrets) > 0 {
		secretText = fmt.Sprintf(" The address holds %s (%s), masked here.", plural(len(secrets), "secret", "secrets"), strings.Join(secrets, ", "))
	}
	f, err := url.Parse(from)
	cross := from == "" || err != nil || !sameOrigin(u, f)
	switch {
	case len(parts) == 0:
		return "It carries no data in the address beyond the site it names." + secretText
	case cross:
		return fmt.Sprintf("It carries data to %s, another origin than the page's, in the address: %s.", originText(u), strings.Join(parts, "; ")) + secretText
	}
	return fmt.Sprintf("It carries data only to the page's own origin, in the address: %s.", strings.Join(parts, "; ")) + secretText
}

// maskedParams are the names of the query parameters (and fragment
// parameters) whose values the redaction gateway masks: the secrets the
// address carries.
func maskedParams(u *url.URL, redact func(string) (string, error)) ([]string, error) {
	var out []string
	for _, raw := range []string{u.RawQuery, u.EscapedFragment()} {
		q, err := url.ParseQuery(raw)
		if err != nil {
			continue
		}
		for name, vals := range q {
			for _, v := range vals {
				if v == "" {
					continue
				}
				red, err := redact(name + "=" + v)
				if err != nil {
					return nil, err
				}
				if red != name+"="+v {
					out = append(out, name)
					break
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func paramNames(u *url.URL) []string {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil || len(q) == 0 {
		if u.RawQuery != "" {
			return []string{fmt.Sprintf("(%d characters)", len(u.RawQuery))}
		}
		return nil
	}
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// site is a URL's site as browsers count it: its scheme and registrable
// domain (eTLD+1; a bare IP address or a one-label host is its own site).
// Ports do not count.
func site(u *url.URL) string {
	h := strings.ToLower(u.Hostname())
	if net.ParseIP(h) == nil && strings.Contains(h, ".") {
		if d, err := publicsuffix.EffectiveTLDPlusOne(h); err == nil {
			h = d
		}
	}
	return strings.ToLower(u.Scheme) + "://" + h
}

func siteText(u *url.URL) string { return site(u) }

func originText(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
