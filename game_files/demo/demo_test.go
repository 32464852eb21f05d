package demo_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/game_files/demo/gen"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/lineplay"
)

const seed = 7

func built(t *testing.T) *gen.Output {
	t.Helper()
	out, err := gen.Build()
	if err != nil {
		t.Fatalf("build the demo: %v", err)
	}
	return out
}

func TestEmbeddedStoryIsGenerated(t *testing.T) {
	out := built(t)
	if !bytes.Equal(demo.Story(), out.Story) {
		t.Fatal("demo.z3 differs from the generator's output: run `go generate ./game_files/demo`")
	}
	again := built(t)
	if !bytes.Equal(again.Story, out.Story) {
		t.Fatal("two builds differ: the generator is not deterministic")
	}
}

func TestBindingIsGenerated(t *testing.T) {
	out := built(t)
	sum := md5.Sum(out.Story)
	want := out.Binding(hex.EncodeToString(sum[:]))
	got, err := os.ReadFile(filepath.Join("..", "bindings", "demo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("game_files/bindings/demo.toml is stale: run `go generate ./game_files/demo`\ngot:\n%s\nwant:\n%s", got, want)
	}
	for _, line := range []string{
		`name = "demo"`,
		fmt.Sprintf("md5 = %q", hex.EncodeToString(sum[:])),
		fmt.Sprintf("release = %d", gen.Release),
		fmt.Sprintf("serial = %q", gen.Serial),
		fmt.Sprintf("max_score = %d", gen.MaxScore),
		fmt.Sprintf("player = %d", out.Player),
		"location_global = 0", "score_global = 1", "moves_global = 2",
		fmt.Sprintf("death_texts = [%q]", gen.DeathText),
		fmt.Sprintf("victory_texts = [%q]", gen.VictoryText),
	} {
		if !strings.Contains(want, line+"\n") {
			t.Errorf("binding lacks %s", line)
		}
	}
}

func TestStoryHeader(t *testing.T) {
	s, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if info.Version != 3 || info.Release != gen.Release || info.Serial != gen.Serial {
		t.Errorf("story info %+v", info)
	}
	var sum uint16
	data := demo.Story()
	for _, b := range data[0x40:] {
		sum += uint16(b)
	}
	if sum != info.Checksum {
		t.Errorf("checksum %04x, header says %04x", sum, info.Checksum)
	}
	if n := 2 * (int(data[0x1a])<<8 | int(data[0x1b])); n != len(data) {
		t.Errorf("header file length %d, file has %d bytes", n, len(data))
	}
}

// game is a running demo with ground truth read from the machine.
type game struct {
	t      *testing.T
	m      *zmachine.Machine
	player uint16
	names  map[string]int
	last   string
}

func newGame(t *testing.T) *game {
	t.Helper()
	out := built(t)
	s, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	m, err := zmachine.New(s, zmachine.Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	g := &game{t: t, m: m, player: uint16(out.Player), names: out.Names}
	g.run()
	return g
}

func (g *game) run() {
	g.t.Helper()
	st, err := g.m.Run()
	if err != nil {
		g.t.Fatalf("machine: %v\n%s", err, g.m.TakeOutput())
	}
	g.last = g.m.TakeOutput()
	if st != zmachine.WaitLine && st != zmachine.Halted {
		g.t.Fatalf("machine state %v", st)
	}
}

// do sends one command and returns the story's answer.
func (g *game) do(cmd string) string {
	g.t.Helper()
	if err := g.m.SendLine(cmd); err != nil {
		g.t.Fatalf("%q: %v", cmd, err)
	}
	g.run()
	return g.last
}

func (g *game) location() string { return g.m.ObjectName(g.m.Global(0)) }
func (g *game) score() int       { return int(int16(g.m.Global(1))) }
func (g *game) moves() int       { return int(g.m.Global(2)) }

// inventory lists the player's things (children of the player object).
func (g *game) inventory() []string {
	var out []string
	for _, o := range g.m.Children(g.player) {
		out = append(out, g.m.ObjectName(o))
	}
	slices.Sort(out)
	return out
}

// step is one command and the ground truth expected after it.
type step struct {
	cmd   string
	loc   string
	score int
	moves int
	inv   []string // sorted; nil means empty
	says  string   // text the answer must contain
}

func (g *game) play(steps []step) {
	g.t.Helper()
	for i, s := range steps {
		text := g.do(s.cmd)
		where := fmt.Sprintf("step %d %q", i+1, s.cmd)
		if got := g.location(); got != s.loc {
			g.t.Errorf("%s: location %q, want %q\n%s", where, got, s.loc, text)
		}
		if loc := int(g.m.Global(0)); g.names[s.loc] != loc {
			g.t.Errorf("%s: location object %d, want %d (%s)", where, loc, g.names[s.loc], s.loc)
		}
		if got := g.score(); got != s.score {
			g.t.Errorf("%s: score %d, want %d\n%s", where, got, s.score, text)
		}
		if got := g.moves(); got != s.moves {
			g.t.Errorf("%s: moves %d, want %d", where, got, s.moves)
		}
		if got := g.inventory(); !slices.Equal(got, s.inv) {
			g.t.Errorf("%s: inventory %q, want %q", where, got, s.inv)
		}
		if !strings.Contains(text, s.says) {
			g.t.Errorf("%s: answer lacks %q:\n%s", where, s.says, text)
		}
		if st := g.m.Status(); st.Location != g.location() || st.Score != g.score() || st.Moves != g.moves() {
			g.t.Errorf("%s: status line %+v disagrees with globals 0-2", where, st)
		}
	}
}

func walkthrough(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("walkthrough.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

func TestWalkthroughWinsWithMaxScore(t *testing.T) {
	g := newGame(t)
	if g.location() != "Muddy Lane" || g.score() != 0 || g.moves() != 0 {
		t.Fatalf("start: %q %d %d", g.location(), g.score(), g.moves())
	}
	visited := map[string]bool{g.location(): true}
	var all strings.Builder
	for _, cmd := range walkthrough(t) {
		text := g.do(cmd)
		all.WriteString(text)
		visited[g.location()] = true
		if strings.Contains(text, gen.DeathText) {
			t.Fatalf("died at %q:\n%s", cmd, text)
		}
	}
	if g.score() != gen.MaxScore {
		t.Errorf("final score %d, want %d", g.score(), gen.MaxScore)
	}
	for _, want := range []string{gen.VictoryText, gen.EndPrompt, "You scored 100 out of a possible 100"} {
		if !strings.Contains(g.last, want) {
			t.Errorf("the last answer lacks %q:\n%s", want, g.last)
		}
	}
	if len(visited) < 10 {
		t.Errorf("visited %d locations, want at least 10: %v", len(visited), visited)
	}
	if len(visited) != 15 {
		t.Logf("visited %d of 15 locations", len(visited))
	}
	// The end prompt takes RESTART: back to the start.
	g.do("restart")
	if g.location() != "Muddy Lane" || g.score() != 0 || g.moves() != 0 || len(g.inventory()) != 0 {
		t.Errorf("after restart: %q score %d moves %d inventory %q", g.location(), g.score(), g.moves(), g.inventory())
	}
}

func TestWalkthroughMatchesDfrotz(t *testing.T) {
	input := strings.Join(walkthrough(t), "\n") + "\n"
	ours := playLineMode(t, input)
	if !strings.Contains(ours, gen.VictoryText) {
		t.Fatalf("line mode did not reach the victory:\n%s", ours)
	}
	theirs := dfrotz(t, input)
	if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
		t.Fatalf("Lantern and dfrotz differ %s", sharedtest.FirstDiff(a, b))
	}
}

// TestWalkthroughTurnRecords plays the walkthrough in line mode as `lantern
// play --plain --json` does, reading the status line after every turn.
func TestWalkthroughTurnRecords(t *testing.T) {
	s, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	visited := map[string]bool{}
	var last zmachine.StatusLine
	var lastText string
	turns := 0
	opts := lineplay.Options{Seed: seed, SaveDir: t.TempDir(), Turn: func(input string, m *zmachine.Machine, text string) error {
		last, lastText = m.Status(), text
		visited[last.Location] = true
		turns++
		return nil
	}}
	input := strings.Join(walkthrough(t), "\n") + "\n"
	if err := lineplay.Run(context.Background(), s, opts, strings.NewReader(input), io.Discard); err != nil {
		t.Fatal(err)
	}
	if turns != len(walkthrough(t))+1 {
		t.Errorf("%d turn records, want %d", turns, len(walkthrough(t))+1)
	}
	if last.Score != gen.MaxScore || !strings.Contains(lastText, gen.VictoryText) {
		t.Errorf("last turn: status %+v, text:\n%s", last, lastText)
	}
	if len(visited) < 10 {
		t.Errorf("the status line named %d locations, want at least 10", len(visited))
	}
}

// TestScenarioPrerequisite: the window must be opened before entering it
// leads to the kitchen (and examining it says so).
func TestScenarioPrerequisite(t *testing.T) {
	g := newGame(t)
	g.play([]step{
		{cmd: "n", loc: "Orchard", moves: 1, says: "Gnarled apple trees"},
		{cmd: "e", loc: "Behind the Cottage", moves: 2, says: "small window"},
		{cmd: "enter window", loc: "Behind the Cottage", moves: 3, says: "far too narrow"},
		{cmd: "in", loc: "Behind the Cottage", moves: 4, says: "far too narrow"},
		{cmd: "examine window", loc: "Behind the Cottage", moves: 5, says: "slightly ajar. Perhaps you could open it further"},
		{cmd: "open window", loc: "Behind the Cottage", moves: 6, says: "wide enough to climb through"},
		{cmd: "examine the window", loc: "Behind the Cottage", moves: 7, says: "open wide enough"},
		{cmd: "enter window", loc: "Kitchen", score: 5, moves: 8, says: "You clamber through the window"},
		{cmd: "out", loc: "Behind the Cottage", score: 5, moves: 9, says: "squeeze back out"},
		{cmd: "enter window", loc: "Kitchen", score: 5, moves: 10, says: "A tin lantern sits on the table."},
	})
}

// TestScenarioDelayedConsequence: the troll accepts the lunch, and the next
// move north kills.
func TestScenarioDelayedConsequence(t *testing.T) {
	g := newGame(t)
	lunch := []string{"packed lunch"}
	g.play([]step{
		{cmd: "n", loc: "Orchard", moves: 1, says: "packed lunch"},
		{cmd: "take lunch", loc: "Orchard", moves: 2, inv: lunch, says: "Taken."},
		{cmd: "e", loc: "Behind the Cottage", moves: 3, inv: lunch},
		{cmd: "e", loc: "Cliff Path", moves: 4, inv: lunch},
		{cmd: "n", loc: "Troll Bridge", moves: 5, inv: lunch, says: "A large troll squats"},
		{cmd: "n", loc: "Troll Bridge", moves: 6, inv: lunch, says: `"Toll," he grunts`},
		{cmd: "give lunch to troll", loc: "Troll Bridge", moves: 7, says: "graciously accepts the lunch"},
		{cmd: "look", loc: "Troll Bridge", moves: 8, says: "full of lunch"},
		{cmd: "north", loc: "Troll Bridge", moves: 8, says: "blocks your path"},
	})
	for _, want := range []string{"The troll frowns", gen.DeathText, gen.EndPrompt} {
		if !strings.Contains(g.last, want) {
			t.Errorf("death answer lacks %q:\n%s", want, g.last)
		}
	}
	if g.m.Halted() {
		t.Fatal("the story quit instead of asking to restart")
	}
}

// TestScenarioProgressiveDiscovery: the rusty key does not fit the stone
// door; the brass key (from the dark cellar) does.
func TestScenarioProgressiveDiscovery(t *testing.T) {
	g := newGame(t)
	door := uint16(g.names["stone door"])
	const locked = 3 // attribute aLocked
	for _, cmd := range []string{"n", "e", "open window", "enter window", "take lantern", "light lantern", "open trapdoor", "d", "take key", "u", "w"} {
		g.do(cmd)
	}
	keys := []string{"brass key", "rusty key", "tin lantern"}
	g.play([]step{
		{cmd: "take key", loc: "Parlour", score: 5, moves: 11, inv: []string{"brass key", "tin lantern"}, says: "Which do you mean, the rusty key or the brass key?"},
		{cmd: "take rusty key", loc: "Parlour", score: 5, moves: 12, inv: keys, says: "Taken."},
		{cmd: "n", loc: "Hallway", score: 5, moves: 13, inv: keys, says: "stone door"},
		{cmd: "examine door", loc: "Hallway", score: 5, moves: 14, inv: keys, says: "It is locked."},
		{cmd: "open door", loc: "Hallway", score: 5, moves: 15, inv: keys, says: "locked"},
		{cmd: "n", loc: "Hallway", score: 5, moves: 16, inv: keys, says: "The stone door is closed."},
		{cmd: "unlock door with key", loc: "Hallway", score: 5, moves: 16, inv: keys, says: "Which do you mean, the rusty key or the brass key?"},
		{cmd: "unlock door with rusty key", loc: "Hallway", score: 5, moves: 17, inv: keys, says: "doesn't fit"},
	})
	if !g.m.HasAttr(door, locked) {
		t.Fatal("the rusty key unlocked the door")
	}
	g.play([]step{
		{cmd: "unlock door with brass key", loc: "Hallway", score: 10, moves: 18, inv: keys, says: "*Click*"},
		{cmd: "open door", loc: "Hallway", score: 10, moves: 19, inv: keys, says: "study to the north"},
		{cmd: "n", loc: "Study", score: 10, moves: 20, inv: keys, says: "silver locket"},
		{cmd: "take locket", loc: "Study", score: 25, moves: 21, inv: []string{"brass key", "rusty key", "silver locket", "tin lantern"}, says: "Taken."},
	})
	if g.m.HasAttr(door, locked) {
		t.Fatal("the brass key did not unlock the door")
	}
}

// TestScenarioDarkCellar: without a lit lantern the cellar is dark, and
// moving in the dark gets the player eaten.
func TestScenarioDarkCellar(t *testing.T) {
	g := newGame(t)
	lantern := []string{"tin lantern"}
	g.play([]step{
		{cmd: "n", loc: "Orchard", moves: 1},
		{cmd: "e", loc: "Behind the Cottage", moves: 2},
		{cmd: "open window", loc: "Behind the Cottage", moves: 3},
		{cmd: "enter window", loc: "Kitchen", score: 5, moves: 4},
		{cmd: "take lantern", loc: "Kitchen", score: 5, moves: 5, inv: lantern, says: "Taken."},
		{cmd: "d", loc: "Kitchen", score: 5, moves: 6, inv: lantern, says: "The trapdoor is closed."},
		{cmd: "open trapdoor", loc: "Kitchen", score: 5, moves: 7, inv: lantern, says: "rickety stairs"},
		{cmd: "down", loc: "Cellar", score: 5, moves: 8, inv: lantern, says: "It is pitch dark"},
		// The parser cannot see the key: a refusal takes no time.
		{cmd: "take key", loc: "Cellar", score: 5, moves: 8, inv: lantern, says: "You can't see any such thing."},
		{cmd: "light lantern", loc: "Cellar", score: 5, moves: 9, inv: lantern, says: "A brass key glints"},
		{cmd: "extinguish lantern", loc: "Cellar", score: 5, moves: 10, inv: lantern, says: "It is now pitch dark."},
		{cmd: "i", loc: "Cellar", score: 5, moves: 11, inv: lantern, says: "tin lantern"},
		{cmd: "up", loc: "Cellar", score: 5, moves: 11, inv: lantern, says: "far too many teeth"},
	})
	if !strings.Contains(g.last, gen.DeathText) {
		t.Fatalf("moving in the dark did not kill:\n%s", g.last)
	}
	g.do("restart")
	if g.location() != "Muddy Lane" || g.moves() != 0 || g.score() != 0 {
		t.Errorf("after restart: %q, score %d, moves %d", g.location(), g.score(), g.moves())
	}
}

// TestTreasuresScoreOnce: treasures score when first taken, not again.
func TestTreasuresScoreOnce(t *testing.T) {
	g := newGame(t)
	g.play([]step{
		{cmd: "n", loc: "Orchard", moves: 1},
		{cmd: "climb tree", loc: "Up the Apple Tree", moves: 2, says: "golden apple"},
		{cmd: "take apple", loc: "Up the Apple Tree", score: 10, moves: 3, inv: []string{"golden apple"}, says: "score has gone up by 10"},
		{cmd: "drop apple", loc: "Up the Apple Tree", score: 10, moves: 4, says: "Dropped."},
		{cmd: "look", loc: "Up the Apple Tree", score: 10, moves: 5, says: "You can also see a golden apple here."},
		{cmd: "take all", loc: "Up the Apple Tree", score: 10, moves: 6, inv: []string{"golden apple"}, says: "golden apple: Taken."},
		{cmd: "score", loc: "Up the Apple Tree", score: 10, moves: 6, inv: []string{"golden apple"}, says: "Your score is 10 out of a possible 100, in 6 moves."},
	})
}

// TestParser covers the sentence forms and the refusals.
func TestParser(t *testing.T) {
	tests := []struct {
		setup []string
		cmd   string
		says  string
		loc   string
	}{
		{cmd: "xyzzy", says: `I don't know the word "xyzzy".`},
		{cmd: "take the frobozz", says: `I don't know the word "frobozz".`},
		{cmd: "", says: "I beg your pardon?"},
		{cmd: "the", says: "I beg your pardon?"},
		{cmd: "lantern", says: "That's not a verb I recognise."},
		{cmd: "take", says: "What do you want to take?"},
		{cmd: "examine", says: "What do you want to examine?"},
		{cmd: "take lantern", says: "You can't see any such thing."},
		{cmd: "x me", says: "As good-looking as ever"},
		{cmd: "look at the cottage", says: "Crooked walls"},
		{cmd: "look cottage", says: "Crooked walls"},
		{cmd: "take cottage", says: "That's hardly portable."},
		{cmd: "i", says: "You are empty-handed."},
		{cmd: "inventory", says: "You are empty-handed."},
		{cmd: "drop all", says: "You aren't carrying anything."},
		{cmd: "take all", says: "There is nothing here to take."},
		{cmd: "open all", says: `You can't use "all" with that verb.`},
		{cmd: "z", says: "Time passes."},
		{cmd: "wait", says: "Time passes."},
		{cmd: "score", says: "Your score is 0 out of a possible 100, in 0 moves."},
		{cmd: "help", says: "UNLOCK something WITH something"},
		{cmd: "go", says: "Which way do you want to go?"},
		{cmd: "e", says: "boarded up tighter than a miser's purse"},
		{cmd: "ne", says: "You can't go that way."},
		{cmd: "go north", says: "Orchard", loc: "Orchard"},
		{cmd: "walk south", says: "By the Old Well", loc: "By the Old Well"},
		{cmd: "NORTH.", says: "Orchard", loc: "Orchard"},
		{setup: []string{"s"}, cmd: "d", says: "Bottom of the Well", loc: "Bottom of the Well"},
		{setup: []string{"s", "d"}, cmd: "u", says: "By the Old Well", loc: "By the Old Well"},
		{setup: []string{"s"}, cmd: "climb rope", says: "Bottom of the Well", loc: "Bottom of the Well"},
		{setup: []string{"n"}, cmd: "climb up", says: "Up the Apple Tree", loc: "Up the Apple Tree"},
		{setup: []string{"n", "u"}, cmd: "climb down", says: "Orchard", loc: "Orchard"},
		{setup: []string{"n", "e"}, cmd: "east", says: "Cliff Path", loc: "Cliff Path"},
		{setup: []string{"n", "e", "e"}, cmd: "down", says: "only once", loc: "Cliff Path"},
		{setup: []string{"n", "e", "e", "n"}, cmd: "attack troll", says: "hands it back. Perhaps not."},
		{setup: []string{"n", "e", "e", "n"}, cmd: "take troll", says: "appreciate"},
		{setup: []string{"n", "e", "e", "n"}, cmd: "give lunch to troll", says: "You can't see any such thing."},
		{setup: []string{"n", "take lunch", "e", "e", "n"}, cmd: "give lunch", says: "What do you want to give the packed lunch to?"},
		{setup: []string{"n", "take lunch", "e", "e", "n"}, cmd: "x troll", says: "hungry"},
		{setup: []string{"n", "e", "e", "n"}, cmd: "pay troll", says: "you have nothing he wants"},
		{setup: []string{"s", "d", "take coin", "u", "n", "n", "e", "e", "n"}, cmd: "pay troll", says: "Bridge is open"},
		{setup: []string{"s", "d", "take coin", "u", "n", "n", "e", "e", "n"}, cmd: "pay the troll with the coin", says: "Bridge is open"},
		{setup: []string{"s", "d", "take coin", "u", "n", "n", "e", "e", "n", "give coin to troll"}, cmd: "n", says: "Foot of the Lighthouse", loc: "Foot of the Lighthouse"},
		{setup: []string{"n", "take lunch"}, cmd: "eat lunch", says: "isn't yours"},
		{setup: []string{"n", "take lunch"}, cmd: "give lunch to tree", says: "You can't give things to that."},
		{setup: []string{"s", "d", "take coin", "u", "n", "n", "take lunch", "u", "take apple"}, cmd: "take silver", says: "You already have that."},
		{setup: []string{"n", "e", "open window", "in"}, cmd: "take the tin lantern", says: "Taken."},
		{setup: []string{"n", "e", "open window", "in", "take lantern"}, cmd: "i", says: "a tin lantern"},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern"}, cmd: "light lantern", says: "It's already lit."},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern"}, cmd: "i", says: "a tin lantern (lit)"},
		{setup: []string{"n", "e", "open window", "in"}, cmd: "open lantern", says: "That's not something you can open."},
		{setup: []string{"n", "e", "open window", "in"}, cmd: "open lantern with trapdoor", says: "That's not something you can open."},
		{setup: []string{"n", "e", "open window", "in", "open lantern with trapdoor"}, cmd: "d", says: "The trapdoor is closed."},
		{setup: []string{"n", "e", "open window", "in"}, cmd: "read table", says: "There's nothing written on it."},
		{setup: []string{"n", "e", "open window", "in"}, cmd: "unlock trapdoor", says: "What do you want to unlock the trapdoor with?"},
		{setup: []string{"n", "e", "open window", "in"}, cmd: "close window", says: "only slightly ajar"},
		{setup: []string{"n", "e", "open window", "in", "close window"}, cmd: "out", says: "You'd never fit.", loc: "Kitchen"},
		{setup: []string{"n", "e", "open window", "in", "open trapdoor"}, cmd: "enter trapdoor", says: "pitch dark", loc: "Cellar"},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern", "open trapdoor", "d"}, cmd: "look in jar", says: "lid screwed on tight"},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern", "open trapdoor", "d", "open jar"}, cmd: "look", says: "The jam jar contains a pearl."},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern", "open trapdoor", "d", "open jar", "take jar"}, cmd: "i", says: "    a pearl"},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern", "open trapdoor", "d", "take key"}, cmd: "drop all", says: "brass key: Dropped."},
		{setup: []string{"n", "e", "open window", "in", "take lantern", "light lantern", "open trapdoor", "d", "open jar"}, cmd: "take all", says: "jam jar: Taken."},
		{setup: []string{"n", "e", "open window", "in", "w"}, cmd: "lock door", says: "You have no reason to lock that."},
		{setup: []string{"n", "e", "open window", "in", "w"}, cmd: "x dogs", says: "seen things"},
		{setup: []string{"n", "e", "open window", "in", "w", "take key", "n"}, cmd: "unlock door", says: "What do you want to unlock the stone door with?"},
		{setup: []string{"n", "e", "open window", "in", "w", "take key", "n"}, cmd: "unlock door with cottage", says: "You can't see any such thing."},
		{cmd: "quit", says: "Do you really want to quit?"},
		{cmd: "restart", says: "Do you really want to start again?"},
	}
	for _, tc := range tests {
		name := strings.Join(append(append([]string(nil), tc.setup...), tc.cmd), "/")
		t.Run(name, func(t *testing.T) {
			g := newGame(t)
			for _, c := range tc.setup {
				g.do(c)
			}
			got := g.do(tc.cmd)
			if !strings.Contains(got, tc.says) {
				t.Errorf("%q answered:\n%s\nwant it to contain %q", tc.cmd, got, tc.says)
			}
			if tc.loc != "" && g.location() != tc.loc {
				t.Errorf("location %q, want %q", g.location(), tc.loc)
			}
		})
	}
}

func TestQuitAndRestart(t *testing.T) {
	g := newGame(t)
	g.do("n")
	g.do("quit")
	if got := g.do("no"); !strings.Contains(got, "Right you are.") || g.m.Halted() {
		t.Fatalf("quit, no: %q (halted %v)", got, g.m.Halted())
	}
	g.do("restart")
	g.do("y")
	if g.location() != "Muddy Lane" || g.moves() != 0 {
		t.Fatalf("restart, y: at %q after %d moves", g.location(), g.moves())
	}
	g.do("quit")
	if got := g.do("yes"); !strings.Contains(got, "Goodbye.") || !g.m.Halted() {
		t.Fatalf("quit, yes: %q (halted %v)", got, g.m.Halted())
	}
}

func TestEndPromptQuits(t *testing.T) {
	g := newGame(t)
	for _, c := range []string{"n", "take lunch", "e", "e", "n", "give lunch to troll", "n"} {
		g.do(c)
	}
	if !strings.Contains(g.last, gen.EndPrompt) {
		t.Fatalf("no end prompt:\n%s", g.last)
	}
	if got := g.do("hello"); !strings.Contains(got, gen.EndPrompt) {
		t.Errorf("the end prompt did not ask again: %q", got)
	}
	if got := g.do(""); !strings.Contains(got, gen.EndPrompt) {
		t.Errorf("the end prompt did not ask again after an empty line: %q", got)
	}
	if got := g.do("quit"); !strings.Contains(got, "Goodbye.") || !g.m.Halted() {
		t.Errorf("quit at the end prompt: %q (halted %v)", got, g.m.Halted())
	}
}

// TestRandomCommandsMatchDfrotz plays random commands made of the story's
// words in line mode and in dfrotz: the transcripts must agree, and our
// interpreter must never fault.
func TestRandomCommandsMatchDfrotz(t *testing.T) {
	s, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	m, err := zmachine.New(s, zmachine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, w := range m.DictionaryWords() {
		if w != "quit" && w != "q" && w != "restar" {
			words = append(words, w)
		}
	}
	prefix := walkthrough(t)
	for i := 0; i < 12; i++ {
		rng := rand.New(rand.NewSource(int64(100 + i)))
		t.Run(fmt.Sprint("script", i), func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			// Start some scripts further into the game.
			for _, c := range prefix[:rng.Intn(len(prefix))] {
				b.WriteString(c + "\n")
			}
			for k := 0; k < 60; k++ {
				n := 1 + rng.Intn(4)
				for j := 0; j < n; j++ {
					if j > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(words[rng.Intn(len(words))])
				}
				b.WriteByte('\n')
			}
			input := b.String()
			ours := playLineMode(t, input)
			theirs := dfrotz(t, input)
			if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
				t.Fatalf("Lantern and dfrotz differ %s\nscript:\n%s", sharedtest.FirstDiff(a, b), input)
			}
		})
	}
}

func playLineMode(t *testing.T, input string) string {
	t.Helper()
	s, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := lineplay.Run(context.Background(), s, lineplay.Options{Seed: seed, SaveDir: t.TempDir()}, strings.NewReader(input), &out); err != nil {
		t.Fatalf("line mode: %v", err)
	}
	return out.String()
}

func dfrotz(t *testing.T, input string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, demo.FileName)
	if err := os.WriteFile(path, demo.Story(), 0o644); err != nil {
		t.Fatal(err)
	}
	return sharedtest.RunDfrotz(t, dir, path, seed, input)
}
