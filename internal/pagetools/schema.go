package pagetools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Arguments are checked against the page's input schema before anyone is
// asked and before the page sees them (Chrome does not check them). The
// validator is google/jsonschema-go, the go-sdk's own, which builds
// nothing at init (a validator that compiles its meta-schemas at init
// costs every start of every mode, the stdio relay's included: issue 35).
// The schema is the page's: it is resolved with no loader at all, so a
// $ref naming a file or a URL fails instead of reading the user's disk or
// the network, and refs.go refuses what would make the validator recurse
// without end.

// maxSchema bounds a page's schema; maxArgs bounds the arguments sent.
const (
	maxSchema = 64 << 10
	maxArgs   = 64 << 10
)

// schemaURL names the page's schema inside the validator (never fetched).
const schemaURL = "urn:gasoline:page-tool-schema"

// maxMessage bounds the validator's message in an error: it may quote the
// page's schema, and an error is not fenced.
const maxMessage = 300

// checkArgs validates args (a JSON object) against the tool's schema. A
// tool without a schema takes any object. The error says what is wrong,
// in terms an agent can fix.
func checkArgs(schema, args []byte) (err error) {
	if len(args) > maxArgs {
		return fmt.Errorf("the arguments are %d bytes; page tools take at most %d", len(args), maxArgs)
	}
	defer func() { // the library asserts its invariants with panics
		if p := recover(); p != nil {
			err = &schemaError{fmt.Errorf("the validator failed on it: %v", p)}
		}
	}()
	inst, err := decodeArgs(args)
	if err != nil {
		return err
	}
	if _, ok := inst.(map[string]any); !ok {
		return errors.New("arguments must be a JSON object")
	}
	if len(schema) == 0 {
		return nil
	}
	rs, err := compile(schema)
	if err != nil {
		return &schemaError{err}
	}
	if err := rs.Validate(inst); err != nil {
		return fmt.Errorf("the arguments do not match the tool's input schema: %s", validationText(err))
	}
	return nil
}

// decodeArgs reads the arguments as the validator takes them: numbers as
// int64 when whole and in range, else float64.
func decodeArgs(args []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %v", err)
	}
	if d.More() {
		return nil, errors.New("the arguments are not JSON: more than one value")
	}
	return numbers(v)
}

func numbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("the number %.40s is out of range", x)
		}
		return f, nil
	case map[string]any:
		for k, e := range x {
			n, err := numbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		for i, e := range x {
			n, err := numbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}

// schemaError is a page schema Gasoline cannot use: the call is refused.
type schemaError struct{ err error }

func (e *schemaError) Error() string {
	return "the page's input schema for this tool is unusable (" + clip(e.err.Error(), maxMessage) + "); Gasoline does not call a tool it cannot check"
}

func compile(schema []byte) (*jsonschema.Resolved, error) {
	if len(schema) > maxSchema {
		return nil, fmt.Errorf("%d bytes, more than %d", len(schema), maxSchema)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	// The references are checked on the schema as the validator read it,
	// written back: its keywords are matched without regard to case
	// ("$rEf" is a $ref) and a repeated one keeps its last value.
	canonical, err := json.Marshal(&s)
	if err != nil {
		return nil, err
	}
	var raw any
	if err := json.Unmarshal(canonical, &raw); err != nil {
		return nil, err
	}
	if err := checkRefs(raw); err != nil {
		return nil, err
	}
	switch s.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema":
	default:
		return nil, fmt.Errorf("$schema %.80q: Gasoline checks JSON Schema draft 2020-12 and draft-07", s.Schema)
	}
	return s.Resolve(&jsonschema.ResolveOptions{BaseURI: schemaURL})
}

// validationText is the validator's message on one line, bounded, without
// the schema's internal URL.
func validationText(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	msg = strings.ReplaceAll(msg, schemaURL, "")
	return clip(msg, maxMessage)
}
