package sharedtest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// RunDfrotz runs Debian's dfrotz as the references were made (-m -p -q:
// no status line, no pauses, no banner; -s seed) on story, in dir (a new
// temporary directory when empty), typing input; flags go before the
// others (the Jericho suite adds -Z 0). It returns what dfrotz printed; a
// failure or a run over a minute fails t.
func RunDfrotz(t testing.TB, dir, story string, seed int, input string, flags ...string) string {
	t.Helper()
	bin := Dfrotz(t)
	if dir == "" {
		dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append(append([]string{}, flags...), "-m", "-p", "-q", "-s", fmt.Sprint(seed), story)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("dfrotz: %v: %s", err, errb.String())
	}
	return out.String()
}

// Fold collapses every run of whitespace to one space, so that line
// wrapping and blank lines do not matter when transcripts are compared.
func Fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstDiff describes where two texts part, with context from each side.
func FirstDiff(ours, ref string) string {
	i := 0
	for i < len(ours) && i < len(ref) && ours[i] == ref[i] {
		i++
	}
	lo := max(0, i-160)
	return fmt.Sprintf("at byte %d:\nours: …%s…\nref:  …%s…", i, ours[lo:min(len(ours), i+160)], ref[lo:min(len(ref), i+160)])
}
