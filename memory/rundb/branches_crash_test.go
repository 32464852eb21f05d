package rundb

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashHelperEnv names the database a child of TestKilledWhileBranching
// plays on.
const crashHelperEnv = "LANTERN_RUNDB_CRASH_CHILD"

// crashTurns is how many turn rows a child stops at.
const crashTurns = 1000

// TestRunDBCrashChild is the child process of TestKilledWhileBranching
// (it does nothing in a normal run).
func TestRunDBCrashChild(t *testing.T) {
	path := os.Getenv(crashHelperEnv)
	if path == "" {
		return
	}
	if err := crashChild(path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

// crashChild continues the play it finds in the database (the branch the
// checkpoint names, as a resumed session does) and prints "ack" after each
// committed operation: a turn recorded with its state, or a branch made
// 4 turns back every 13 turns.
func crashChild(path string) error {
	ctx := context.Background()
	db, err := OpenRunDB(path, "abc")
	if err != nil {
		return err
	}
	defer db.Close()
	ep, turn := int64(0), 0
	if cp, ok, err := db.LastCheckpoint(ctx); err != nil {
		return err
	} else if ok {
		ep, turn = cp.Episode, cp.Turn
	} else if ep, err = db.StartEpisode(ctx, 1); err != nil {
		return err
	}
	for {
		var rows int
		if err := db.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns`).Scan(&rows); err != nil {
			return err
		}
		if rows >= crashTurns {
			return nil
		}
		eps, err := db.Episodes(ctx)
		if err != nil {
			return err
		}
		var forkTurn int
		children := 0
		for _, e := range eps {
			if e.ID == ep {
				forkTurn = e.ForkTurn
			}
			if e.Parent == ep {
				children++
			}
		}
		if turn%13 == 0 && turn > 0 && children == 0 && forkTurn < turn-4 {
			if ep, err = db.Branch(ctx, ep, turn-4, fmt.Sprint("b", turn)); err != nil {
				return err
			}
			turn -= 4
		} else {
			turn++
			cp := stateOf(ep, turn)
			if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: turn, Actor: "agent", Action: "a", Verdicts: "[]", Score: turn, Checkpoint: &cp}); err != nil {
				return err
			}
		}
		fmt.Println("ack")
	}
}

// TestKilledWhileBranching: a child playing and branching is killed
// (SIGKILL) at random moments, 20 times, each run continuing what the one
// before left. After each kill every acknowledged operation is there (and
// at most one more), no turn is there twice, every turn's state reads back
// as recorded, and the checkpoint is the state of its branch's last turn.
func TestKilledWhileBranching(t *testing.T) {
	t.Parallel() // waits on children or a held lock, not on the processor
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "lantern.db")
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	ops := 0
	for run := range 20 {
		acks, err := crashRunChild(path, rng.IntN(40), time.Duration(rng.IntN(2000))*time.Microsecond)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		got, err := crashCheck(path)
		if err != nil {
			t.Fatalf("run %d (killed after %d acks): %v", run, acks, err)
		}
		if got < ops+acks || got > ops+acks+1 {
			t.Fatalf("run %d: %d operations stored, %d before and %d acknowledged", run, got, ops, acks)
		}
		ops = got
	}
	t.Logf("%d operations stored over 20 killed runs", ops)
}

// crashRunChild starts a child on path and kills it delay after its
// target-th ack (or when it finishes); it returns the acks read.
func crashRunChild(path string, target int, delay time.Duration) (int, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunDBCrashChild$")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	kill := func() { cmd.Process.Signal(syscall.SIGKILL) }
	if target == 0 {
		time.AfterFunc(delay, kill)
	}
	acks := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() != "ack" {
			continue
		}
		acks++
		if acks == target {
			time.AfterFunc(delay, kill)
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return acks, nil
	}
	if err != nil {
		return acks, fmt.Errorf("child: %v: %s", err, stderr.String())
	}
	return acks, nil
}

// crashCheck checks the database a killed child left and returns how many
// operations it holds (turn rows and branches).
func crashCheck(path string) (int, error) {
	ctx := context.Background()
	db, err := OpenRunDB(path, "abc")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	eps, err := db.Episodes(ctx)
	if err != nil {
		return 0, err
	}
	ops := 0
	same := func(ep int64, turn int, owner int64) error {
		got, err := db.StateAt(ctx, ep, turn)
		if err != nil {
			return err
		}
		want := stateOf(owner, turn)
		if !bytes.Equal(got.Machine, want.Machine) || !bytes.Equal(got.Engine, want.Engine) {
			return fmt.Errorf("episode %d turn %d: not the state recorded", ep, turn)
		}
		return nil
	}
	for _, e := range eps {
		if e.Parent != 0 {
			ops++
		}
		ts, err := db.BranchTurns(ctx, e.ID)
		if err != nil {
			return 0, err
		}
		for i, tr := range ts {
			if tr.Turn != i+1 {
				return 0, fmt.Errorf("episode %d: turn %d at place %d of its transcript", e.ID, tr.Turn, i+1)
			}
			if tr.Episode == e.ID {
				ops++
			}
			if tr.Episode != e.ID && tr.Turn != e.ForkTurn {
				continue // an inherited turn: checked as its owner's
			}
			if err := same(e.ID, tr.Turn, tr.Episode); err != nil {
				return 0, err
			}
		}
	}
	cp, ok, err := db.LastCheckpoint(ctx)
	if err != nil || (!ok && ops > 0) {
		return 0, fmt.Errorf("checkpoint: %v, %v", ok, err)
	}
	if ok {
		ts, _ := db.BranchTurns(ctx, cp.Episode)
		if len(ts) != cp.Turn {
			return 0, fmt.Errorf("the checkpoint is at turn %d of episode %d, which has %d", cp.Turn, cp.Episode, len(ts))
		}
		if err := same(cp.Episode, cp.Turn, ts[cp.Turn-1].Episode); err != nil {
			return 0, fmt.Errorf("checkpoint: %w", err)
		}
		want := stateOf(ts[cp.Turn-1].Episode, cp.Turn)
		if !bytes.Equal(cp.Machine, want.Machine) || !bytes.Equal(cp.Engine, want.Engine) {
			return 0, fmt.Errorf("the checkpoint row is not its turn's state")
		}
	}
	return ops, nil
}
