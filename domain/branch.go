package domain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Line is a line of play: the episode the person started and the branch
// within it. It has one written form, used by every screen, command,
// export, log line and JSON object: EPISODE/BRANCH, and EPISODE/BRANCH:TURN
// for a turn of it ("1/main", "1/no-bar:96", "1/#4" for an unnamed branch).
// ID is the branch's stable number in lantern.db (the episode's own number
// for its first line), which "#ID" names on its own.
type Line struct {
	// Episode is the number of the episode the person started (its first
	// line's ID); 0 while unknown.
	Episode int64
	// ID is the branch's row in lantern.db (0 before the episode's first
	// turn is recorded).
	ID int64
	// Name is the person's name for a branch ("" unnamed).
	Name string
	// Parent is the branch it was rewound from and ForkTurn the turn of
	// Parent it starts after (both 0 for an episode's first line).
	Parent   int64
	ForkTurn int
}

// Label is the branch within its episode: its name, "main" for an
// episode's first line, else "#ID".
func (l Line) Label() string {
	switch {
	case l.Name != "":
		return l.Name
	case l.Parent == 0:
		return "main"
	default:
		return "#" + strconv.FormatInt(l.ID, 10)
	}
}

// String is the line's written form, EPISODE/BRANCH.
func (l Line) String() string {
	ep := l.Episode
	if ep == 0 && l.Parent == 0 {
		ep = l.ID
	}
	return strconv.FormatInt(ep, 10) + "/" + l.Label()
}

// At is a turn of the line in its written form, EPISODE/BRANCH:TURN.
func (l Line) At(turn int) string { return l.String() + ":" + strconv.Itoa(turn) }

// LineRef is a line as a person wrote it: EPISODE (its main line),
// EPISODE/NAME, EPISODE/#ID, EPISODE/main, or #ID alone. The run database
// resolves it to a branch.
type LineRef struct {
	Episode int64  // 0 with "#ID" alone
	Name    string // "" for main or an ID
	ID      int64  // a stable ID ("#4"), 0 otherwise
}

// ErrLineRef is returned for a line that is not written as a line.
var ErrLineRef = errors.New("not a line of play")

// lineForm says how a line is written, for error messages.
const lineForm = "EPISODE, EPISODE/BRANCH or #ID (as `lantern episodes` lists them)"

// ParseLine reads a line's written form.
func ParseLine(s string) (LineRef, error) {
	s = strings.TrimSpace(s)
	var r LineRef
	ep, branch, slash := strings.Cut(s, "/")
	if !slash && strings.HasPrefix(s, "#") {
		ep, branch = "", s
	}
	if ep != "" {
		n, err := strconv.ParseInt(ep, 10, 64)
		if err != nil || n < 1 {
			return r, fmt.Errorf("%w: %q: the episode is a number from 1; write %s", ErrLineRef, s, lineForm)
		}
		r.Episode = n
	}
	branch = strings.TrimSpace(branch)
	switch {
	case slash && branch == "":
		return r, fmt.Errorf("%w: %q: no branch after the /; write %s", ErrLineRef, s, lineForm)
	case strings.HasPrefix(branch, "#"):
		n, err := strconv.ParseInt(branch[1:], 10, 64)
		if err != nil || n < 1 {
			return r, fmt.Errorf("%w: %q: #ID wants a number; write %s", ErrLineRef, s, lineForm)
		}
		r.ID = n
	case BranchKey(branch) == "main":
	default:
		r.Name = branch
	}
	if r.Episode == 0 && r.ID == 0 {
		return r, fmt.Errorf("%w: %q: write %s", ErrLineRef, s, lineForm)
	}
	return r, nil
}

// ParseLineAt reads a turn of a line, LINE:TURN.
func ParseLineAt(s string) (LineRef, int, error) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return LineRef{}, 0, fmt.Errorf("%w: %q: write LINE:TURN, LINE being %s", ErrLineRef, s, lineForm)
	}
	turn, err := strconv.Atoi(strings.TrimSpace(s[i+1:]))
	if err != nil || turn < 1 {
		return LineRef{}, 0, fmt.Errorf("%w: %q: the turn after the : is a number from 1", ErrLineRef, s)
	}
	r, err := ParseLine(s[:i])
	return r, turn, err
}

// MaxBranchName is the longest branch name, in characters.
const MaxBranchName = 40

// ErrBranchName is returned for a branch name that cannot be kept.
var ErrBranchName = errors.New("bad branch name")

// BranchKey is the form two branch names are compared in: NFKC and case
// folded, so names that look alike on screen ("Side", "ｓｉｄｅ") are one.
func BranchKey(s string) string {
	f := cases.Fold()
	return norm.NFKC.String(f.String(norm.NFKC.String(strings.TrimSpace(s))))
}

// invisible: a character that does not show, or changes how the others
// show: control and format characters (bidi overrides, zero-width spaces
// and joiners), line and paragraph separators, private-use, unassigned and
// default-ignorable code points.
func invisible(r rune) bool {
	return unicode.In(r, unicode.C, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		r == '\u3164' || r == '\uffa0' || r == '\u115f' || r == '\u1160' // Hangul fillers, which render blank
}

// CleanBranchName trims a branch name a person gave and checks it, with
// the reason when it is refused: at most MaxBranchName characters; nothing
// invisible (a name must read as what it is on every screen and export);
// no "/" or ":" (they separate episode, branch and turn in a line's
// written form); not "main" nor "#…", however written, which name an
// episode's first line and unnamed branches. "" stays "" (unnamed).
// Whether another branch of the episode has the name is the run database's
// check (BranchKey).
func CleanBranchName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%w: it is not valid UTF-8", ErrBranchName)
	}
	if i := strings.IndexFunc(s, invisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return "", fmt.Errorf("%w: it holds an invisible or control character (%U), which would let it pass for another name", ErrBranchName, r)
	}
	if utf8.RuneCountInString(s) > MaxBranchName {
		return "", fmt.Errorf("%w: longer than %d characters", ErrBranchName, MaxBranchName)
	}
	key := BranchKey(s)
	switch {
	case strings.ContainsAny(key, "/:"):
		return "", fmt.Errorf("%w: \"/\" and \":\" separate episode, branch and turn in a line's name (1/side:12)", ErrBranchName)
	case key == "main":
		return "", fmt.Errorf("%w: \"main\" names an episode's first line", ErrBranchName)
	case strings.HasPrefix(key, "#"):
		return "", fmt.Errorf("%w: \"#…\" is how an unnamed branch is named (#4); start the name with something else", ErrBranchName)
	}
	return s, nil
}
