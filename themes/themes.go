// Package themes holds Lantern's colour themes: TOML files naming the colours
// of a Palette (a small set of semantic colours), and the builder that turns
// a palette into the lipgloss Styles the TUI draws with.
//
// The base palette is the dark theme, written out in full in Base. A theme
// file names the palette keys it changes and nothing else, so the shipped
// themes stay short:
//
//	name = "phosphor"
//	description = "green phosphor on black"
//	dark = true
//
//	[palette]
//	text = "#33ff66"
//	accent = "#7dff9a"
//
// A palette value is "#rrggbb", "#rgb", an ANSI colour number "0".."255", or
// "" for the terminal's own colour.
package themes

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/lantern-if/lantern/atomicfile"
)

// Palette is the semantic colours of a theme. Every style of the TUI is built
// from these; nothing else picks a colour.
type Palette struct {
	Text       string `toml:"text"`        // body text
	Muted      string `toml:"muted"`       // secondary text: metadata, hints
	Subtle     string `toml:"subtle"`      // rules, placeholders, inactive borders
	Background string `toml:"background"`  // "" keeps the terminal's background
	Surface    string `toml:"surface"`     // the status bar and the tab bar
	SurfaceFg  string `toml:"surface_fg"`  // text on the surface
	Accent     string `toml:"accent"`      // focus, titles, the active tab
	Border     string `toml:"border"`      // pane borders
	Selection  string `toml:"selection"`   // selected row background
	SelectedFg string `toml:"selected_fg"` // selected row text
	Match      string `toml:"match"`       // search matches (background)
	MatchFg    string `toml:"match_fg"`    // search matches (text)

	Agent    string `toml:"agent"`    // the agent's commands
	Human    string `toml:"human"`    // the person's commands
	Thinking string `toml:"thinking"` // streamed reasoning and thinking

	Success   string `toml:"success"`   // SUCCESS memories, accepted verdicts, running
	Failure   string `toml:"failure"`   // FAILURE memories, rejected verdicts
	Discovery string `toml:"discovery"` // DISCOVERY memories
	Danger    string `toml:"danger"`    // DANGER memories, errors
	Note      string `toml:"note"`      // NOTE memories
	Warning   string `toml:"warning"`   // notices (Ollama unreachable), paused
	Info      string `toml:"info"`      // manual mode, informative notes
}

// Theme is a named palette.
type Theme struct {
	Name        string  `toml:"name"`
	Description string  `toml:"description"`
	Dark        bool    `toml:"dark"` // meant for a dark terminal background
	Palette     Palette `toml:"palette"`
}

// Base is the full palette every theme starts from (the dark theme).
func Base() Palette {
	return Palette{
		Text:       "#d8d8d8",
		Muted:      "#9a9a9a",
		Subtle:     "#5c5c5c",
		Background: "",
		Surface:    "#303446",
		SurfaceFg:  "#c6d0f5",
		Accent:     "#8caaee",
		Border:     "#51576d",
		Selection:  "#414559",
		SelectedFg: "#ffffff",
		Match:      "#e5c890",
		MatchFg:    "#232634",
		Agent:      "#99d1db",
		Human:      "#ef9f76",
		Thinking:   "#838ba7",
		Success:    "#a6d189",
		Failure:    "#e78284",
		Discovery:  "#85c1dc",
		Danger:     "#ea5f5f",
		Note:       "#ca9ee6",
		Warning:    "#e5c890",
		Info:       "#81c8be",
	}
}

//go:embed *.toml
var builtin embed.FS

// Default names the theme for a terminal background.
func Default(darkBackground bool) string {
	if darkBackground {
		return "dark"
	}
	return "light"
}

// Names lists the built-in themes, the dark one first.
func Names() []string {
	entries, _ := fs.ReadDir(builtin, ".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".toml"); ok {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "dark":
			return -1
		case b == "dark":
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// ErrUnknown is returned for a theme name that is not built in.
var ErrUnknown = errors.New("unknown theme")

// maxThemeBytes bounds a theme file.
const maxThemeBytes = 1 << 20

// Load returns a built-in theme by name, or reads a theme file: a name
// ending in .toml is a file's path.
func Load(name string) (Theme, error) {
	if strings.HasSuffix(name, ".toml") {
		data, err := atomicfile.ReadRegular(name, maxThemeBytes)
		if err != nil {
			return Theme{}, fmt.Errorf("theme file: %w", err)
		}
		return Parse(name, data)
	}
	data, err := builtin.ReadFile(path.Clean(name) + ".toml")
	if err != nil {
		return Theme{}, fmt.Errorf("theme %q: %w (have %s)", name, ErrUnknown, strings.Join(Names(), ", "))
	}
	return Parse(name+".toml", data)
}

// MustLoad is Load for the built-in themes, which are tested to load.
func MustLoad(name string) Theme {
	t, err := Load(name)
	if err != nil {
		panic(err)
	}
	return t
}

var hexColor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`) })

// Parse reads a theme file: the keys it names override Base. Unknown keys and
// bad colours are errors naming the file, the line where the decoder knows
// it, and the key.
func Parse(file string, data []byte) (Theme, error) {
	t := Theme{Palette: Base(), Dark: true}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) {
			return Theme{}, fmt.Errorf("%s: %s", file, strings.TrimSpace(sm.String()))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return Theme{}, fmt.Errorf("%s:%d: %s", file, line, de.Error())
		}
		return Theme{}, fmt.Errorf("%s: %w", file, err)
	}
	if t.Name == "" {
		t.Name = strings.TrimSuffix(path.Base(file), ".toml")
	}
	if err := t.Palette.Validate(); err != nil {
		return Theme{}, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// Validate checks every colour of the palette.
func (p Palette) Validate() error {
	v := reflect.ValueOf(p)
	tp := v.Type()
	for i := range tp.NumField() {
		s := v.Field(i).String()
		if s == "" || hexColor().MatchString(s) {
			continue
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 {
			continue
		}
		return fmt.Errorf("palette.%s = %q: want \"#rrggbb\", \"#rgb\", an ANSI colour 0-255, or \"\"", tp.Field(i).Tag.Get("toml"), s)
	}
	return nil
}
