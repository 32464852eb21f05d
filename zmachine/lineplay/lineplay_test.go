package lineplay

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

const finalScore = "Your score is 350 (total of 350 points), in 394 moves."

func loadStory(t testing.TB, rel string) (*zmachine.Story, string) {
	t.Helper()
	p := sharedtest.File(t, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := zmachine.LoadStory(data)
	if err != nil {
		t.Fatalf("load %s: %v", rel, err)
	}
	return s, p
}

func play(t testing.TB, story *zmachine.Story, seed int, input string) string {
	t.Helper()
	var out bytes.Buffer
	if err := Run(context.Background(), story, Options{Seed: seed, SaveDir: t.TempDir()}, strings.NewReader(input), &out); err != nil {
		t.Fatalf("play: %v", err)
	}
	return out.String()
}

func TestWalkthroughMatchesDfrotz(t *testing.T) {
	story, path := loadStory(t, "stories/zork1.z3")
	input, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ours := play(t, story, 12, string(input))
	if !strings.Contains(ours, finalScore) {
		t.Fatalf("walkthrough did not end with %q; tail:\n%s", finalScore, ours[max(0, len(ours)-600):])
	}
	theirs := sharedtest.RunDfrotz(t, "", path, 12, string(input))
	if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
		t.Fatalf("output differs from dfrotz %s", sharedtest.FirstDiff(a, b))
	}
}

// referenceTokens reads the stored dfrotz transcript: the header comments
// dropped, and the commands a script re-inserted after each prompt removed.
func referenceTokens(ref string, commands []string) []string {
	var body []string
	for _, ln := range strings.Split(ref, "\n") {
		if strings.HasPrefix(ln, "# ") && len(body) == 0 {
			continue
		}
		body = append(body, ln)
	}
	toks := splitPrompts(strings.Fields(strings.Join(body, "\n")))
	var out []string
	next := 0
	for i := 0; i < len(toks); i++ {
		out = append(out, toks[i])
		if toks[i] != ">" {
			continue
		}
		if next < len(commands) {
			i += len(strings.Fields(commands[next]))
			next++
		} else {
			break // "<EOF>" and "EOT" after the last prompt
		}
	}
	return out
}

// splitPrompts separates a prompt glued to the text after it (">Living").
func splitPrompts(toks []string) []string {
	var out []string
	for _, t := range toks {
		if len(t) > 1 && t[0] == '>' {
			out = append(out, ">", t[1:])
			continue
		}
		out = append(out, t)
	}
	return out
}

func TestWalkthroughMatchesStoredReference(t *testing.T) {
	story, _ := loadStory(t, "stories/zork1.z3")
	input, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(sharedtest.File(t, "reference/zork1.seed12.dfrotz.txt"))
	if err != nil {
		t.Fatal(err)
	}
	commands := strings.Split(strings.TrimRight(string(input), "\n"), "\n")
	want := referenceTokens(string(ref), commands)
	got := splitPrompts(strings.Fields(play(t, story, 12, string(input))))
	if a, b := strings.Join(got, " "), strings.Join(want, " "); a != b {
		t.Fatalf("output differs from the stored reference %s", sharedtest.FirstDiff(a, b))
	}
}

// scriptWords are the story's dictionary words minus those that would open
// files (save/restore prompts differ by design: names are Lantern's).
func scriptWords(t testing.TB, story *zmachine.Story) []string {
	m, err := zmachine.New(story, zmachine.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{"save": true, "restor": true, "script": true, "unscri": true, "$ve": true}
	var out []string
	for _, w := range m.DictionaryWords() {
		if !skip[w] && w != "" && !strings.ContainsAny(w, "\",.") {
			out = append(out, w)
		}
	}
	return out
}

var (
	directions = []string{"n", "s", "e", "w", "ne", "nw", "se", "sw", "u", "d", "in", "out", "north", "south", "east", "west", "up", "down"}
	verbs      = []string{"take", "drop", "open", "close", "look", "examine", "read", "turn on", "turn off", "put", "give", "attack", "climb", "enter", "inventory", "wait", "move", "push", "pull", "light", "kill", "throw", "eat", "drink", "search", "listen", "smell", "again", "look at", "tie", "unlock", "score", "diagnose", "verbose", "brief", "i", "l", "x", "g", "z"}
	preps      = []string{"with", "in", "on", "to", "under", "from", "at"}
)

// script makes n commands from the story's words, directions and common
// verbs, reproducibly from seed.
func script(rng *rand.Rand, words []string, n int) string {
	var b strings.Builder
	pick := func(s []string) string { return s[rng.Intn(len(s))] }
	for i := 0; i < n; i++ {
		switch k := rng.Intn(10); {
		case k < 3:
			b.WriteString(pick(directions))
		case k < 5:
			b.WriteString(pick(verbs) + " " + pick(words))
		case k < 6:
			b.WriteString(pick(verbs) + " " + pick(words) + " " + pick(preps) + " " + pick(words))
		case k < 7:
			b.WriteString(pick(words))
		case k < 8:
			b.WriteString(pick(words) + " " + pick(words))
		default:
			b.WriteString(pick(verbs))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestDifferentialZork1(t *testing.T) {
	story, path := loadStory(t, "stories/zork1.z3")
	sharedtest.Dfrotz(t)
	words := scriptWords(t, story)
	const scripts, commands = 50, 100
	for i := 0; i < scripts; i++ {
		seed := 1000 + i
		t.Run(fmt.Sprintf("script%02d", i), func(t *testing.T) {
			t.Parallel()
			input := script(rand.New(rand.NewSource(int64(seed))), words, commands)
			ours := play(t, story, seed, input)
			theirs := sharedtest.RunDfrotz(t, "", path, seed, input)
			if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
				t.Fatalf("seed %d: output differs from dfrotz %s\nscript:\n%s", seed, sharedtest.FirstDiff(a, b), input)
			}
		})
	}
}
