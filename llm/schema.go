package llm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Schema is the JSON Schema subset Lantern sends in `format` and checks
// replies against: objects with required properties, strings (maxLength,
// enum), numbers and integers (minimum, maximum), booleans, arrays (maxItems).
// It is generated from Go types:
//
//	type Proposal struct {
//		Reasoning string `json:"reasoning" maxLength:"600" desc:"why"`
//		Action    string `json:"action" maxLength:"80"`
//		Mood      string `json:"mood" enum:"calm,bold"`
//		Score     float64 `json:"score" minimum:"-1" maximum:"1"`
//	}
//
// Every field is required, so that grammar-constrained decoding always
// yields the whole object, except one tagged optional:"true": a part the
// reply may lack, or get wrong, without the rest being lost (a part that
// does not match is left out; decode it into a pointer to tell). An
// embedded struct's fields count as the object's own. Bounded strings keep
// small models from rambling.
type Schema struct {
	Type        string             `json:"type"`
	Description string             `json:"description,omitempty"`
	Properties  map[string]*Schema `json:"properties,omitempty"`
	Required    []string           `json:"required,omitempty"`
	Items       *Schema            `json:"items,omitempty"`
	Enum        []string           `json:"enum,omitempty"`
	MaxLength   *int               `json:"maxLength,omitempty"`
	Pattern     string             `json:"pattern,omitempty"`
	MaxItems    *int               `json:"maxItems,omitempty"`
	Minimum     *float64           `json:"minimum,omitempty"`
	Maximum     *float64           `json:"maximum,omitempty"`
	order       []string           // property order, for stable JSON
}

// MarshalJSON writes properties in declaration order.
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	if s.Properties == nil {
		return json.Marshal((*plain)(s))
	}
	var b strings.Builder
	b.WriteString(`{"type":"object"`)
	if s.Description != "" {
		d, _ := json.Marshal(s.Description)
		b.WriteString(`,"description":`)
		b.Write(d)
	}
	b.WriteString(`,"properties":{`)
	for i, k := range s.order {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		vj, err := json.Marshal(s.Properties[k])
		if err != nil {
			return nil, err
		}
		b.Write(kj)
		b.WriteByte(':')
		b.Write(vj)
	}
	b.WriteString(`},"required":`)
	rj, _ := json.Marshal(s.Required)
	b.Write(rj)
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// SchemaOf builds the schema of a Go value's type.
func SchemaOf(v any) (*Schema, error) {
	return schemaOf(reflect.TypeOf(v), 0)
}

func schemaOf(t reflect.Type, depth int) (*Schema, error) {
	if depth > 8 {
		return nil, fmt.Errorf("schema: type nests too deeply")
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &Schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaOf(t.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Struct:
		s := &Schema{Type: "object", Properties: map[string]*Schema{}, Required: []string{}}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				// An embedded struct's fields are the object's own, as
				// encoding/json decodes them.
				inner, err := schemaOf(f.Type, depth+1)
				if err != nil {
					return nil, err
				}
				for _, k := range inner.order {
					s.Properties[k] = inner.Properties[k]
					s.order = append(s.order, k)
				}
				s.Required = append(s.Required, inner.Required...)
				continue
			}
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ps, err := schemaOf(f.Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("schema: field %s: %w", f.Name, err)
			}
			tagged := ps
			if ps.Type == "array" && ps.Items != nil && ps.Items.Type == "string" {
				tagged = ps.Items // a list of strings: the string tags describe its items
			}
			if err := applyTags(tagged, f.Tag); err != nil {
				return nil, fmt.Errorf("schema: field %s: %w", f.Name, err)
			}
			if tagged != ps {
				ps.MaxItems, ps.Description = tagged.MaxItems, tagged.Description
				tagged.MaxItems, tagged.Description = nil, ""
			}
			s.Properties[name] = ps
			s.order = append(s.order, name)
			if f.Tag.Get("optional") != "true" {
				s.Required = append(s.Required, name)
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("schema: unsupported type %s", t)
}

func applyTags(s *Schema, tag reflect.StructTag) error {
	s.Description = tag.Get("desc")
	s.Pattern = tag.Get("pattern")
	if e := tag.Get("enum"); e != "" {
		s.Enum = strings.Split(e, ",")
	}
	num := func(name string) (*float64, error) {
		v := tag.Get(name)
		if v == "" {
			return nil, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("tag %s=%q: %w", name, v, err)
		}
		return &f, nil
	}
	var err error
	if s.Minimum, err = num("minimum"); err != nil {
		return err
	}
	if s.Maximum, err = num("maximum"); err != nil {
		return err
	}
	for _, k := range []struct {
		name string
		dst  **int
	}{{"maxLength", &s.MaxLength}, {"maxItems", &s.MaxItems}} {
		if v := tag.Get(k.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("tag %s=%q: %w", k.name, v, err)
			}
			*k.dst = &n
		}
	}
	return nil
}

// Validate checks a decoded JSON value against the schema and names the
// first problem with its path ("action: missing").
// An optional property (not in Required) that does not match is removed
// from v instead: the reply keeps the rest. A property the schema does not
// have (a field the request did not ask for) is removed too: it is the
// model's noise, never read and never an error.
func (s *Schema) Validate(v any) error {
	_, err := s.check(v)
	return err
}

// checked is what a check did to a reply besides accepting it.
type checked struct {
	pruned  bool     // an optional property or an unknown field was removed
	ignored []string // the unknown fields removed, by path
}

// check is Validate, reporting what it removed.
func (s *Schema) check(v any) (checked, error) {
	var c checked
	err := s.validate(v, "reply", &c)
	return c, err
}

func (s *Schema) validate(v any, path string, c *checked) error {
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", path, kindOf(v))
		}
		for _, k := range s.Required {
			if _, ok := m[k]; !ok {
				return fmt.Errorf("%s.%s: missing", path, k)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, ok := s.Properties[k]
			if !ok {
				// Not asked for: left out, so that it cannot reach the
				// decoded value either (encoding/json matches names
				// without regard to case).
				delete(m, k)
				c.pruned = true
				c.ignored = append(c.ignored, path+"."+k)
				continue
			}
			if err := p.validate(m[k], path+"."+k, c); err != nil {
				if slices.Contains(s.Required, k) {
					return err
				}
				delete(m, k) // an optional part that does not match is left out
				c.pruned = true
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %s", path, kindOf(v))
		}
		if s.MaxItems != nil && len(a) > *s.MaxItems {
			return fmt.Errorf("%s: %d items, at most %d", path, len(a), *s.MaxItems)
		}
		for i, x := range a {
			if err := s.Items.validate(x, fmt.Sprintf("%s[%d]", path, i), c); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %s", path, kindOf(v))
		}
		if len(s.Enum) > 0 && !containsString(s.Enum, str) {
			return fmt.Errorf("%s: %q is not one of %s", path, str, strings.Join(s.Enum, ", "))
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(str) {
				return fmt.Errorf("%s: %q does not match %s", path, str, s.Pattern)
			}
		}
		if s.MaxLength != nil && len([]rune(str)) > *s.MaxLength {
			return fmt.Errorf("%s: %d characters, at most %d", path, len([]rune(str)), *s.MaxLength)
		}
	case "number", "integer":
		f, ok := v.(float64)
		if !ok {
			return fmt.Errorf("%s: want a number, got %s", path, kindOf(v))
		}
		if s.Type == "integer" && f != float64(int64(f)) {
			return fmt.Errorf("%s: %v is not an integer", path, f)
		}
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Errorf("%s: %v below the minimum %v", path, f, *s.Minimum)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Errorf("%s: %v above the maximum %v", path, f, *s.Maximum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want true or false, got %s", path, kindOf(v))
		}
	}
	return nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
