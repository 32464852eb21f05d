package engine

import (
	"strings"
	"testing"
)

// TestGroundTruthRefusesGarbageWithDigits: commands a small model made up
// of letters, digits and symbols are words no dictionary holds; a digit in
// them is no pass. Each is asked of Zork I's own parser at West of House.
func TestGroundTruthRefusesGarbageWithDigits(t *testing.T) {
	garbage := []string{
		"P11;>(?FWQ", "x7#k2", "take l4mp", "open m41lbox", "go n0rth", "2b|!2b", "R2D2", "ex@m 9ine",
		"q1w2e3", "take 3egg", "<>9?", "h3lp me", "sw0rd", "open 12door", "look@5", "N0;RTH",
		"kill 5w0rd", "1a2b3c", "$100 lamp", "use 7-up",
	}
	if len(garbage) != 20 {
		t.Fatalf("%d commands, want 20", len(garbage))
	}
	e := zorkEngine(t)
	s := e.scope()
	for _, cmd := range garbage {
		if why := s.groundTruth(cmd); why == "" {
			t.Errorf("%q passed the ground-truth stage", cmd)
		} else if !strings.Contains(why, "does not know the word") {
			t.Errorf("%q refused for %q, want an unknown word", cmd, why)
		}
	}
}

// TestGroundTruthPassesNumbers: a number is read by the parser without
// its dictionary, so a command with one passes when its other words are
// known; a word that only contains digits is looked up like any other.
func TestGroundTruthPassesNumbers(t *testing.T) {
	dict := map[string]bool{"turn": true, "dial": true, "to": true, "push": true, "set": true, "timer": true, "r2d2": true}
	s := scope{Dictionary: dict, WordLen: 9}
	tests := []struct {
		cmd string
		ok  bool
	}{
		{"turn dial to 3", true},
		{"push 1", true},
		{"set timer to 10:30", true},
		{"turn dial to -4", true},
		{"push r2d2", true},
		{"push 1a", false},
		{"push 3;", false},
		{"turn dial to 1:2:3", false},
		{"set timer to :30", false},
		{"push -", false},
	}
	for _, tt := range tests {
		why := s.groundTruth(tt.cmd)
		if (why == "") != tt.ok {
			t.Errorf("%q: refusal %q, want passed=%v", tt.cmd, why, tt.ok)
		}
	}
}
