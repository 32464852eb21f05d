package config

import (
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/sanitize"
)

// The key registry: every setting by its dotted TOML path, with how to read
// and write it. Files, the environment and flags all set keys through it,
// so they share one set of names, one type check and one record of where
// each value came from.

type valueKind int

const (
	kindString valueKind = iota
	kindInt
	kindFloat
	kindBool
	kindDuration
)

func (k valueKind) want() string {
	switch k {
	case kindInt:
		return "want a whole number"
	case kindFloat:
		return "want a number"
	case kindBool:
		return "want true or false"
	case kindDuration:
		return `want a duration in quotes, such as "90s" or "2m"`
	}
	return "want a string in quotes"
}

type keySpec struct {
	path   string
	kind   valueKind
	isPath bool // a file or directory: relative to the file that sets it
	access func(c *Config, fn func(reflect.Value) error) error
}

// keyRegistry is every key, built once from Config's fields on first use and
// never changed after.
type keyRegistry struct {
	list   []keySpec
	byPath map[string]*keySpec
}

var durationType = reflect.TypeOf(time.Duration(0))

// registry returns the key registry.
var registry = sync.OnceValue(buildRegistry)

func buildRegistry() *keyRegistry {
	reg := &keyRegistry{byPath: map[string]*keySpec{}}
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := tomlName(f)
		if name == "" {
			continue
		}
		switch {
		case name == "roles":
			reg.addRoles()
		case name == "keys":
			// Dynamic: keys.<action>, handled by setKey.
		case f.Type.Kind() == reflect.Struct:
			for j := 0; j < f.Type.NumField(); j++ {
				g := f.Type.Field(j)
				if n := tomlName(g); n != "" {
					reg.addField(name+"."+n, g.Type, []int{i, j})
				}
			}
		default:
			reg.addField(name, f.Type, []int{i})
		}
	}
	for i := range reg.list {
		reg.byPath[reg.list[i].path] = &reg.list[i]
	}
	return reg
}

// keyAt is the key at a dotted path (nil when there is none).
func keyAt(path string) *keySpec { return registry().byPath[path] }

func tomlName(f reflect.StructField) string {
	tag := f.Tag.Get("toml")
	if tag == "" || tag == "-" {
		return ""
	}
	return strings.Split(tag, ",")[0]
}

func kindOf(t reflect.Type) valueKind {
	switch {
	case t == durationType:
		return kindDuration
	case t.Kind() == reflect.Int:
		return kindInt
	case t.Kind() == reflect.Float64:
		return kindFloat
	case t.Kind() == reflect.Bool:
		return kindBool
	}
	return kindString
}

func (reg *keyRegistry) addField(path string, t reflect.Type, index []int) {
	reg.list = append(reg.list, keySpec{
		path:   path,
		kind:   kindOf(t),
		isPath: path == "work_dir" || path == "story" || path == "theme",
		access: func(c *Config, fn func(reflect.Value) error) error {
			return fn(reflect.ValueOf(c).Elem().FieldByIndex(index))
		},
	})
}

func (reg *keyRegistry) addRoles() {
	rt := reflect.TypeOf(Role{})
	for _, role := range RoleNames() {
		for j := 0; j < rt.NumField(); j++ {
			g := rt.Field(j)
			n := tomlName(g)
			if n == "" {
				continue
			}
			role, j := role, j
			reg.list = append(reg.list, keySpec{
				path: "roles." + role + "." + n,
				kind: kindOf(g.Type),
				access: func(c *Config, fn func(reflect.Value) error) error {
					if c.Roles == nil {
						c.Roles = map[string]Role{}
					}
					r := c.Roles[role]
					if err := fn(reflect.ValueOf(&r).Elem().Field(j)); err != nil {
						return err
					}
					c.Roles[role] = r
					return nil
				},
			})
		}
	}
}

// KeyNames lists every key in the order of the sample file (the [keys]
// table's entries, one per action, are not listed).
func KeyNames() []string {
	out := make([]string, len(registry().list))
	for i, k := range registry().list {
		out[i] = k.path
	}
	return out
}

// EnvName is the environment variable that sets a key: LANTERN_ and the key
// in capitals, dots as underscores (LANTERN_LOOP_MAX_TURNS_PER_EPISODE,
// LANTERN_ROLES_AGENT_MODEL).
func EnvName(key string) string {
	return "LANTERN_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

// Get returns a key's value as TOML writes it ("" for an unknown key).
func (c *Config) Get(key string) string {
	if action, ok := strings.CutPrefix(key, "keys."); ok {
		if v, ok := c.Keys[action]; ok {
			return formatValue(v)
		}
		return ""
	}
	k := keyAt(key)
	if k == nil {
		return ""
	}
	var out string
	k.access(c, func(v reflect.Value) error {
		out = formatValue(plain(v))
		return nil
	})
	return out
}

// plain turns a field into the Go value formatValue knows.
func plain(v reflect.Value) any {
	switch {
	case v.Type() == durationType:
		return time.Duration(v.Int())
	case v.Kind() == reflect.Int:
		return int(v.Int())
	case v.Kind() == reflect.Float64:
		return v.Float()
	case v.Kind() == reflect.Bool:
		return v.Bool()
	case v.Kind() == reflect.String:
		return v.String()
	}
	return v.Interface()
}

// text is a value given as text (the environment, a flag), parsed by the
// key's type; other values come typed from TOML.
type text string

// assign stores a value in a field, or says what the key wants.
func assign(f reflect.Value, kind valueKind, v any) (ok bool) {
	if s, isText := v.(text); isText {
		s := strings.TrimSpace(string(s))
		switch kind {
		case kindString:
			f.SetString(string(v.(text)))
			return true
		case kindInt:
			n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
			if err != nil {
				return false
			}
			f.SetInt(int64(n))
			return true
		case kindFloat:
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
			f.SetFloat(x)
			return true
		case kindBool:
			b, err := strconv.ParseBool(s)
			if err != nil {
				return false
			}
			f.SetBool(b)
			return true
		case kindDuration:
			d, err := time.ParseDuration(s)
			if err != nil {
				return false
			}
			f.SetInt(int64(d))
			return true
		}
		return false
	}
	switch kind {
	case kindString:
		s, ok := v.(string)
		if ok {
			f.SetString(s)
		}
		return ok
	case kindInt:
		n, ok := v.(int64)
		if ok && n >= math.MinInt32 && n <= math.MaxInt32 {
			f.SetInt(n)
			return true
		}
		return false
	case kindFloat:
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
			f.SetFloat(x)
			return true
		case int64:
			f.SetFloat(float64(x))
			return true
		}
		return false
	case kindBool:
		b, ok := v.(bool)
		if ok {
			f.SetBool(b)
		}
		return ok
	case kindDuration:
		s, ok := v.(string)
		if !ok {
			return false
		}
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return false
		}
		f.SetInt(int64(d))
		return true
	}
	return false
}

// suggest names the known key closest to an unknown one, if any is close.
func suggest(key string) string {
	best, bestD := "", 1<<30
	for _, k := range registry().list {
		if d := sanitize.EditDistance(key, k.path); d < bestD {
			best, bestD = k.path, d
		}
	}
	// Also compare the last part alone: "loop.memory_window" vs
	// "memory_history_window" in another table.
	last := key[strings.LastIndex(key, ".")+1:]
	for _, k := range registry().list {
		kl := k.path[strings.LastIndex(k.path, ".")+1:]
		if d := sanitize.EditDistance(last, kl); d < bestD {
			best, bestD = k.path, d
		}
	}
	if bestD <= max(2, len(key)/4) {
		return best
	}
	// Or a key with every word of the last part: "memory_window" for
	// "memory_history_window".
	words := strings.Split(last, "_")
	best, bestD = "", 1<<30
	for _, k := range registry().list {
		kl := k.path[strings.LastIndex(k.path, ".")+1:]
		have := "_" + kl + "_"
		all := true
		for _, w := range words {
			all = all && w != "" && strings.Contains(have, "_"+w+"_")
		}
		if d := sanitize.EditDistance(last, kl); all && d < bestD {
			best, bestD = k.path, d
		}
	}
	return best
}

// sortedRoles lists the role names alphabetically for messages.
func sortedRoles() string {
	r := RoleNames()
	sort.Strings(r)
	return strings.Join(r, ", ")
}
