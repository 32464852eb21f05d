package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
)

// schema is the part of JSON Schema a `format` may use that the oracle
// honours when it writes a reply: types, required properties, enums,
// string lengths and patterns, number ranges and array sizes.
type schema struct {
	Type       json.RawMessage    `json:"type"` // a name, or a list of names
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	Enum       []any              `json:"enum"`
	Const      any                `json:"const"`
	MinLength  *int               `json:"minLength"`
	MaxLength  *int               `json:"maxLength"`
	Pattern    string             `json:"pattern"`
	MinItems   *int               `json:"minItems"`
	MaxItems   *int               `json:"maxItems"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
}

// parseFormat reads a request's `format`: nil when there is none, a free
// object schema for the plain "json" format.
func parseFormat(raw json.RawMessage) (*schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("format: %w", err)
		}
		if s != "json" {
			return nil, fmt.Errorf("format %q: want \"json\" or a JSON schema", s)
		}
		return &schema{Type: json.RawMessage(`"object"`)}, nil
	}
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("format: not a JSON schema: %w", err)
	}
	return &s, nil
}

// kind is the schema's type; of a list of types, the first that is not
// "null"; with no type, what the other keywords imply.
func (s *schema) kind() string {
	if len(s.Type) > 0 {
		var one string
		if json.Unmarshal(s.Type, &one) == nil {
			return one
		}
		var many []string
		if json.Unmarshal(s.Type, &many) == nil {
			for _, t := range many {
				if t != "null" {
					return t
				}
			}
		}
	}
	switch {
	case s.Properties != nil:
		return "object"
	case s.Items != nil:
		return "array"
	case len(s.Enum) > 0:
		return "string"
	}
	return "object"
}

// has reports whether an object schema declares a property.
func (s *schema) has(prop string) bool {
	if s == nil {
		return false
	}
	_, ok := s.Properties[prop]
	return ok
}

// field is one property of an ordered object.
type field struct {
	Key   string
	Value any
}

// object is a JSON object that keeps its keys in order, so a reply reads
// like a model's: the schema's required order.
type object []field

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// set replaces a field's value, if the object has the field.
func (o object) set(key string, v any) {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = v
		}
	}
}

// put sets a key, adding it first when the object lacks it.
func (o object) put(key string, v any) object {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = v
			return o
		}
	}
	return append(object{{Key: key, Value: v}}, o...)
}

// marshal encodes without escaping <, > and & (a model would not).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// voice says what to write: a string property's text, a list property's
// items and a number property's value, each by the property's name. Any of
// them may be nil.
type voice struct {
	text   func(prop string) string
	list   func(prop string) []string
	number func(prop string) float64
}

// generate makes a value that satisfies s: every required property of an
// object, strings from the voice fitted to the schema's limits, numbers
// within their range, booleans false, arrays of their minimum size (or of
// the items the voice offers for a list, within the maximum).
func generate(s *schema, prop string, v voice, depth int) (any, error) {
	if depth > 16 {
		return nil, fmt.Errorf("schema nests too deeply at %q", prop)
	}
	if s.Const != nil {
		return s.Const, nil
	}
	if len(s.Enum) > 0 {
		return s.Enum[0], nil
	}
	switch s.kind() {
	case "object":
		var o object
		seen := map[string]bool{}
		keys := append([]string(nil), s.Required...)
		for _, k := range keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			ps := s.Properties[k]
			if ps == nil {
				ps = &schema{Type: json.RawMessage(`"string"`)}
			}
			val, err := generate(ps, k, v, depth+1)
			if err != nil {
				return nil, err
			}
			o = append(o, field{Key: k, Value: val})
		}
		if o == nil {
			o = object{}
		}
		return o, nil
	case "array":
		n := 0
		if s.MinItems != nil {
			n = *s.MinItems
		}
		items := s.Items
		if items == nil {
			items = &schema{Type: json.RawMessage(`"string"`)}
		}
		out := []any{}
		if items.kind() == "string" && len(items.Enum) == 0 && v.list != nil {
			for _, t := range v.list(prop) {
				if s.MaxItems != nil && len(out) >= *s.MaxItems {
					break
				}
				str, err := fitString(items, t)
				if err != nil {
					return nil, err
				}
				out = append(out, str)
			}
		}
		for len(out) < n {
			val, err := generate(items, prop, v, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, val)
		}
		return out, nil
	case "string":
		t := ""
		if v.text != nil {
			t = v.text(prop)
		}
		return fitString(s, t)
	case "integer":
		return integer(s, num(v, prop)), nil
	case "number":
		return clamp(s, num(v, prop)), nil
	case "boolean":
		return false, nil
	case "null":
		return nil, nil
	}
	return nil, fmt.Errorf("property %q: unsupported type %q", prop, s.kind())
}

func num(v voice, prop string) float64 {
	if v.number == nil {
		return 0
	}
	return v.number(prop)
}

// integer is the whole number nearest v within the schema's range.
func integer(s *schema, v float64) int64 {
	n := math.Round(clamp(s, v))
	if s.Minimum != nil && n < *s.Minimum {
		n = math.Ceil(*s.Minimum)
	}
	if s.Maximum != nil && n > *s.Maximum {
		n = math.Floor(*s.Maximum)
	}
	return int64(n)
}

// clamp brings v into the schema's range.
func clamp(s *schema, v float64) float64 {
	if s.Minimum != nil && v < *s.Minimum {
		v = *s.Minimum
	}
	if s.Maximum != nil && v > *s.Maximum {
		v = *s.Maximum
	}
	return v
}

// fitString makes text satisfy a string schema: cut to maxLength, padded
// to minLength, and, when there is a pattern, the first of a few candidate
// spellings that matches it. A pattern none of them matches is an error,
// never a reply that breaks the schema.
func fitString(s *schema, text string) (string, error) {
	if len(s.Enum) > 0 {
		if str, ok := s.Enum[0].(string); ok {
			return str, nil
		}
	}
	fit := func(t string) string {
		r := []rune(t)
		if s.MaxLength != nil && len(r) > *s.MaxLength {
			r = []rune(strings.TrimSpace(string(r[:*s.MaxLength])))
		}
		for s.MinLength != nil && len(r) < *s.MinLength {
			r = append(r, '.')
		}
		return string(r)
	}
	if s.Pattern == "" {
		return fit(text), nil
	}
	re, err := regexp.Compile(s.Pattern)
	if err != nil {
		return "", fmt.Errorf("pattern %q: %w", s.Pattern, err)
	}
	lower := strings.ToLower(text)
	words := strings.Fields(lower)
	first := "none"
	if len(words) > 0 {
		first = strings.Trim(words[0], ".,;:!?")
	}
	candidates := []string{text, lower, strings.Trim(lower, "."), first, "none", "look", "a", "0", "1", "yes", "no", ""}
	for _, c := range candidates {
		if f := fit(c); re.MatchString(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("no reply found that matches the pattern %q", s.Pattern)
}
