package pagetools

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer words the validator's messages.
var printer = message.NewPrinter(language.English)

// Arguments are checked against the page's input schema before anyone is
// asked and before the page sees them (Chrome does not check them). The
// schema is the page's: it is compiled with no loader at all, so a $ref
// or $schema naming a file or a URL fails instead of reading the user's
// disk or the network; only the JSON Schema meta-schemas (built into the
// library) resolve.

// maxSchema bounds a page's schema; maxArgs bounds the arguments sent.
const (
	maxSchema = 64 << 10
	maxArgs   = 64 << 10
)

// schemaURL names the page's schema inside the compiler (never fetched).
const schemaURL = "urn:gasoline:page-tool-schema"

// errNoLoad refuses every resource the page's schema points at.
var errNoLoad = errors.New("Gasoline does not load schemas a page points at")

type noLoader struct{}

func (noLoader) Load(string) (any, error) { return nil, errNoLoad }

// checkArgs validates args (a JSON object) against the tool's schema. A
// tool without a schema takes any object. The error says what is wrong,
// in terms an agent can fix.
func checkArgs(schema, args []byte) error {
	if len(args) > maxArgs {
		return fmt.Errorf("the arguments are %d bytes; page tools take at most %d", len(args), maxArgs)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("the arguments are not JSON: %v", err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return errors.New("arguments must be a JSON object")
	}
	if len(schema) == 0 {
		return nil
	}
	sch, err := compile(schema)
	if err != nil {
		return &schemaError{err}
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("the arguments do not match the tool's input schema: %s", validationText(err))
	}
	return nil
}

// schemaError is a page schema Gasoline cannot use: the call is refused.
type schemaError struct{ err error }

func (e *schemaError) Error() string {
	return "the page's input schema for this tool is unusable (" + e.err.Error() + "); Gasoline does not call a tool it cannot check"
}

func compile(schema []byte) (*jsonschema.Schema, error) {
	if len(schema) > maxSchema {
		return nil, fmt.Errorf("%d bytes, more than %d", len(schema), maxSchema)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// validationText is the validator's message, one line, without the
// schema's internal URL.
func validationText(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			parts = append(parts, fmt.Sprintf("at %s: %s", at, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return strings.Join(parts, "; ")
}
