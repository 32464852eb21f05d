package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/tui"
)

// tuiBranches is lantern.db as the TUI's timeline reads its branches.
type tuiBranches struct{ *rundb.RunDB }

func (b tuiBranches) Branches(ctx context.Context, root int64) ([]tui.BranchRow, error) {
	bs, err := b.RunDB.Branches(ctx, root)
	rows := make([]tui.BranchRow, len(bs))
	for i, x := range bs {
		rows[i] = tui.BranchRow(x)
	}
	return rows, err
}

// parseFrom reads --from's EPISODE:TURN (an episode or branch ID from
// `lantern episodes`, and a turn played on it).
func parseFrom(s string) (episode int64, turn int, err error) {
	ep, t, ok := strings.Cut(strings.TrimSpace(s), ":")
	if ok {
		episode, err = strconv.ParseInt(ep, 10, 64)
	}
	if ok && err == nil {
		turn, err = strconv.Atoi(t)
	}
	if !ok || err != nil || episode < 1 || turn < 1 {
		return 0, 0, usageErrorf("--from wants EPISODE:TURN (IDs from lantern episodes, a turn from 1), not %q", s)
	}
	return episode, turn, nil
}

// startFrom makes the session play on from a turn of a recorded episode
// or branch, on a branch of its own (saying so on stderr).
func startFrom(ctx context.Context, sess *session.Session, from, name, who string, stderr io.Writer) int {
	episode, turn, err := parseFrom(from)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", who, err)
		return exitUsage
	}
	b, err := sess.ResumeAt(ctx, episode, turn, name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --from %s: %v\n", who, from, err)
		return exitError
	}
	fmt.Fprintf(stderr, "%s: playing on from turn %d of #%d on branch #%d (%s); the turns after it stay on #%d\n", who, turn, episode, b.ID, b.Label(), episode)
	printLastTurn(ctx, sess.DB, rundb.Checkpoint{Episode: b.ID, Turn: turn}, who, stderr)
	return exitOK
}
