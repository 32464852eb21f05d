package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
)

// The extractor turns a turn's outcome into structured facts. Location,
// score, moves, inventory and the objects in scope come from the machine
// (ground truth, every turn, no model). The model (role extractor), when
// Config.Extractor is on, reads only what the machine cannot tell: the exits
// the text mentions and whether the player is in a fight.

// Extraction is what the extractor knows after a turn.
type Extraction struct {
	// Ground truth.
	Location     env.Location
	Score, Moves int
	Inventory    []string
	Objects      []string // nouns in scope
	// From the model (empty without it).
	Exits     []string // directions the text mentions, normalised
	InCombat  bool
	FromModel bool
}

// ExtractorReply is the model's part (small and bounded, so that even a
// tiny model's reply decodes): the extractor role's reply schema.
type ExtractorReply struct {
	Exits    []string `json:"exits" maxItems:"10" maxLength:"12" desc:"directions the text says one can go: north, south, east, west, northeast, northwest, southeast, southwest, up, down, in, out"`
	InCombat bool     `json:"in_combat" desc:"true when something is fighting the player"`
}

// extract reports the turn's facts; the model is asked only when the
// extractor is on and the text is worth reading (a new room, or a turn
// that was not a plain failure).
func (e *Engine) extract(ctx context.Context, turn int, obs env.Observation, failed bool) (Extraction, error) {
	x := Extraction{Location: obs.Location, Score: obs.Score, Moves: obs.Moves, Objects: e.env.Scope()}
	for _, it := range obs.Inventory {
		x.Inventory = append(x.Inventory, it.Name)
	}
	if !e.cfg.Extractor || e.client == nil || failed || strings.TrimSpace(obs.Text) == "" {
		return x, nil
	}
	msgs := []llm.Message{
		llm.System("You read one response of a text adventure and report two facts as JSON: exits, the directions the text says the player can go (north, south, east, west, northeast, northwest, southeast, southwest, up, down, in, out; an empty list when it names none), and in_combat, whether something is fighting the player."),
		llm.User("The game said:\n" + clipText(obs.Text, 1500)),
	}
	r, _, err := llm.Structured[ExtractorReply](ctx, e.client, llm.Request{Role: config.RoleExtractor, Messages: msgs, Turn: turn})
	if err != nil {
		return x, fmt.Errorf("extractor: %w", err)
	}
	x.FromModel, x.InCombat = true, r.InCombat
	for _, d := range r.Exits {
		n := mapper.NormalizeAction(d)
		if mapper.IsDirection(n) && !slices.Contains(x.Exits, n) {
			x.Exits = append(x.Exits, n)
		}
	}
	return x, nil
}

// clipText cuts s to at most n bytes on a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
