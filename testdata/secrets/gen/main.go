// Command gen writes the synthetic secret corpus used by the redaction
// tests: corpus.json (values that must be redacted) and negatives.json
// (look-alikes that must survive byte for byte). Every value is fake but
// shape-valid: Luhn-valid card numbers, mod-97-valid IBANs, JWTs whose header
// decodes to {"alg":…}, and so on. Output is deterministic (fixed seed), so
// re-running it only changes the files when the generator changes.
//
//	go run ./testdata/secrets/gen -out testdata/secrets
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Entry is one corpus value. Value is what gets planted; Secret is the part
// that must never appear in any output (Value itself when the whole value is
// secret, the bare value of "password=…" forms, a key's body line, …).
type Entry struct {
	Class  string `json:"class"`
	Value  string `json:"value"`
	Secret string `json:"secret"`
}

// Negative is one look-alike that must come out unchanged.
type Negative struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

func main() {
	out := flag.String("out", "testdata/secrets", "directory to write corpus.json and negatives.json to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	g := &gen{r: rand.New(rand.NewPCG(0x6a5, 0x11e))}
	corpus := g.corpus()
	negatives := g.negatives()
	if err := write(filepath.Join(dir, "corpus.json"), corpus); err != nil {
		return err
	}
	return write(filepath.Join(dir, "negatives.json"), negatives)
}

// write stores v as JSON, one entry per line, without HTML escaping.
func write[T any](path string, v []T) error {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, e := range v {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e); err != nil {
			return err
		}
		b.WriteString("  ")
		b.Write(bytes.TrimRight(line.Bytes(), "\n"))
		if i < len(v)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// gen draws from a seeded source.
type gen struct{ r *rand.Rand }

const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	b64url   = alnum + "-_"
	b64      = alnum + "+/"
	hexLower = "0123456789abcdef"
	pwChars  = alnum + "!@#$^*_-"
)

// pick returns n bytes drawn from chars.
func (g *gen) pick(chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.r.IntN(len(chars))]
	}
	return string(b)
}

// mixed returns n bytes from chars holding an upper-case letter, a
// lower-case letter and a digit, as real random keys do.
func (g *gen) mixed(chars string, n int) string {
	for {
		s := g.pick(chars, n)
		if strings.ContainsAny(s, upper) && strings.ContainsAny(s, lower) && strings.ContainsAny(s, digits) &&
			!strings.HasSuffix(s, "-") && !strings.HasSuffix(s, "_") {
			return s
		}
	}
}

// between returns an int in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// digitsN returns n random digits.
func (g *gen) digitsN(n int) string { return g.pick(digits, n) }

// luhnDigit returns the check digit that makes body+digit Luhn-valid.
func luhnDigit(body string) byte {
	sum := 0
	for i := len(body) - 1; i >= 0; i-- {
		v := int(body[i] - '0')
		if (len(body)-1-i)%2 == 0 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return byte('0' + (10-sum%10)%10)
}

// luhnNumber returns a Luhn-valid number of n digits starting with prefix.
func (g *gen) luhnNumber(prefix string, n int) string {
	body := prefix + g.digitsN(n-len(prefix)-1)
	return body + string(luhnDigit(body))
}

// group joins digits in groups of the given sizes with sep.
func group(d string, sep string, sizes ...int) string {
	var parts []string
	for _, n := range sizes {
		parts = append(parts, d[:n])
		d = d[n:]
	}
	if d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, sep)
}

// ibanCheck returns the two check digits for country+bban (ISO 13616).
func ibanCheck(country, bban string) string {
	r := 0
	for _, c := range bban + country + "00" {
		if c >= 'A' && c <= 'Z' {
			r = (r*100 + int(c-'A') + 10) % 97
		} else {
			r = (r*10 + int(c-'0')) % 97
		}
	}
	return fmt.Sprintf("%02d", 98-r)
}
