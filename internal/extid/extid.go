// Package extid pins the Gasoline extension's identity. The ID is derived
// from the public key committed in extension/manifest.json (see FromKey); a
// test keeps the two in step.
package extid

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// ID is the Chrome extension ID of the unpacked and the distributed
// extension alike, pinned by the manifest's "key".
const ID = "efmkjhahfhlpnniaiinagccopblhbdkc"

// Origin is the caller origin Chrome passes to a native host, with the
// trailing slash native-host manifests require.
const Origin = "chrome-extension://" + ID + "/"

// FromKey computes an extension ID from a manifest "key": the base64 DER
// SubjectPublicKeyInfo. Chrome takes the first 16 bytes of its SHA-256 and
// spells each nibble with the letters a-p.
func FromKey(b64 string) (string, error) {
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", fmt.Errorf("extid: decoding manifest key: %w", err)
	}
	sum := sha256.Sum256(der)
	hx := hex.EncodeToString(sum[:16])
	var b strings.Builder
	for _, c := range hx {
		if c >= '0' && c <= '9' {
			b.WriteByte(byte('a' + (c - '0')))
		} else {
			b.WriteByte(byte('a' + 10 + (c - 'a')))
		}
	}
	return b.String(), nil
}

// IsOrigin reports whether origin is exactly the pinned extension origin
// (a missing trailing slash is tolerated; nothing else is).
func IsOrigin(origin string) bool {
	return origin == Origin || origin == strings.TrimSuffix(Origin, "/")
}
