package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// TestCrashAndResume kills a headless session (the Zork I walkthrough
// through the whole loop) with SIGKILL at random turns, 20 times, resuming
// it with --resume each time, then lets it finish. After every kill
// Memories.md checks and lantern.db's turns run 1..N without a gap, with
// the checkpoint at N. At the end the one episode holds every turn exactly
// once, and each turn's action, response, score and location equal an
// uninterrupted run's: the resumed machine was identical.
func TestCrashAndResume(t *testing.T) {
	storyPath, walk, dir, bin, story := zorkProcessFixture(t)
	md5 := story.Info().MD5
	args := func(wd string) []string { return walkthroughRunArgs(storyPath, walk, wd) }
	storyDir := func(wd string) string { return filepath.Join(wd, session.StoryDir(storyPath, story.Info().Release)) }

	// The uninterrupted run.
	ref := filepath.Join(dir, "ref")
	if out, err := exec.Command(bin, args(ref)...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%.2000s", err, out)
	}
	want := episodeTurns(t, storyDir(ref), md5)
	if n := len(want); n < 300 || want[n-1].Score != 350 {
		t.Fatalf("reference run: %d turns, last %+v", n, want[n-1])
	}

	wd := filepath.Join(dir, "crash")
	seed := uint64(os.Getpid())
	rng := rand.New(rand.NewPCG(seed, 20))
	t.Logf("kill points from seed %d", seed)
	var killedAt []int
	for kill := 0; kill < 20; kill++ {
		a := args(wd)
		if kill > 0 {
			a = append(a, "--resume")
		}
		cmd := exec.Command(bin, a...)
		cmd.Stderr = new(strings.Builder)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after 1–15 turns of this run have been reported.
		lines, after := 0, 1+rng.IntN(15)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for lines < after && sc.Scan() {
			lines++
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if lines < after {
			t.Fatalf("run %d ended by itself after %d lines:\n%s", kill+1, lines, cmd.Stderr)
		}
		// What the kill left: a Memories.md that checks, turns 1..N, and
		// the checkpoint at N.
		var mem strings.Builder
		if code := memory.Check(&mem, filepath.Join(storyDir(wd), "Memories.md")); code != 0 {
			t.Fatalf("after kill %d: Memories.md does not check:\n%s", kill+1, mem.String())
		}
		turns := episodeTurns(t, storyDir(wd), md5)
		for i, tr := range turns {
			if tr.Turn != i+1 {
				t.Fatalf("after kill %d: turn %d at position %d", kill+1, tr.Turn, i+1)
			}
		}
		cp := checkpointTurn(t, storyDir(wd), md5)
		if cp != len(turns) {
			t.Fatalf("after kill %d: checkpoint at turn %d, %d turns recorded", kill+1, cp, len(turns))
		}
		killedAt = append(killedAt, cp)
	}
	t.Logf("killed after turns %v", killedAt)
	if out, err := exec.Command(bin, append(args(wd), "--resume")...).CombinedOutput(); err != nil {
		t.Fatalf("last resume: %v\n%.2000s", err, out)
	}
	got := episodeTurns(t, storyDir(wd), md5)
	if len(got) != len(want) {
		t.Fatalf("%d turns after the crashes, %d without", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Turn != w.Turn || g.Action != w.Action || g.Response != w.Response || g.Score != w.Score || g.Moves != w.Moves || g.LocationID != w.LocationID {
			t.Fatalf("turn %d differs after the crashes:\n got %q → %q (score %d, L%d)\nwant %q → %q (score %d, L%d)",
				w.Turn, g.Action, g.Response, g.Score, g.LocationID, w.Action, w.Response, w.Score, w.LocationID)
		}
	}
	var mem strings.Builder
	if code := memory.Check(&mem, filepath.Join(storyDir(wd), "Memories.md")); code != 0 {
		t.Fatalf("Memories.md does not check:\n%s", mem.String())
	}
}

// episodeTurns reads the turns of the story's only episode.
func episodeTurns(t *testing.T, dir, md5 string) []rundb.Turn {
	t.Helper()
	db, err := rundb.OpenRunDB(filepath.Join(dir, "lantern.db"), md5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eps, err := db.Episodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want the one resumed episode: %s", len(eps), jsonOf(eps))
	}
	turns, err := db.Turns(context.Background(), eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

// checkpointTurn is the turn of the unfinished episode's checkpoint.
func checkpointTurn(t *testing.T, dir, md5 string) int {
	t.Helper()
	db, err := rundb.OpenRunDB(filepath.Join(dir, "lantern.db"), md5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cp, ok, err := db.LastCheckpoint(context.Background())
	if err != nil || !ok {
		t.Fatalf("no checkpoint (%v)", err)
	}
	return cp.Turn
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
