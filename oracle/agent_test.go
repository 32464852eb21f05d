package oracle

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/managers/contextmgr"
)

// agentPrompt is the user message Lantern's context manager builds for a
// turn with the given previous turns.
func agentPrompt(turn int, recent ...contextmgr.HistoryEntry) string {
	in := contextmgr.Input{Turn: turn, LocationID: 3, LocationName: "Behind House", Score: 0, Moves: turn - 1,
		LastText: "You are behind the white house. In one corner of the house there is a small window which is slightly ajar.",
		Recent:   recent}
	return contextmgr.Build(in)[1].Content
}

func played(turn int, actor, action string) contextmgr.HistoryEntry {
	return contextmgr.HistoryEntry{Turn: turn, Actor: actor, Action: action, Response: "Done."}
}

func TestWalkerAdvancesOnlyWhenPlayed(t *testing.T) {
	w := &walker{script: []string{"N", "Open window", "W", "get lamp"}}
	steps := []struct {
		name   string
		prompt string
		action string
		step   int
		again  bool
	}{
		{"first turn proposes the first step", agentPrompt(1), "N", 1, false},
		{"played (spelled north) advances", agentPrompt(2, played(1, "agent", "north")), "Open window", 2, false},
		{"the same turn asked again (a rejection) repeats", agentPrompt(2, played(1, "agent", "north")), "Open window", 2, true},
		{"a person played something else: no advance", agentPrompt(3, played(1, "agent", "north"), played(2, "human", "examine window")), "Open window", 2, true},
		{"played with other case and spacing advances", agentPrompt(4, played(2, "human", "examine window"), played(3, "agent", "open   WINDOW")), "W", 3, false},
		{"no previous-turns section: a later turn counts as played", agentPrompt(5), "get lamp", 4, false},
		{"script played out: look", agentPrompt(6, played(5, "agent", "get lamp")), FallbackCommand, 0, false},
		{"still played out", agentPrompt(7, played(6, "agent", "look")), FallbackCommand, 0, false},
		{"turn 1 after a later turn restarts the script", agentPrompt(1), "N", 1, false},
	}
	for _, s := range steps {
		p := w.propose(s.prompt)
		if p.Action != s.action || p.Step != s.step || p.Again != s.again {
			t.Fatalf("%s: got %+v, want action %q step %d again %v", s.name, p, s.action, s.step, s.again)
		}
	}
}

func TestWalkerRejectionAtTurnOneRepeats(t *testing.T) {
	w := &walker{script: []string{"open mailbox", "read leaflet"}}
	for i := 0; i < 3; i++ {
		if p := w.propose(agentPrompt(1)); p.Action != "open mailbox" {
			t.Fatalf("call %d: %q, want the first step again", i+1, p.Action)
		}
	}
	if p := w.propose(agentPrompt(2, played(1, "agent", "open mailbox"))); p.Action != "read leaflet" {
		t.Fatalf("after it was played: %q", p.Action)
	}
}

func TestWalkerRepeatedCommandsInScript(t *testing.T) {
	// Two equal steps in a row: each needs its own played turn.
	w := &walker{script: []string{"wait", "wait", "north"}}
	want := []struct {
		prompt string
		step   int
	}{
		{agentPrompt(1), 1},
		{agentPrompt(2, played(1, "agent", "wait")), 2},
		{agentPrompt(2, played(1, "agent", "wait")), 2},
		{agentPrompt(3, played(1, "agent", "wait"), played(2, "agent", "wait")), 3},
	}
	for i, c := range want {
		if p := w.propose(c.prompt); p.Step != c.step {
			t.Fatalf("call %d: step %d, want %d", i+1, p.Step, c.step)
		}
	}
}

func TestReasoningNamesTheStep(t *testing.T) {
	w := &walker{script: []string{"N", "S"}}
	p := w.propose(agentPrompt(1))
	if r := w.reasoning(p); !strings.Contains(r, "Step 1 of 2") || !strings.Contains(r, "N") {
		t.Errorf("reasoning %q", r)
	}
	p = w.propose(agentPrompt(1))
	if r := w.reasoning(p); !strings.Contains(r, "still") {
		t.Errorf("repeated proposal's reasoning %q", r)
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "walk.txt")
	os.WriteFile(good, []byte("# Zork I\n\nN\n  open mailbox  \n# done\n"), 0o644)
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("# only a comment\n\n"), 0o644)
	cmds, err := LoadScript(good)
	if err != nil || strings.Join(cmds, "|") != "N|open mailbox" {
		t.Fatalf("LoadScript: %q, %v", cmds, err)
	}
	if _, err := LoadScript(empty); !errors.Is(err, ErrEmptyScript) {
		t.Errorf("empty script: %v, want ErrEmptyScript", err)
	}
	if _, err := LoadScript(filepath.Join(dir, "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing script: %v", err)
	}
}

func TestStatsCountRepeats(t *testing.T) {
	o := New(Options{Script: []string{"open window", "enter window"}})
	format := json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}},"required":["action"]}`)
	ask := func(user string) {
		t.Helper()
		if _, err := o.respond("", config.RoleAgent, &api.ChatRequest{Model: ModelName, Format: format,
			Messages: []api.Message{{Role: "user", Content: user}}}); err != nil {
			t.Fatal(err)
		}
	}
	ask(agentPrompt(1))
	ask(agentPrompt(2, played(1, "agent", "open window")))
	ask(agentPrompt(2, played(1, "agent", "open window")))
	o.respond("", config.RoleMemory, &api.ChatRequest{Model: ModelName})
	st := o.Stats()
	if st.Proposals != 3 || len(st.Repeats) != 1 || st.Repeats[0] != (Repeat{Turn: 2, Action: "enter window"}) || st.Others != 1 {
		t.Errorf("stats %+v", st)
	}
	if s := st.String(); !strings.Contains(s, "3 proposals, 1 repeated (T2 enter window)") {
		t.Errorf("summary %q", s)
	}
}

// TestWalkerFindsItsPlace: a turn that does not follow the last one (a
// rewind, a resumed session or run --from, a person's run of commands)
// puts the walker after the last turn played, found in the walkthrough
// nearest its own step; a fresh walker that finds nothing takes step n.
func TestWalkerFindsItsPlace(t *testing.T) {
	script := []string{"n", "n", "open window", "w", "get lamp", "n", "e"}
	steps := []struct {
		name   string
		w      *walker
		prompt string
		step   int
	}{
		{"rewound to turn 3 after turn 6 was proposed", &walker{script: script, next: 5, pendingTurn: 6, pendingCmd: "n"},
			agentPrompt(4, played(2, "agent", "n"), played(3, "agent", "open window")), 4},
		{"a fresh oracle asked turn 3 of a resumed run (n repeats: the nearest)", &walker{script: script},
			agentPrompt(3, played(1, "agent", "n"), played(2, "agent", "north")), 3},
		{"a fresh oracle asked turn 7 after a person's own command", &walker{script: script},
			agentPrompt(7, played(6, "human", "inventory")), 7},
		{"a person played the walkthrough's next two commands", &walker{script: script, next: 3, pendingTurn: 4, pendingCmd: "w"},
			agentPrompt(7, played(5, "human", "w"), played(6, "human", "get lamp")), 6},
		{"a person played two other commands: the same step", &walker{script: script, next: 3, pendingTurn: 4, pendingCmd: "w"},
			agentPrompt(7, played(5, "human", "inventory"), played(6, "human", "look")), 4},
	}
	for _, s := range steps {
		if p := s.w.propose(s.prompt); p.Step != s.step || p.Action != script[s.step-1] {
			t.Errorf("%s: got %+v, want step %d (%q)", s.name, p, s.step, script[s.step-1])
		}
	}
}

// TestConversationsDoNotMix: two games on one oracle, their calls
// interleaved, each follow the walkthrough from its own place.
func TestConversationsDoNotMix(t *testing.T) {
	script := []string{"open mailbox", "read leaflet", "n", "e"}
	o := New(Options{Script: script})
	format := json.RawMessage(`{"type":"object","properties":{"reasoning":{"type":"string"},"action":{"type":"string"}},"required":["reasoning","action"]}`)
	ask := func(conv string, turn int, recent ...contextmgr.HistoryEntry) string {
		a, err := o.respond(conv, config.RoleAgent, &api.ChatRequest{Model: ModelName, Format: format,
			Messages: []api.Message{{Role: "user", Content: agentPrompt(turn, recent...)}}})
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Action string }
		json.Unmarshal([]byte(a.Content), &r)
		return r.Action
	}
	var got []string
	got = append(got, ask("a", 1), ask("b", 1))
	got = append(got, ask("a", 2, played(1, "agent", "open mailbox")))
	got = append(got, ask("a", 3, played(2, "agent", "read leaflet")), ask("b", 2, played(1, "agent", "open mailbox")))
	want := []string{"open mailbox", "open mailbox", "read leaflet", "n", "read leaflet"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("proposals %q, want %q", got, want)
	}
	if st := o.Stats(); len(st.Repeats) != 0 {
		t.Errorf("repeats %v across conversations", st.Repeats)
	}
}
