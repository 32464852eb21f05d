package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/managers/knowledge"
	"github.com/lantern-if/lantern/memory"
)

// TestSessionOneOwner: a second session on the same story folder refuses,
// naming the owner's PID, until the first closes.
func TestSessionOneOwner(t *testing.T) {
	story, binding := demoStory(t)
	wd := t.TempDir()
	open := func() (*Session, error) {
		return Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: wd, Agent: recording("look")})
	}
	first, err := open()
	if err != nil {
		t.Fatal(err)
	}
	_, err = open()
	var iu *memory.InUseError
	if !errors.Is(err, memory.ErrInUse) || !errors.As(err, &iu) || iu.PID != os.Getpid() {
		t.Fatalf("second session: %v; want ErrInUse naming PID %d", err, os.Getpid())
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := open()
	if err != nil {
		t.Fatalf("after the owner closed: %v", err)
	}
	again.Close()
}

// TestEpisodeNumbersAcrossLaunches: each launch's episode continues the
// run database's numbering; the engine's events, lantern.db and
// knowledgebase.md agree.
func TestEpisodeNumbersAcrossLaunches(t *testing.T) {
	story, binding := demoStory(t)
	wd := t.TempDir()
	var dir string
	for launch := 1; launch <= 3; launch++ {
		sess, err := Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: wd,
			Agent: recording("look", "look"), Engine: engine.Config{Seed: 3, MaxTurns: 2}, Planning: Planning{Knowledge: true}})
		if err != nil {
			t.Fatal(err)
		}
		dir = sess.Dir
		evs := runAll(t, sess)
		var started, ended []int
		for _, ev := range evs {
			switch v := ev.(type) {
			case engine.EpisodeStarted:
				started = append(started, v.Episode)
			case engine.EpisodeEnded:
				ended = append(ended, v.Episode)
			}
		}
		if len(started) != 1 || started[0] != launch || len(ended) != 1 || ended[0] != launch {
			t.Errorf("launch %d: episodes started %v, ended %v; want [%d]", launch, started, ended, launch)
		}
		eps, err := sess.DB.Episodes(context.Background())
		if err != nil || len(eps) != launch || eps[launch-1].ID != int64(launch) || eps[launch-1].Turns != 2 {
			t.Errorf("launch %d: lantern.db episodes %+v (%v)", launch, eps, err)
		}
		sess.Close()
	}
	data, err := os.ReadFile(filepath.Join(dir, knowledge.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if c := strings.Count(string(data), "Episode "+string(rune('0'+n))); c != 1 {
			t.Errorf("knowledgebase.md names episode %d %d times, want once:\n%s", n, c, data)
		}
	}
}
