//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/zmachine"
)

// A run that pauses because a work dir file cannot be written (an
// immutable Memories.md; a file system out of inodes) prints every turn
// lantern.db recorded before it stops: the last printed turn is the last
// stored one, in text and in --json.
func TestPausedRunPrintsItsLastStoredTurn(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	faults := []struct {
		name  string
		setup func(t *testing.T, wd, sd string) (clear func(), ok bool)
	}{
		{"immutable Memories.md", func(t *testing.T, _, sd string) (func(), bool) {
			p := filepath.Join(sd, "Memories.md")
			if exec.Command("chattr", "+i", p).Run() != nil {
				return nil, false
			}
			return func() { exec.Command("chattr", "-i", p).Run() }, true
		}},
		{"no inode left", func(t *testing.T, wd, sd string) (func(), bool) {
			var fill []string
			for i := 0; ; i++ {
				p := filepath.Join(wd, fmt.Sprintf("fill-%d", i))
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					return func() {
						for _, f := range fill {
							os.Remove(f)
						}
					}, errors.Is(err, syscall.ENOSPC) && len(fill) > 0
				}
				fill = append(fill, p)
			}
		}},
	}
	for _, f := range faults {
		for _, asJSON := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s json=%v", f.name, asJSON), func(t *testing.T) {
				wd := filepath.Join(dir, strings.ReplaceAll(f.name, " ", "-")+fmt.Sprint(asJSON))
				if err := os.MkdirAll(wd, 0o755); err != nil {
					t.Fatal(err)
				}
				if f.name == "no inode left" {
					if os.Geteuid() != 0 || exec.Command("mount", "-t", "tmpfs", "-o", "size=16m,nr_inodes=64", "tmpfs", wd).Run() != nil {
						t.Skip("mounting a small tmpfs needs root")
					}
					t.Cleanup(func() { exec.Command("umount", wd).Run() })
				}
				args := []string{"run", "--agent", "script:" + walk, "--workdir", wd, "--max-turns", "40"}
				if asJSON {
					args = append(args, "--json")
				}
				// The fault comes while the run plays: after two printed
				// turns (the run waits to print the third meanwhile).
				sd := filepath.Join(wd, session.StoryDir(demo.FileName, story.Info().Release))
				pr, pw := io.Pipe()
				var errb strings.Builder
				done := make(chan int, 1)
				go func() {
					done <- run(context.Background(), sampleConfig(t), args, strings.NewReader(""), pw, &errb)
					pw.Close()
				}()
				sc := bufio.NewScanner(pr)
				var out strings.Builder
				for n := 1; sc.Scan(); n++ {
					out.WriteString(sc.Text() + "\n")
					if n == 2 {
						clear, ok := f.setup(t, wd, sd)
						if clear != nil {
							defer clear()
						}
						if !ok {
							go io.Copy(io.Discard, pr)
							<-done
							t.Skipf("%s is not possible here", f.name)
						}
					}
				}
				code, stderr := <-done, errb.String()
				if code != exitError || !strings.Contains(stderr, "could not be written") {
					t.Fatalf("exit %d, want %d with the file named:\n%s", code, exitError, stderr)
				}
				db, err := rundb.OpenRunDB(filepath.Join(sd, "lantern.db"), story.Info().MD5)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				sums, err := db.EpisodeSummaries(context.Background())
				if err != nil || len(sums) == 0 {
					t.Fatalf("episodes: %v %v", sums, err)
				}
				stored := sums[0].Turns
				printed := 0
				for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					var r runLine
					if asJSON {
						if json.Unmarshal([]byte(l), &r) == nil {
							printed = r.Turn
						}
					} else if _, err := fmt.Sscanf(l, "T%d", &r.Turn); err == nil {
						printed = r.Turn
					}
				}
				if stored == 0 || printed != stored {
					t.Errorf("lantern.db holds turn %d of %s, the run printed up to turn %d:\n%s\n%s", stored, sums[0].Line(), printed, out.String(), stderr)
				}
			})
		}
	}
}
