package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory/rundb"
)

// TestKilledDuringRewindAndBranchPlay: 20 times a headless run starts a
// branch at a random turn of a random branch (run --from) or continues the
// branch played last (--resume), and is killed with SIGKILL at a random
// point, from its start (while it branches) to 8 turns in. The script agent
// plays Zork I's walkthrough, which a branch continues from its fork, so
// every branch's line must be the uninterrupted run's turns. After every
// kill: each line runs 1..N without a gap or a turn twice and equals the
// reference; every turn the run reported is kept; the resume point is the
// last turn of a branch and its state reads back.
func TestKilledDuringRewindAndBranchPlay(t *testing.T) {
	storyPath, walk, dir, bin, story := zorkProcessFixture(t)
	wd := filepath.Join(dir, "wd")
	sd := filepath.Join(wd, session.StoryDir(storyPath, story.Info().Release))
	base := []string{"run", "--headless", "--json", "--story", storyPath, "--seed", "12", "--agent", "script:" + walk, "--workdir", wd}
	if out, err := exec.Command(bin, append(base, "--max-turns", "200")...).CombinedOutput(); err != nil {
		t.Fatalf("the first run: %v\n%.2000s", err, out)
	}
	ctx := context.Background()
	open := func() *rundb.RunDB {
		db, err := rundb.OpenRunDB(filepath.Join(sd, "lantern.db"), story.Info().MD5)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	ref, err := db.Turns(ctx, 1)
	db.Close()
	if err != nil || len(ref) != 200 {
		t.Fatalf("the first run recorded %d turns (%v), want 200", len(ref), err)
	}

	seed := uint64(os.Getpid())
	if s, err := strconv.ParseUint(os.Getenv("LANTERN_KILL_SEED"), 10, 64); err == nil {
		seed = s // to replay a failure's kill points
	}
	rng := rand.New(rand.NewPCG(seed, 30))
	t.Logf("kill points from seed %d", seed)
	var trials []string
	for trial := 1; trial <= 20; trial++ {
		db := open()
		tree, err := db.Branches(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		cp, unfinished, err := db.LastCheckpoint(ctx)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		args := append(base, "--max-turns", "0")
		var what string
		if unfinished && cp.Turn < 180 && rng.IntN(3) == 0 {
			args, what = append(args, "--resume"), fmt.Sprintf("resume #%d@%d", cp.Episode, cp.Turn)
		} else {
			b := tree[rng.IntN(len(tree))]
			turn := 1 + rng.IntN(min(b.Turns, 120))
			args, what = append(args, "--from", fmt.Sprintf("#%d:%d", b.ID, turn)), fmt.Sprintf("from #%d:%d", b.ID, turn)
		}
		cmd := exec.Command(bin, args...)
		sc, stderr := startLines(t, cmd)
		lines, after := 0, rng.IntN(9)
		for lines < after && sc.Scan() {
			lines++
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if lines < after {
			t.Fatalf("trial %d (%s) ended by itself after %d turns:\n%s", trial, what, lines, stderr.String())
		}
		trials = append(trials, fmt.Sprintf("%s+%d", what, lines))
		// A run killed before its branch was made leaves what was there:
		// no resume point if the tree had none (the first run ended at
		// its turn limit).
		checkBranches(t, open(), ref, trial, lines, unfinished || lines > 0)
	}
	t.Logf("trials (what, then turns reported before the kill): %v", trials)
}

// checkBranches checks what a kill left (and closes db): every branch's
// line is the reference's turns 1..N, once each; the resume point (which
// must exist when mustResume) is its branch's last turn, readable; the
// branch played last kept at least the turns the killed run reported.
func checkBranches(t *testing.T, db *rundb.RunDB, ref []rundb.Turn, trial, reported int, mustResume bool) {
	t.Helper()
	defer db.Close()
	ctx := context.Background()
	tree, err := db.Branches(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range tree {
		line, err := db.BranchTurns(ctx, b.ID)
		if err != nil {
			t.Fatalf("after kill %d: branch #%d: %v", trial, b.ID, err)
		}
		for i, tr := range line {
			if tr.Turn != i+1 {
				t.Fatalf("after kill %d: branch #%d has turn %d at position %d", trial, b.ID, tr.Turn, i+1)
			}
			if w := ref[i]; tr.Action != w.Action || tr.Response != w.Response || tr.Score != w.Score || tr.LocationID != w.LocationID {
				t.Fatalf("after kill %d: branch #%d's turn %d is %q → %q, the uninterrupted run's %q → %q", trial, b.ID, i+1, tr.Action, tr.Response, w.Action, w.Response)
			}
		}
		if b.Turns != len(line) {
			t.Errorf("after kill %d: branch #%d says %d turns, its line holds %d", trial, b.ID, b.Turns, len(line))
		}
	}
	cp, ok, err := db.LastCheckpoint(ctx)
	if err == nil && !ok && !mustResume {
		return
	}
	if err != nil || !ok {
		t.Fatalf("after kill %d: no resume point (%v)", trial, err)
	}
	line, err := db.BranchTurns(ctx, cp.Episode)
	if err != nil || len(line) != cp.Turn {
		t.Fatalf("after kill %d: the resume point #%d@%d, its line holds %d turns (%v)", trial, cp.Episode, cp.Turn, len(line), err)
	}
	if _, err := db.StateAt(ctx, cp.Episode, cp.Turn); err != nil {
		t.Fatalf("after kill %d: the resume point's state: %v", trial, err)
	}
	own := 0
	for _, tr := range line {
		if tr.Episode == cp.Episode {
			own++
		}
	}
	if reported > 0 && own < reported {
		t.Fatalf("after kill %d: the run reported %d turns, branch #%d keeps %d of its own", trial, reported, cp.Episode, own)
	}
}
