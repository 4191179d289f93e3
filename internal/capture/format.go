package capture

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// remoteObject is the part of a Runtime.RemoteObject that formatting reads.
type remoteObject struct {
	typ, subtype, className, desc, unser string
	value, preview                       gjson.Result
}

func readObject(a gjson.Result) remoteObject {
	var o remoteObject
	a.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			o.typ = v.Str
		case "subtype":
			o.subtype = v.Str
		case "className":
			o.className = v.Str
		case "description":
			o.desc = v.Str
		case "unserializableValue":
			o.unser = v.Str
		case "value":
			o.value = v
		case "preview":
			o.preview = v
		}
		return true
	})
	return o
}

// formatArgs renders console arguments as DevTools prints them: a format
// string first substitutes the arguments it names, the rest follow
// separated by spaces. The text is cut at max bytes.
func formatArgs(args []gjson.Result, max int) (string, bool) {
	tb := textBuilder{max: max}
	rest, sep := args, false
	if len(args) > 0 {
		if first := readObject(args[0]); first.typ == "string" && strings.IndexByte(first.value.Str, '%') >= 0 {
			rest, sep = tb.substitute(first.value.Str, args[1:]), true
		}
	}
	for _, a := range rest {
		if tb.full() {
			break
		}
		if sep {
			tb.str(" ")
		}
		tb.object(readObject(a))
		sep = true
	}
	return tb.String(), tb.cut
}

// substitute writes format with its %s %d %i %f %o %O %c directives replaced
// by the arguments, and returns the arguments left over.
func (tb *textBuilder) substitute(format string, args []gjson.Result) []gjson.Result {
	for !tb.full() {
		j := strings.IndexByte(format, '%')
		if j < 0 || j == len(format)-1 {
			tb.str(format)
			break
		}
		tb.str(format[:j])
		verb, directive := format[j+1], format[j:j+2]
		format = format[j+2:]
		switch {
		case verb == '%':
			tb.str("%")
		case strings.IndexByte("sdifoOc", verb) < 0 || len(args) == 0:
			tb.str(directive)
		default:
			o := readObject(args[0])
			args = args[1:]
			switch verb {
			case 's', 'o', 'O':
				tb.object(o)
			case 'd', 'i':
				tb.str(numberText(o, true))
			case 'f':
				tb.str(numberText(o, false))
			} // %c styles the text; DevTools drops it from the output.
		}
	}
	return args
}

// numberText renders a number argument for %d/%i (integer) or %f.
func numberText(o remoteObject, integer bool) string {
	switch {
	case o.typ == "number" && o.value.Type == gjson.Number:
		if integer {
			return strconv.FormatFloat(math.Trunc(o.value.Num), 'f', -1, 64)
		}
		return strconv.FormatFloat(o.value.Num, 'f', -1, 64)
	case o.typ == "bigint" && o.unser != "":
		return strings.TrimSuffix(o.unser, "n")
	case o.typ == "number" && o.unser != "":
		return o.unser
	}
	return "NaN"
}

// maxFunctionText bounds a function's rendering (its description is its
// source).
const maxFunctionText = 120

// object renders one argument.
func (tb *textBuilder) object(o remoteObject) {
	switch o.typ {
	case "string":
		tb.str(o.value.Str)
	case "undefined":
		tb.str("undefined")
	case "function":
		f, _ := truncate(firstLine(o.desc), maxFunctionText)
		tb.str(f)
	case "object":
		switch {
		case o.subtype == "null":
			tb.str("null")
		case o.subtype == "error":
			tb.str(o.desc) // message and stack
		case o.preview.IsObject():
			tb.preview(o.preview)
		case o.value.Exists():
			tb.str(o.value.Raw)
		default:
			tb.str(firstNonEmpty(o.desc, o.className, "Object"))
		}
	default: // number, boolean, bigint, symbol
		tb.str(firstNonEmpty(o.unser, o.desc, o.value.String()))
	}
}

// preview renders a Runtime.ObjectPreview: {a: 1, b: "x"}, [1, 2, 3] or
// Map(1) {"k" => 1}. Each object is walked once (gjson's Get rescans).
func (tb *textBuilder) preview(p gjson.Result) {
	var subtype, desc string
	var overflow bool
	var props, entries gjson.Result
	p.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "subtype":
			subtype = v.Str
		case "description":
			desc = v.Str
		case "overflow":
			overflow = v.Bool()
		case "properties":
			props = v
		case "entries":
			entries = v
		}
		return true
	})
	n := 0
	sep := func() {
		if n > 0 {
			tb.str(", ")
		}
		n++
	}
	array := subtype == "array" || subtype == "typedarray"
	switch {
	case array:
		tb.str("[")
		props.ForEach(func(_, pr gjson.Result) bool {
			sep()
			_, typ, value := readProperty(pr)
			tb.propValue(typ, value)
			return !tb.full()
		})
	case subtype == "map" || subtype == "set" || subtype == "weakmap" || subtype == "weakset":
		tb.str(desc)
		tb.str(" {")
		entries.ForEach(func(_, en gjson.Result) bool {
			sep()
			if k := en.Get("key.description"); k.Exists() {
				tb.str(k.Str)
				tb.str(" => ")
			}
			tb.str(en.Get("value.description").Str)
			return !tb.full()
		})
	default:
		if desc != "" && desc != "Object" {
			tb.str(desc)
			tb.str(" ")
		}
		tb.str("{")
		props.ForEach(func(_, pr gjson.Result) bool {
			sep()
			name, typ, value := readProperty(pr)
			tb.str(name)
			tb.str(": ")
			tb.propValue(typ, value)
			return !tb.full()
		})
	}
	if overflow {
		sep()
		tb.str(ellipsis)
	}
	if array {
		tb.str("]")
	} else {
		tb.str("}")
	}
}

// readProperty reads a Runtime.PropertyPreview's name, type and value.
func readProperty(pr gjson.Result) (name, typ, value string) {
	pr.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			name = v.Str
		case "type":
			typ = v.Str
		case "value":
			value = v.Str
		}
		return true
	})
	return name, typ, value
}

// propValue renders a property preview's value: strings quoted.
func (tb *textBuilder) propValue(typ, value string) {
	switch typ {
	case "string":
		tb.str(`"`)
		tb.str(value)
		tb.str(`"`)
	case "accessor":
		tb.str("(...)")
	default:
		tb.str(value)
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
