// Package contextmgr assembles the agent's prompt: the stable instructions
// first, then the turn's context ordered from what changes least to what
// changes every turn, so consecutive prompts share the longest prefix and
// Ollama's prompt cache skips evaluating it — knowledge, objectives, the
// supervisor's feedback, the person's words, notes, the map neighbourhood,
// the location's memories, the previous turns, the game state, a warning.
// (The design documents order it game state first; the sections are the
// same, the order serves the cache.) It is trimmed to a token budget, least
// important parts first.
package contextmgr

import (
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/sanitize"
)

// SystemPrompt is the agent's standing instruction when the reply carries
// its reasoning. It never changes within a run, so it heads every prompt
// (Ollama's prompt cache reuses it from turn to turn).
const SystemPrompt = systemRules + `
Reply with JSON: reasoning (one to three sentences), action (the command), remember (a fact worth keeping, or ""), remember_importance (see the scale).`

// SystemPromptThinking is the instruction for a model that thinks before it
// answers: its reasoning comes from the thinking stream, so the reply does
// not ask for it again.
const SystemPromptThinking = systemRules + `
Think it through, then reply with JSON: action (the command), remember (a fact worth keeping, or ""), remember_importance (see the scale).`

const systemRules = `You play a text adventure. Each turn, give ONE command to the game's parser.
Parser: short imperative English ("take lamp", "open mailbox", "put coin in slot", "unlock door with key"), one command per turn. Directions: n, s, e, w, ne, nw, se, sw, up, down, in, out. "look" redescribes the room, "examine X" looks closely, "inventory" lists what you carry, "wait" passes time. "I don't know the word" means no such word; "You can't see any X here" means X is not here.
Darkness kills: carry a light and turn it on before entering dark places.
You see: the game state (location IDs like L64 name rooms; the room's description; objects in scope are what the parser accepts here), Memories of this room (ACTIVE: confirmed; TENTATIVE: unconfirmed; DANGER: deadly; superseded ones were wrong), your Notes, Objectives, Knowledge from earlier games, Coach (a supervisor's advice), The person says (the person watching you rejected a command and why: follow it) and Warning (you are looping or stuck: change approach).
Explore every exit, examine and take useful things, read what you find; do not repeat a failed action unless something changed.
remember_importance: 0 nothing; 1-99 minor; 100-499 useful fact; 500-899 key to progress; 900-1000 life or death.`

// HistoryEntry is one of the recent turns the prompt shows (a played turn
// is domain.Turn; this is the part of it the agent reads again).
type HistoryEntry struct {
	Turn      int
	Actor     string
	Action    string
	Reasoning string
	Response  string
}

// Input is everything the prompt may hold.
type Input struct {
	Turn         int
	LocationID   int
	LocationName string
	Score, Moves int
	Inventory    []string
	LastText     string // the game's latest response
	// Description is the room's description from the game (a probed
	// "look"), shown when the latest response does not already hold it.
	Description string
	// InScope are the objects the parser accepts here (not the player).
	InScope []string
	// CanDo are things the game lets the player do here (exits that lead
	// somewhere, actions that change the world), shown as one line when
	// given.
	CanDo []string
	// Thinking: the model thinks before answering, so the reply does not
	// carry its reasoning (SystemPromptThinking).
	Thinking bool
	// Exits the latest text mentions (the extractor), "(unexplored)" marked
	// by the caller; InCombat: something is fighting the player.
	Exits          []string
	InCombat       bool
	LocationMemory string
	Recent         []HistoryEntry // most recent last; the last 3 are shown
	Objectives     []string
	Map            string
	Notes          []string
	Knowledge      string   // strategic knowledge across episodes
	Feedback       string   // the supervisor's coaching
	Person         []string // the person's reasons for rejecting proposals (review mode)
	Warning        string   // loop or stuck detection
	// Budget is the prompt's size limit in tokens (0: no limit).
	Budget int
}

// EstimateTokens guesses a text's size in tokens (about 3.5 characters each).
func EstimateTokens(s string) int { return (len(s)*2 + 6) / 7 }

type section struct {
	title string
	body  string
	keep  int // lower is dropped first when over budget
}

// Build returns the agent's messages for a turn.
func Build(in Input) []llm.Message {
	secs := sections(in)
	system := SystemPrompt
	if in.Thinking {
		system = SystemPromptThinking
	}
	total := EstimateTokens(system)
	for _, s := range secs {
		total += EstimateTokens(s.body) + 4
	}
	for in.Budget > 0 && total > in.Budget {
		// Shrink the least important section still present.
		at := -1
		for i, s := range secs {
			if s.body != "" && (at < 0 || s.keep < secs[at].keep) {
				at = i
			}
		}
		if at < 0 || secs[at].keep >= 9 {
			break
		}
		total -= EstimateTokens(secs[at].body)
		secs[at].body = ""
	}
	var b strings.Builder
	for _, s := range secs {
		if s.body == "" {
			continue
		}
		fmt.Fprintf(&b, "## %s\n%s\n\n", s.title, strings.TrimSpace(s.body))
	}
	b.WriteString("What is your next command?")
	return []llm.Message{llm.System(system), llm.User(b.String())}
}

func sections(in Input) []section {
	inv := "nothing"
	if len(in.Inventory) > 0 {
		inv = strings.Join(in.Inventory, ", ")
	}
	state := fmt.Sprintf("Turn %d. Location: L%d %s. Score %d, moves %d.\nYou carry: %s.", in.Turn, in.LocationID, in.LocationName, in.Score, in.Moves, inv)
	desc := strings.TrimSpace(in.Description)
	switch {
	case desc != "" && linesWithin(in.LastText, desc):
		// A brief room listing: the full description says it all.
		state += "\nThe game said (with the room's full description):\n" + sanitize.ClipRunes(desc, 1200)
	case in.LastText != "":
		state += "\nThe game said:\n" + sanitize.ClipRunes(in.LastText, 1200)
		if desc != "" && !strings.Contains(sanitize.OneLine(in.LastText), sanitize.OneLine(desc)) {
			state += "\nThe room (look):\n" + sanitize.ClipRunes(desc, 800)
		}
	case desc != "":
		state += "\nThe room (look):\n" + sanitize.ClipRunes(desc, 800)
	}
	if scope := without(in.InScope, in.Inventory); len(scope) > 0 {
		state += "\nObjects in scope: " + sanitize.ClipRunes(strings.Join(scope, ", "), 400) + "."
	}
	if len(in.CanDo) > 0 {
		state += "\nThings you can do here: " + sanitize.ClipRunes(strings.Join(in.CanDo, ", "), 400) + "."
	}
	if len(in.Exits) > 0 {
		state += "\nExits the text mentions: " + strings.Join(in.Exits, ", ") + "."
	}
	if in.InCombat {
		state += "\nYou are in a fight."
	}
	var recent strings.Builder
	start := len(in.Recent) - 3
	if start < 0 {
		start = 0
	}
	for _, t := range in.Recent[start:] {
		fmt.Fprintf(&recent, "T%d (%s) %s", t.Turn, t.Actor, t.Action)
		if t.Reasoning != "" {
			fmt.Fprintf(&recent, " — because: %s", sanitize.ClipRunes(t.Reasoning, 200))
		}
		if t.Response != "" {
			fmt.Fprintf(&recent, "\n  → %s", sanitize.ClipRunes(sanitize.OneLine(t.Response), 160))
		}
		recent.WriteByte('\n')
	}
	var obj strings.Builder
	for i, o := range in.Objectives {
		if i == 5 {
			break
		}
		fmt.Fprintf(&obj, "- %s\n", o)
	}
	var notes strings.Builder
	for i, n := range in.Notes {
		if i == 5 {
			break
		}
		fmt.Fprintf(&notes, "- %s\n", sanitize.ClipRunes(n, 200))
	}
	// What changes rarely comes first, so consecutive prompts share the
	// longest prefix and Ollama's prompt cache skips evaluating it: the
	// knowledge (once an episode or every many turns), the objectives, the
	// coach's feedback (once a supervisor round), the notes, then what moves
	// with the player, and last what changes every turn.
	return []section{
		{"Knowledge", sanitize.ClipRunes(in.Knowledge, 1600), 5},
		{"Objectives", obj.String(), 6},
		{"Coach", in.Feedback, 5},
		{"The person says", bullets(in.Person), 9},
		{"Notes", notes.String(), 3},
		{"Map", in.Map, 4},
		{fmt.Sprintf("Memories at L%d", in.LocationID), in.LocationMemory, 8},
		{"Previous turns", recent.String(), 7},
		{"Game state", state, 10},
		{"Warning", in.Warning, 9},
	}
}

// linesWithin reports whether every line of text is a line of desc.
func linesWithin(text, desc string) bool {
	have := map[string]bool{}
	for _, l := range strings.Split(desc, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	any := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !have[l] {
			return false
		}
		any = true
	}
	return any
}

// without lists the names not in drop.
func without(names, drop []string) []string {
	skip := map[string]bool{}
	for _, d := range drop {
		skip[d] = true
	}
	var out []string
	for _, n := range names {
		if !skip[n] {
			out = append(out, n)
		}
	}
	return out
}

func bullets(items []string) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "- %s\n", sanitize.ClipRunes(it, 240))
	}
	return b.String()
}
