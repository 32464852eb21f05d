package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
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

// startFrom makes the session play on from a turn of a recorded line of
// play (--from LINE:TURN): on a new branch, or on the line itself from its
// last turn (saying so on stderr).
func startFrom(ctx context.Context, sess *session.Session, from, name, who string, stderr io.Writer) int {
	ref, turn, err := domain.ParseLineAt(from)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --from: %v\n", who, err)
		return exitUsage
	}
	src, err := sess.DB.ResolveLine(ctx, ref)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --from %s: %v\n", who, sanitize.Line(from), err)
		return exitError
	}
	b, err := sess.ResumeAt(ctx, src.ID, turn, name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --from %s: %v\n", who, sanitize.Line(from), err)
		return exitError
	}
	if b.ID == src.ID {
		fmt.Fprintf(stderr, "%s: playing on %s (#%d) from its last turn, %d\n", who, sanitize.Line(b.String()), b.ID, turn)
	} else {
		fmt.Fprintf(stderr, "%s: playing on from %s on the new branch %s (#%d); the turns after it stay on %s\n", who,
			sanitize.Line(src.Line().At(turn)), sanitize.Line(b.String()), b.ID, sanitize.Line(src.Line().String()))
	}
	printLastTurn(ctx, sess.DB, rundb.Checkpoint{Episode: b.ID, Turn: turn}, who, stderr)
	return exitOK
}
