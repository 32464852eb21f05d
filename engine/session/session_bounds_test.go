package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
)

// TestStateKeepsEmptyObjectives: current_state.json always has an
// objectives list, [] when there is none.
func TestStateKeepsEmptyObjectives(t *testing.T) {
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: t.TempDir(),
		Agent: recording("look"), Engine: engine.Config{Seed: 3, MaxTurns: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	runAll(t, sess)
	data, err := os.ReadFile(filepath.Join(sess.Dir, "current_state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]json.RawMessage
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if string(st["objectives"]) != "[]" {
		t.Errorf("objectives = %s, want []", st["objectives"])
	}
}

// TestWorkDirPlainErrors: a dangling symbolic link as work dir and a NUL
// in its name get plain messages.
func TestWorkDirPlainErrors(t *testing.T) {
	story, binding := demoStory(t)
	link := filepath.Join(t.TempDir(), "wd")
	if err := os.Symlink("/nonexistent/lantern-target", link); err != nil {
		t.Fatal(err)
	}
	for wd, want := range map[string]string{link: "which does not exist", "bad\x00dir": "NUL"} {
		_, err := Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: wd, Agent: recording("look")})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("work dir %q: %v, want a message with %q", wd, err, want)
		}
	}
}
