// Package sharedtest locates the project's shared test data (stories, walkthroughs,
// reference transcripts, conformance suites).
//
// The data lives outside the repository and is never copied into it. Tests find
// it through LANTERN_SHARED (default: ../shared next to the repository root).
// When it is absent a test is skipped, unless LANTERN_REQUIRE_SHARED=1, which
// turns absence into a failure (CI sets it).
package sharedtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// EnvDir names the variable that points at the shared data directory.
const EnvDir = "LANTERN_SHARED"

// EnvRequire names the variable that makes missing shared data a failure.
const EnvRequire = "LANTERN_REQUIRE_SHARED"

// DfrotzPath is where Debian's frotz package installs the dumb interpreter.
const DfrotzPath = "/usr/games/dfrotz"

// ErrNotFound reports that the shared data directory could not be found.
var ErrNotFound = errors.New("shared test data not found")

// Locate returns the shared data directory without consulting a test.
func Locate() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return filepath.Abs(d)
		}
		return "", fmt.Errorf("%s=%q: %w", EnvDir, d, ErrNotFound)
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	d := filepath.Join(root, "..", "shared")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return filepath.Clean(d), nil
	}
	return "", fmt.Errorf("%s unset and %s absent: %w", EnvDir, d, ErrNotFound)
}

// Required reports whether missing shared data must fail the test run.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Dir returns the shared data directory, or skips (or fails, when required) t.
func Dir(t testing.TB) string {
	t.Helper()
	d, err := Locate()
	if err != nil {
		missing(t, err.Error())
	}
	return d
}

// File returns the path of rel inside the shared data directory, skipping or
// failing t when the file is missing.
func File(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, fmt.Sprintf("shared file %s: %v", rel, err))
	}
	return p
}

// Dfrotz returns the path of Debian's dfrotz, skipping or failing t when it is
// not installed (scripts/test-deps.sh installs it).
func Dfrotz(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(DfrotzPath); err == nil {
		return DfrotzPath
	}
	if p, err := exec.LookPath("dfrotz"); err == nil {
		return p
	}
	missing(t, "dfrotz not installed (run scripts/test-deps.sh)")
	return ""
}

func missing(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (and %s=1)", why, EnvRequire)
	}
	t.Skip(why)
}

// repoRoot is the module's root: above the working directory, or, for a
// test that moved to a directory of its own (t.Chdir), above this source
// file.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	if root, err := rootAbove(dir); err == nil {
		return root, nil
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		return rootAbove(filepath.Dir(file))
	}
	return rootAbove(dir)
}

func rootAbove(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find repository root: no go.mod above working directory: %w", ErrNotFound)
		}
		dir = parent
	}
}

// EnvJericho names the variable that widens the replays of Jericho's suite
// below the full loop (the environment, the critic's ground truth, the
// differential test against dfrotz) from a few representative games to
// all of them: LANTERN_JERICHO=all. The full loop (the bench suite test)
// plays every game always.
const EnvJericho = "LANTERN_JERICHO"

// JerichoPlayed reports whether a replay below the full loop plays the
// Jericho game file: every game with LANTERN_JERICHO=all, the games listed
// with LANTERN_JERICHO=theatre.z5,lostpig.z8, else the representative
// ones: one-room stories (acorncourt, weapon), one without headings
// (murdac), one that tells of arrivals first and is won short of its
// maximum (lostpig, version 8), another won short (balances), one with a
// command the game refuses (zenon), and those that reach what the others
// do not: a cleared window and single keys (theatre), a restart question
// (inhumane), scores and locations read other ways (huntdark, afflicted,
// curses), a key read at a prompt (yomomma); and a plain detective story.
// Together they cover what all 38 cover of the environment and the line
// interface (found by coverage, game by game).
func JerichoPlayed(file string) bool {
	switch v := os.Getenv(EnvJericho); {
	case v == "all":
		return true
	case v != "":
		return slices.Contains(strings.Split(v, ","), file) // a list of games: those
	}
	switch file {
	case "acorncourt.z5", "afflicted.z8", "balances.z5", "curses.z5", "detective.z5", "huntdark.z5", "inhumane.z5", "lostpig.z8",
		"murdac.z5", "theatre.z5", "weapon.z5", "yomomma.z8", "zenon.z5":
		return true
	}
	return false
}
