package redact

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSelfTest means a planted secret came out of the gateway unmasked.
var ErrSelfTest = errors.New("redact: self-test failed: a planted secret passed unmasked")

// planted is one self-test input and the secret part of it that must not
// come out.
type planted struct{ in, secret string }

// selfTestSecrets are planted values of classes the built-in policy always
// masks, assembled at run time (so no literal secret sits in the binary).
func selfTestSecrets() []planted {
	gh := "ghp_" + strings.Repeat("Zq3KxT9w", 4) + "Lm2V"
	bearer := strings.Repeat("s3lfT3st", 5)
	card := "4111 " + "1111 " + "1111 " + "1111"
	pw := strings.Repeat("hunter2", 3)
	return []planted{
		{"token " + gh, gh},
		{"Authorization: Bearer " + bearer, bearer},
		{"card " + card, card},
		{`{"password":"` + pw + `","user":"doctor"}`, pw},
	}
}

// SelfTest passes planted secrets through redact (a gateway's Text, or an
// engine's) and checks each comes out masked with its value gone. It is
// what `gasoline-host doctor` and configure doctor run: a policy that
// loads but masks nothing fails it.
func SelfTest(redact func(string) (string, error)) error {
	for i, p := range selfTestSecrets() {
		out, err := redact(p.in)
		if err != nil {
			return fmt.Errorf("redact: self-test: the gateway refused its input: %w", err)
		}
		if !strings.Contains(out, "[REDACTED:") || strings.Contains(out, p.secret) {
			return fmt.Errorf("%w (planted value %d of %d)", ErrSelfTest, i+1, len(selfTestSecrets()))
		}
	}
	return nil
}
