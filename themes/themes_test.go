package themes

import (
	"reflect"
	"strings"
	"testing"
)

func TestBuiltinThemesLoad(t *testing.T) {
	names := Names()
	for _, want := range []string{"dark", "light", "phosphor"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("Names() = %v, lacks %q", names, want)
		}
	}
	if names[0] != "dark" {
		t.Errorf("Names()[0] = %q, want dark first", names[0])
	}
	for _, n := range names {
		th, err := Load(n)
		if err != nil {
			t.Fatalf("Load(%q): %v", n, err)
		}
		if th.Name != n {
			t.Errorf("Load(%q).Name = %q", n, th.Name)
		}
		if s := Build(th); s.Theme.Name != n {
			t.Errorf("Build(%q) carries theme %q", n, s.Theme.Name)
		}
	}
}

func TestDarkIsTheBase(t *testing.T) {
	if got := MustLoad("dark").Palette; got != Base() {
		t.Errorf("dark palette %+v differs from Base()", got)
	}
	if !MustLoad("dark").Dark || MustLoad("light").Dark {
		t.Error("dark/light flags wrong")
	}
}

func TestThemesOverrideOnlyWhatTheyName(t *testing.T) {
	th, err := Parse("mine.toml", []byte("[palette]\naccent = \"#ff0000\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Base()
	want.Accent = "#ff0000"
	if th.Palette != want {
		t.Errorf("palette %+v, want the base with accent changed", th.Palette)
	}
	if th.Name != "mine" {
		t.Errorf("name %q, want the file's name", th.Name)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"[palette]\naccent = \"red\"\n", `palette.accent = "red"`},
		{"[palette]\naccent = \"300\"\n", `palette.accent = "300"`},
		{"[palette]\naccnt = \"#fff\"\n", "accnt"},
		{"name = \n", "bad.toml:1"},
	} {
		_, err := Parse("bad.toml", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error mentioning %q", tc.data, err, tc.want)
		}
	}
	if _, err := Load("nope"); err == nil || !strings.Contains(err.Error(), "dark") {
		t.Errorf("Load(nope) = %v, want an error listing the themes", err)
	}
}

func TestDefault(t *testing.T) {
	if Default(true) != "dark" || Default(false) != "light" {
		t.Error("Default follows the background")
	}
}

func TestEveryPaletteKeyHasATag(t *testing.T) {
	tp := reflect.TypeFor[Palette]()
	for i := range tp.NumField() {
		if tp.Field(i).Tag.Get("toml") == "" {
			t.Errorf("Palette.%s has no toml tag", tp.Field(i).Name)
		}
	}
}
