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
