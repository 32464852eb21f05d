package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestCleanBranchName(t *testing.T) {
	cases := []struct {
		in, want string
		bad      bool
	}{
		{"", "", false},
		{"  east first ", "east first", false},
		{"Zork ⚔ troll", "Zork ⚔ troll", false},
		{strings.Repeat("é", MaxBranchName), strings.Repeat("é", MaxBranchName), false},
		{strings.Repeat("x", MaxBranchName+1), "", true},
		{"MAIN", "", true},
		{"ｍａｉｎ", "", true},
		{"west:side", "", true},
		{"a/b", "", true},
		{"#4", "", true},
		{"a\x1b[2Jb", "", true},
		{"a\u009bb", "", true},
		{"a\nb", "", true},
		{"\xff", "", true},
	}
	for _, c := range cases {
		got, err := CleanBranchName(c.in)
		if c.bad != (err != nil) || got != c.want {
			t.Errorf("CleanBranchName(%q) = %q, %v; want %q (refused: %v)", c.in, got, err, c.want, c.bad)
		}
		if err != nil && !errors.Is(err, ErrBranchName) {
			t.Errorf("CleanBranchName(%q): %v is not ErrBranchName", c.in, err)
		}
	}
}

// TestNamesThatImpersonateAreRefused: a name that would read as another
// line's is refused, each with its reason.
func TestNamesThatImpersonateAreRefused(t *testing.T) {
	for _, c := range []struct {
		name, in, reason string
	}{
		{"bidi override renders as main", "\u202eniam", "invisible or control character (U+202E)"},
		{"zero-width space inside main", "ma\u200bin", "invisible or control character (U+200B)"},
		{"another branch's automatic label", "#2 from #1@10", "how an unnamed branch is named"},
		{"an unnamed branch's number", "＃2", "how an unnamed branch is named"},
		{"main written in another case", "Main", "names an episode's first line"},
		{"a zero-width joiner", "si\u200dde", "invisible or control character (U+200D)"},
		{"a soft hyphen", "si\u00adde", "invisible or control character (U+00AD)"},
		{"a Hangul filler", "side\u3164", "invisible or control character (U+3164)"},
		{"a variation selector", "side\ufe0f", "invisible or control character (U+FE0F)"},
		{"a line separator", "si\u2028de", "invisible or control character (U+2028)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := CleanBranchName(c.in)
			if !errors.Is(err, ErrBranchName) {
				t.Fatalf("CleanBranchName(%q) = %q, %v; want ErrBranchName", c.in, got, err)
			}
			if !strings.Contains(err.Error(), c.reason) {
				t.Errorf("CleanBranchName(%q): %v; want the reason %q", c.in, err, c.reason)
			}
		})
	}
}

func TestLineWrittenForm(t *testing.T) {
	for _, c := range []struct {
		l         Line
		str, at12 string
	}{
		{Line{Episode: 1, ID: 1}, "1/main", "1/main:12"},
		{Line{ID: 7}, "7/main", "7/main:12"},
		{Line{Episode: 1, ID: 2, Name: "no-bar", Parent: 1, ForkTurn: 10}, "1/no-bar", "1/no-bar:12"},
		{Line{Episode: 1, ID: 4, Parent: 2, ForkTurn: 10}, "1/#4", "1/#4:12"},
	} {
		if got := c.l.String(); got != c.str {
			t.Errorf("%+v.String() = %q, want %q", c.l, got, c.str)
		}
		if got := c.l.At(12); got != c.at12 {
			t.Errorf("%+v.At(12) = %q, want %q", c.l, got, c.at12)
		}
		// What is printed reads back as the same line.
		ref, turn, err := ParseLineAt(c.l.At(12))
		want := LineRef{Episode: c.l.Episode, Name: c.l.Name}
		if want.Episode == 0 {
			want.Episode = c.l.ID
		}
		if c.l.Parent != 0 && c.l.Name == "" {
			want.ID = c.l.ID
		}
		if err != nil || turn != 12 || ref != want {
			t.Errorf("ParseLineAt(%q) = %+v, %d, %v; want %+v, 12", c.l.At(12), ref, turn, err, want)
		}
	}
}

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		want LineRef
		bad  bool
	}{
		{in: "1", want: LineRef{Episode: 1}},
		{in: "1/main", want: LineRef{Episode: 1}},
		{in: " 3/no-bar ", want: LineRef{Episode: 3, Name: "no-bar"}},
		{in: "3/#9", want: LineRef{Episode: 3, ID: 9}},
		{in: "#9", want: LineRef{ID: 9}},
		{in: "3/east first", want: LineRef{Episode: 3, Name: "east first"}},
		{in: "", bad: true},
		{in: "0", bad: true},
		{in: "x", bad: true},
		{in: "1/", bad: true},
		{in: "#", bad: true},
		{in: "#x", bad: true},
		{in: "/side", bad: true},
	} {
		got, err := ParseLine(c.in)
		if c.bad != (err != nil) || (!c.bad && got != c.want) {
			t.Errorf("ParseLine(%q) = %+v, %v; want %+v (refused: %v)", c.in, got, err, c.want, c.bad)
		}
		if err != nil && !errors.Is(err, ErrLineRef) {
			t.Errorf("ParseLine(%q): %v is not ErrLineRef", c.in, err)
		}
	}
	for _, in := range []string{"1", "1:0", "1:x", "1/side:", "x:3"} {
		if _, _, err := ParseLineAt(in); !errors.Is(err, ErrLineRef) {
			t.Errorf("ParseLineAt(%q) = %v, want ErrLineRef", in, err)
		}
	}
}
