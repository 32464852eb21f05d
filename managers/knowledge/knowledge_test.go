package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

func fakeClient(t *testing.T) (*llm.Client, *llmtest.Server) {
	t.Helper()
	return llmtest.NewClient(t, "fake")
}

func newManager(t *testing.T, client *llm.Client, cfg Config) *Manager {
	t.Helper()
	cfg.Path = filepath.Join(t.TempDir(), FileName)
	if cfg.Story == "" {
		cfg.Story = "zork1-r119"
	}
	return New(client, cfg)
}

func read(t *testing.T, m *Manager) string {
	t.Helper()
	data, err := os.ReadFile(m.Path())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// cellar is Zork I's dark cellar death: "n" from the cellar.
func cellar(ep, turn int) domain.Turn {
	return domain.Turn{Episode: ep, Turn: turn, Actor: "agent", Action: "n", FromID: 33, FromName: "Cellar", ToID: 87, ToName: "Forest",
		ScoreBefore: 35, ScoreAfter: 25, Died: true,
		Response: "Oh, no! A lurking grue slithered into the room and devoured you!\n\n    ****  You have died  ****\n\nNow, let's take a look here..."}
}

func plain(turn int) domain.Turn {
	return domain.Turn{Episode: 1, Turn: turn, Actor: "agent", Action: "wait", Response: "Time passes.", FromID: 64, FromName: "West of House", ToID: 64, ToName: "West of House"}
}

func TestFullAndMissingFile(t *testing.T) {
	m := newManager(t, nil, Config{})
	if got := m.Full(); got != NoKnowledge {
		t.Errorf("missing file: %q", got)
	}
	if got := m.ForAgent(); got != "" {
		t.Errorf("missing file, agent's view: %q", got)
	}
	os.WriteFile(m.Path(), []byte("  \n"), 0o644)
	if got := m.Full(); got != NoKnowledge {
		t.Errorf("blank file: %q", got)
	}
	os.WriteFile(m.Path(), []byte("Carry the lamp.\n"), 0o644)
	if got := m.Full(); got != "Carry the lamp.\n" {
		t.Errorf("a file written by hand: %q", got)
	}
	if got := m.ForAgent(); got != "Strategy:\nCarry the lamp." {
		t.Errorf("a file written by hand, agent's view: %q", got)
	}
}

func TestParseRenderRoundTrip(t *testing.T) {
	d := Doc{Story: "zork1-r119", Lessons: []string{"Died at L33 Cellar after \"n\": a grue. [Ep1 T9]"},
		Strategy: "- Light the lamp first.\n- The troll wants a sword.", Notes: []string{"Episode 1 (death): 5 points in 27 turns."}}
	text := d.Render()
	back := Parse(text)
	if back.Story != d.Story || back.Strategy != d.Strategy || strings.Join(back.Lessons, "|") != strings.Join(d.Lessons, "|") ||
		strings.Join(back.Notes, "|") != strings.Join(d.Notes, "|") {
		t.Errorf("round trip:\n%s\n%+v", text, back)
	}
	if back.Render() != text {
		t.Errorf("render is not stable")
	}
	empty := Parse(Doc{}.Render())
	if !empty.Empty() {
		t.Errorf("an empty document parses as %+v", empty)
	}
	odd := Parse("# Notes\n\nSome text.\n\n## Puzzles\n\n- The dam.\n\n## Hard lessons from deaths\n\n- Grue,\n  in the dark.\n")
	if len(odd.Extra) != 1 || odd.Extra[0] != "## Puzzles\n\n- The dam." || odd.Strategy != "Some text." || len(odd.Lessons) != 1 || odd.Lessons[0] != "Grue, in the dark." {
		t.Errorf("a file with an unknown section: %+v", odd)
	}
}

func TestDeathBecomesALessonAtOnce(t *testing.T) {
	m := newManager(t, nil, Config{})
	ctx := context.Background()
	if ch, err := m.ProcessTurn(ctx, plain(1)); err != nil || ch {
		t.Fatalf("an ordinary turn: changed=%v %v", ch, err)
	}
	if _, err := os.Stat(m.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an ordinary turn wrote the file")
	}
	if ch, err := m.ProcessTurn(ctx, cellar(1, 9)); err != nil || !ch {
		t.Fatalf("a death: changed=%v %v", ch, err)
	}
	m.ProcessTurn(ctx, cellar(1, 18))
	text := read(t, m)
	want := `- Died at L33 Cellar after "n": Oh, no! A lurking grue slithered into the room and devoured you! [Ep1 T9, Ep1 T18]`
	if !strings.Contains(text, want) {
		t.Errorf("knowledgebase.md lacks the lesson %q:\n%s", want, text)
	}
	if !strings.HasPrefix(m.ForAgent(), "Hard lessons from deaths:\n- Died at L33 Cellar") {
		t.Errorf("the agent's view starts with the lessons: %q", m.ForAgent())
	}
	if _, err := os.Stat(m.Path() + ".backup"); err != nil {
		t.Errorf("no backup of the previous version: %v", err)
	}
}

const updateReply = `{"strategy": "- A grue lives in the dark: light the lantern before the cellar (L33).", "lessons": ["Never walk in the dark without a light"], "reasoning": "the death"}`

func TestPeriodicUpdateEveryInterval(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("update", llmtest.Role(config.RoleKnowledge), llmtest.Reply{Content: updateReply})
	m := newManager(t, client, Config{UpdateInterval: 5})
	ctx := context.Background()
	for turn := 1; turn <= 4; turn++ {
		m.ProcessTurn(ctx, plain(turn))
	}
	if n := len(fake.ChatRequests()); n != 0 {
		t.Fatalf("%d calls before the interval", n)
	}
	m.ProcessTurn(ctx, cellar(1, 5))
	reqs := fake.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d calls at the interval, want 1", len(reqs))
	}
	p := reqs[0].Prompt()
	for _, want := range []string{"Turns 1-5 of episode 1", "T5 L33 Cellar: n → Oh, no! A lurking grue", "[DIED]", "[score 35→25]", "Story: zork1-r119"} {
		if !strings.Contains(p, want) {
			t.Errorf("update prompt lacks %q:\n%s", want, p)
		}
	}
	text := read(t, m)
	for _, want := range []string{"## Strategy\n\n- A grue lives in the dark", "- Never walk in the dark without a light", `Died at L33 Cellar after "n"`} {
		if !strings.Contains(text, want) {
			t.Errorf("knowledgebase.md lacks %q:\n%s", want, text)
		}
	}
	if st := m.Status(); st.Updates != 1 || st.Pending != 0 || st.LastUpdate != 5 || st.Lessons != 2 {
		t.Errorf("status %+v", st)
	}
}

func TestSynthesisWritesNoteAndKeepsHandEdits(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("synthesis", llmtest.PromptContains("The episode has ended (death)"), llmtest.Reply{Content: `{"strategy": "- Light the lantern before going down at L75.",
		"lessons": [], "episode_note": "Take the lantern before the trap door.", "reasoning": "r"}`})
	m := newManager(t, client, Config{})
	ctx := context.Background()
	m.ProcessTurn(ctx, cellar(1, 9))
	// A person adds a line while the episode runs.
	text := read(t, m)
	os.WriteFile(m.Path(), []byte(strings.Replace(text, "## Episode notes", "## Strategy\n\nWritten by hand.\n\n## Episode notes", 1)), 0o644)
	note, err := m.SynthesizeEpisode(ctx, Episode{Number: 1, Reason: "death", Score: 5, MaxScore: 350, Moves: 26, Turns: 27})
	if err != nil {
		t.Fatal(err)
	}
	want := `Episode 1 (death): 5 of 350 points in 27 turns. Died 1 time, last at L33 Cellar after "n". Take the lantern before the trap door.`
	if note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	text = read(t, m)
	for _, want := range []string{"- " + want, "- Light the lantern before going down at L75.", `Died at L33 Cellar after "n"`} {
		if !strings.Contains(text, want) {
			t.Errorf("knowledgebase.md lacks %q:\n%s", want, text)
		}
	}
	p := fake.ChatRequests()[0].Prompt()
	if !strings.Contains(p, "Current strategy:\nWritten by hand.\n") {
		t.Errorf("the synthesis does not see the hand edit:\n%s", p)
	}
	if st := m.Status(); st.Pending != 0 || st.Notes != 1 {
		t.Errorf("status %+v", st)
	}
}

func TestSynthesisWithoutModelWritesGroundTruth(t *testing.T) {
	m := newManager(t, nil, Config{})
	note, err := m.SynthesizeEpisode(context.Background(), Episode{Number: 2, Reason: "turn cap", Score: 10, Turns: 500})
	if err != nil || note != "Episode 2 (turn cap): 10 points in 500 turns." {
		t.Fatalf("note %q %v", note, err)
	}
	if !strings.Contains(m.ForAgent(), "Past episodes:\n- Episode 2 (turn cap)") {
		t.Errorf("agent's view %q", m.ForAgent())
	}
}

func TestSynthesisFailureStillWritesTheNote(t *testing.T) {
	client, fake := fakeClient(t)
	bad := llmtest.Reply{Content: "not json"}
	fake.On("synthesis", llmtest.Role(config.RoleKnowledge), bad, bad, bad)
	m := newManager(t, client, Config{})
	note, err := m.SynthesizeEpisode(context.Background(), Episode{Number: 1, Reason: "death", Turns: 3})
	if !errors.Is(err, llm.ErrInvalidReply) {
		t.Fatalf("error %v, want ErrInvalidReply", err)
	}
	if !strings.Contains(read(t, m), note) {
		t.Errorf("the ground-truth note is lost")
	}
}

func TestBudgetKeepsTheFileSmall(t *testing.T) {
	m := newManager(t, nil, Config{BudgetTokens: 400, MaxNotes: 6})
	ctx := context.Background()
	long := strings.Repeat("- A long strategy line about the great underground empire.\n", 40)
	os.WriteFile(m.Path(), []byte("## Strategy\n\n"+long), 0o644)
	for i := 1; i <= 8; i++ {
		d := cellar(i, 9)
		d.Action = fmt.Sprintf("go %d", i)
		m.ProcessTurn(ctx, d)
		m.SynthesizeEpisode(ctx, Episode{Number: i, Reason: "death", Turns: 9})
	}
	text := read(t, m)
	if tok := Tokens(text); tok > 400 {
		t.Errorf("knowledgebase.md is about %d tokens, budget 400:\n%s", tok, text)
	}
	d := Parse(text)
	if len(d.Notes) == 0 || !strings.HasPrefix(d.Notes[len(d.Notes)-1], "Episode 8") || len(d.Lessons) == 0 || !strings.Contains(d.Lessons[len(d.Lessons)-1], "go 8") {
		t.Errorf("the newest note and lesson are kept: %+v", d)
	}
}

func TestBudgetCondensesWithTheModel(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("condense", llmtest.PromptContains("Rewrite this strategy in at most"), llmtest.Reply{Content: `{"strategy": "- Short and sweet."}`})
	m := newManager(t, client, Config{BudgetTokens: 300})
	os.WriteFile(m.Path(), []byte("## Strategy\n\n"+strings.Repeat("- Long line of strategy to be condensed by the model.\n", 40)), 0o644)
	if _, err := m.ProcessTurn(context.Background(), cellar(1, 9)); err != nil {
		t.Fatal(err)
	}
	if d := Parse(read(t, m)); d.Strategy != "- Short and sweet." {
		t.Errorf("strategy %q", d.Strategy)
	}
}
