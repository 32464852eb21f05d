package oracle

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	state := agentPrompt(4, played(3, "agent", "east"))
	w := &walker{script: []string{"N", "Open window", "W"}}
	w.propose(agentPrompt(1))
	w.propose(agentPrompt(2, played(1, "agent", "N"))) // pending: Open window
	tests := []struct {
		command string
		score   int
		why     string
	}{
		{"Open window", ScoreKnownStep, "next step of the known solution"},
		{"open  the WINDOW", ScoreKnownStep, "next step"},
		{"examine window", ScoreSeen, "in the game state"},
		{"take the house", ScoreSeen, "in the game state"},
		{"take sword", ScoreUnseen, `"sword"`},
		{"put egg in basket", ScoreUnseen, `"egg basket"`},
		{"south", ScoreMove, "Moving south"},
		{"inventory", ScoreMove, "names no object"},
		{"", 0, "no proposed command"},
	}
	for _, tc := range tests {
		v := judge(tc.command, state, w)
		if v.Score != tc.score || !strings.Contains(v.Justification, tc.why) {
			t.Errorf("judge(%q) = %d %q, want %d and %q", tc.command, v.Score, v.Justification, tc.score, tc.why)
		}
	}
}

func TestJudgeAfterTheScriptEnds(t *testing.T) {
	w := &walker{script: []string{"N"}}
	w.propose(agentPrompt(1))
	w.propose(agentPrompt(2, played(1, "agent", "N"))) // played out: look
	if v := judge("look", agentPrompt(2), w); v.Score != ScoreMove {
		t.Errorf("look after the walkthrough: %+v, want a plain score", v)
	}
}

func TestSplitCritic(t *testing.T) {
	user := agentPrompt(2, played(1, "agent", "take sword")) +
		"\n\nThe agent's reasoning: the sword is in the attic\nProposed command: take sword"
	cmd, state := splitCritic(user)
	if cmd != "take sword" {
		t.Fatalf("command %q", cmd)
	}
	if strings.Contains(state, "sword") || strings.Contains(state, "attic") {
		t.Errorf("the state holds the proposal, reasoning or previous turns:\n%s", state)
	}
	if !strings.Contains(state, "small window") {
		t.Errorf("the state lost the game text:\n%s", state)
	}
	// Without a game-state section the whole prompt is the state.
	cmd, state = splitCritic("You see a lamp.\nProposed command: take lamp")
	if cmd != "take lamp" || strings.TrimSpace(state) != "You see a lamp." {
		t.Errorf("plain prompt: %q / %q", cmd, state)
	}
}

func TestContainsWord(t *testing.T) {
	for _, tc := range []struct {
		text, word string
		want       bool
	}{
		{"a small window", "window", true},
		{"windows", "window", false},
		{"the window.", "window", true},
		{"sword", "word", false},
	} {
		if got := containsWord(tc.text, tc.word); got != tc.want {
			t.Errorf("containsWord(%q, %q) = %v", tc.text, tc.word, got)
		}
	}
}
