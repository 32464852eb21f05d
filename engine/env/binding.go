package env

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Binding holds facts about one story file (selected by md5) that the
// generic conventions cannot give: the player object, where score and moves
// live, how the location is read, how death and victory read, and what to
// ignore in world diffs. A story without a binding runs on the generic path
// (Generic), which infers what it can from the story's own data.
type Binding struct {
	Name    string `toml:"name"`
	Title   string `toml:"title"`
	MD5     string `toml:"md5"`
	Release int    `toml:"release"`
	Serial  string `toml:"serial"`
	// Source says where the facts come from (for `lantern stories`).
	Source       string `toml:"source"`
	Notes        string `toml:"notes"`
	MaxScore     int    `toml:"max_score"`
	WorldObjects int    `toml:"world_objects"`
	Player       int    `toml:"player"`
	// Location says how the location is read: "global" (location_global,
	// the default), "player_parent" (the player object's parent) or
	// "player_room" (the outermost object holding the player).
	Location     string `toml:"location"`
	LocationGlob *int   `toml:"location_global"`
	// LocationName says how the location's name reads: "" as the object
	// table holds it, or "title_case" with the first letter of each word
	// capitalised, as a story that capitalises its room headings prints
	// them (Sherlock's room "vestibule" is headed "Vestibule").
	LocationName string `toml:"location_name"`
	// RoomsContainer says the story keeps every room inside one parentless
	// object (ZIL's ROOMS): with location "player_room" the room is the
	// outermost object below it.
	RoomsContainer bool `toml:"rooms_container"`
	ScoreGlobal    *int `toml:"score_global"`
	MovesGlobal    *int `toml:"moves_global"`
	// ScoreAddr and MovesAddr are byte addresses in dynamic memory, read
	// as words (size 2, the default: score signed, moves unsigned) or as
	// single bytes (size 1, unsigned unless score_signed).
	ScoreAddr   int  `toml:"score_addr"`
	ScoreSize   int  `toml:"score_size"`
	ScoreSigned bool `toml:"score_signed"`
	MovesAddr   int  `toml:"moves_addr"`
	MovesSize   int  `toml:"moves_size"`
	// MovesOffset is added to the value read (a story that counts from
	// another origin).
	MovesOffset int `toml:"moves_offset"`
	// ScoreFrom is "" (memory, as above), "victory" (0, and
	// score_on_victory once the victory text has appeared) or "status" (the
	// last number matched by score_text's first group on the status line;
	// negated with score_text_negate).
	ScoreFrom       string   `toml:"score_from"`
	ScoreOnVictory  *int     `toml:"score_on_victory"`
	ScoreText       string   `toml:"score_text"`
	ScoreTextNegate bool     `toml:"score_text_negate"`
	DeathTexts      []string `toml:"death_texts"`
	VictoryTexts    []string `toml:"victory_texts"`
	// Intro is typed before the first observation (menus and key presses
	// that stand between the story's start and its first real prompt).
	Intro []string `toml:"intro"`
	// IgnoreMoved: moves of these objects are not world changes;
	// IgnoreMovedTo: neither are moves into these objects;
	// OnlyPlayerMoves: only moves of the player or into the player count.
	IgnoreMoved     []int `toml:"ignore_moved"`
	IgnoreMovedTo   []int `toml:"ignore_moved_to"`
	OnlyPlayerMoves bool  `toml:"only_player_moves"`
	// IgnoreAllClears: no attribute clear is a world change.
	IgnoreAllClears bool  `toml:"ignore_all_attr_clears"`
	Detach          []int `toml:"detach_for_hash"`
	// DetachWhenAway are detached from the hash while not in the player's
	// location (a wanderer seen only when present).
	DetachWhenAway []int      `toml:"detach_when_away"`
	ClearAttrs     []int      `toml:"clear_attrs_for_hash"`
	ClearForHash   []AttrRule `toml:"clear_for_hash"`
	IgnoreDiff     []AttrRule `toml:"ignore_attr_diff"`
	IgnoreClear    []AttrRule `toml:"ignore_attr_clear"`
	Watch          []Watch    `toml:"watch"`
	// Templates are action templates for valid-action probing: OBJ stands
	// for an object in scope ("open OBJ", "put OBJ in OBJ").
	Templates []string `toml:"templates"`

	file    string // where it was loaded from, for messages
	generic bool   // made by Generic, not loaded
	scoreRe *regexp.Regexp
}

// AttrRule names attributes of one object (or all of them); object 0
// stands for every object but those in Except.
type AttrRule struct {
	Object int   `toml:"object"`
	All    bool  `toml:"all"`
	Attrs  []int `toml:"attrs"`
	Except []int `toml:"except"`
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
	return &Binding{Name: "generic", LocationGlob: &zero, ScoreGlobal: &one, MovesGlobal: &two, generic: true}
}

// IsGeneric reports whether b is the generic binding (no facts bound).
func (b *Binding) IsGeneric() bool { return b.generic }

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
	if err := b.check(name); err != nil {
		return nil, err
	}
	g := Generic()
	if b.LocationGlob == nil {
		b.LocationGlob = g.LocationGlob
	}
	if b.ScoreGlobal == nil && b.ScoreAddr == 0 && b.ScoreFrom == "" {
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
		if b.IgnoreAllClears {
			return true
		}
		for _, r := range b.IgnoreClear {
			if r.matches(obj, attr) {
				return true
			}
		}
	}
	return false
}

// check validates the fields that take a fixed set of values.
func (b *Binding) check(name string) error {
	switch b.Location {
	case "", "global", "player_parent", "player_room":
	default:
		return fmt.Errorf("%w: %s: location %q is not global, player_parent or player_room", ErrBinding, name, b.Location)
	}
	switch b.LocationName {
	case "", "title_case":
	default:
		return fmt.Errorf("%w: %s: location_name %q is not title_case", ErrBinding, name, b.LocationName)
	}
	if b.RoomsContainer && b.Location != "player_room" {
		return fmt.Errorf("%w: %s: rooms_container needs location \"player_room\"", ErrBinding, name)
	}
	if (b.Location == "player_parent" || b.Location == "player_room") && b.Player == 0 {
		return fmt.Errorf("%w: %s: location %q needs the player object", ErrBinding, name, b.Location)
	}
	for _, sz := range []int{b.ScoreSize, b.MovesSize} {
		if sz != 0 && sz != 1 && sz != 2 {
			return fmt.Errorf("%w: %s: size %d is not 1 or 2", ErrBinding, name, sz)
		}
	}
	switch b.ScoreFrom {
	case "", "victory":
	case "status":
		re, err := regexp.Compile(b.ScoreText)
		if err != nil || re.NumSubexp() < 1 {
			return fmt.Errorf("%w: %s: score_text %q must be a regular expression with a group", ErrBinding, name, b.ScoreText)
		}
		b.scoreRe = re
	default:
		return fmt.Errorf("%w: %s: score_from %q is not victory or status", ErrBinding, name, b.ScoreFrom)
	}
	return nil
}

func (r AttrRule) matches(obj uint16, attr uint8) bool {
	if r.Object == 0 {
		if contains(r.Except, int(obj)) {
			return false
		}
	} else if r.Object != int(obj) {
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
