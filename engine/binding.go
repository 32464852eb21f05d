package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Binding holds facts about one story file (selected by md5) that the
// generic v3 conventions cannot give: the player object, where score and
// moves live, how death and victory read, and what to ignore in world diffs.
// A story without a binding runs on the generic path (Generic).
type Binding struct {
	Name         string     `toml:"name"`
	MD5          string     `toml:"md5"`
	Release      int        `toml:"release"`
	Serial       string     `toml:"serial"`
	MaxScore     int        `toml:"max_score"`
	WorldObjects int        `toml:"world_objects"`
	Player       int        `toml:"player"`
	LocationGlob *int       `toml:"location_global"`
	ScoreGlobal  *int       `toml:"score_global"`
	MovesGlobal  *int       `toml:"moves_global"`
	ScoreAddr    int        `toml:"score_addr"`
	MovesAddr    int        `toml:"moves_addr"`
	DeathTexts   []string   `toml:"death_texts"`
	VictoryTexts []string   `toml:"victory_texts"`
	IgnoreMoved  []int      `toml:"ignore_moved"`
	Detach       []int      `toml:"detach_for_hash"`
	ClearAttrs   []int      `toml:"clear_attrs_for_hash"`
	IgnoreDiff   []AttrRule `toml:"ignore_attr_diff"`
	IgnoreClear  []AttrRule `toml:"ignore_attr_clear"`
	Watch        []Watch    `toml:"watch"`
	// Templates are action templates for valid-action probing: OBJ stands
	// for an object in scope ("open OBJ", "put OBJ in OBJ").
	Templates []string `toml:"templates"`

	file string // where it was loaded from, for messages
}

// AttrRule names attributes of one object (or all of them).
type AttrRule struct {
	Object int   `toml:"object"`
	All    bool  `toml:"all"`
	Attrs  []int `toml:"attrs"`
}

// Watch is a byte whose change counts as a world change.
type Watch struct {
	Addr int    `toml:"addr"`
	Note string `toml:"note"`
}

// ErrBinding reports a binding file that cannot be used.
var ErrBinding = errors.New("bad story binding")

// Generic is the binding of a story Lantern knows nothing about: location,
// score and moves from globals 0, 1 and 2 (v3 status-line convention).
func Generic() *Binding {
	zero, one, two := 0, 1, 2
	return &Binding{Name: "generic", LocationGlob: &zero, ScoreGlobal: &one, MovesGlobal: &two}
}

// Bindings maps story md5s to their bindings.
type Bindings map[string]*Binding

// LoadBindings reads every *.toml file of fsys. A file that does not parse,
// or lacks an md5, is an error naming the file (and line, when TOML says).
func LoadBindings(fsys fs.FS) (Bindings, error) {
	names, err := fs.Glob(fsys, "*.toml")
	if err != nil {
		return nil, fmt.Errorf("load bindings: %w", err)
	}
	sort.Strings(names)
	out := Bindings{}
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("load binding %q: %w", n, err)
		}
		b, err := ParseBinding(n, data)
		if err != nil {
			return nil, err
		}
		if prev, ok := out[b.MD5]; ok {
			return nil, fmt.Errorf("%w: %s and %s both bind md5 %s", ErrBinding, prev.file, n, b.MD5)
		}
		out[b.MD5] = b
	}
	return out, nil
}

// ParseBinding parses one binding file; name is used in messages.
func ParseBinding(name string, data []byte) (*Binding, error) {
	b := &Binding{file: path.Base(name)}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(b); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			de := sm.Errors[0]
			row, col := de.Position()
			return nil, fmt.Errorf("%w: %s:%d:%d: unknown key %q", ErrBinding, name, row, col, strings.Join(de.Key(), "."))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%w: %s:%d:%d: %s", ErrBinding, name, row, col, de.Error())
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrBinding, name, err)
	}
	b.MD5 = strings.ToLower(b.MD5)
	if len(b.MD5) != 32 {
		return nil, fmt.Errorf("%w: %s: md5 %q is not 32 hex digits", ErrBinding, name, b.MD5)
	}
	g := Generic()
	if b.LocationGlob == nil {
		b.LocationGlob = g.LocationGlob
	}
	if b.ScoreGlobal == nil && b.ScoreAddr == 0 {
		b.ScoreGlobal = g.ScoreGlobal
	}
	if b.MovesGlobal == nil && b.MovesAddr == 0 {
		b.MovesGlobal = g.MovesGlobal
	}
	return b, nil
}

// For returns the binding for a story md5, or Generic.
func (bs Bindings) For(md5 string) *Binding {
	if b, ok := bs[strings.ToLower(md5)]; ok {
		return b
	}
	return Generic()
}

// ignoresDiff reports whether a change of attr on obj is not a world change.
func (b *Binding) ignoresDiff(obj uint16, attr uint8, set bool) bool {
	for _, r := range b.IgnoreDiff {
		if r.matches(obj, attr) {
			return true
		}
	}
	if !set {
		for _, r := range b.IgnoreClear {
			if r.matches(obj, attr) {
				return true
			}
		}
	}
	return false
}

func (r AttrRule) matches(obj uint16, attr uint8) bool {
	if r.Object != int(obj) {
		return false
	}
	if r.All {
		return true
	}
	for _, a := range r.Attrs {
		if a == int(attr) {
			return true
		}
	}
	return false
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
