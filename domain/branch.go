package domain

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BranchLabel is how a line of play is named on every screen and export:
// its name, else "main" for an episode's first line (no parent) and
// "#ID from #PARENT@TURN" for a branch a rewind started.
func BranchLabel(id int64, name string, parent int64, forkTurn int) string {
	switch {
	case name != "":
		return name
	case parent == 0:
		return "main"
	default:
		return fmt.Sprintf("#%d from #%d@%d", id, parent, forkTurn)
	}
}

// MaxBranchName is the longest branch name, in characters.
const MaxBranchName = 40

// ErrBranchName is returned for a branch name that cannot be kept.
var ErrBranchName = errors.New("bad branch name")

// CleanBranchName trims a branch name a person gave and checks it: at most
// MaxBranchName characters, no control characters (it is printed on every
// screen and export), and not "main", which names an episode's first line.
// "" stays "" (the branch is unnamed).
func CleanBranchName(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case utf8.RuneCountInString(s) > MaxBranchName:
		return "", fmt.Errorf("%w: longer than %d characters", ErrBranchName, MaxBranchName)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl):
		return "", fmt.Errorf("%w: it holds control characters", ErrBranchName)
	case strings.EqualFold(s, "main"):
		return "", fmt.Errorf("%w: \"main\" names an episode's first line", ErrBranchName)
	}
	return s, nil
}
