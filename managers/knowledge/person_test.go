package knowledge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// Sections a person adds under headings of their own survive every
// update (and so the backup of the next one).
func TestPersonSectionsKept(t *testing.T) {
	m := newManager(t, nil, Config{})
	ctx := context.Background()
	if _, err := m.SynthesizeEpisode(ctx, Episode{Number: 1, Reason: "death", Score: 5, Turns: 20}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(m.Path())
	mine := "## My map notes\n\nThe dam is east of the reservoir.\n\n- Bring the wrench."
	if err := os.WriteFile(m.Path(), append(data, "\n"+mine+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for ep := 2; ep <= 3; ep++ {
		if _, err := m.SynthesizeEpisode(ctx, Episode{Number: ep, Reason: "death", Score: ep, Turns: 20}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{m.Path(), m.Path() + ".backup"} {
			got, _ := os.ReadFile(f)
			if !strings.Contains(string(got), mine) {
				t.Fatalf("after episode %d, %s lost the person's section:\n%s", ep, f, got)
			}
		}
	}
	if got, _ := os.ReadFile(m.Path()); strings.Count(string(got), "Episode 3") != 1 {
		t.Fatalf("the notes are not kept once:\n%s", got)
	}
}

// A file in an encoding Lantern cannot write back is refused and left
// byte for byte as it was.
func TestForeignEncodingsRefusedUntouched(t *testing.T) {
	text := "# Knowledge base: zork\n\n## Strategy\n\n- Light the lamp.\n"
	var utf16, utf32 []byte
	for _, r := range text {
		utf16 = append(utf16, byte(r), 0)
		utf32 = append(utf32, byte(r), 0, 0, 0)
	}
	for name, data := range map[string][]byte{"UTF-16 without a mark": utf16, "UTF-32": append([]byte{0xFF, 0xFE, 0, 0}, utf32...)} {
		m := newManager(t, nil, Config{})
		if err := os.WriteFile(m.Path(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := m.SynthesizeEpisode(context.Background(), Episode{Number: 1, Reason: "death", Turns: 3})
		if !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", name, err)
		}
		if got, _ := os.ReadFile(m.Path()); !bytes.Equal(got, data) {
			t.Errorf("%s: the file changed", name)
		}
		if m.Full() != NoKnowledge || m.ForAgent() != "" {
			t.Errorf("%s: its garbled text reached the prompt", name)
		}
	}
}

// A resumed episode (its first turn here past turn 100) runs no extra
// update: the next is at turn 200, as in an uninterrupted run.
func TestResumePastAnUpdateAddsNone(t *testing.T) {
	m := newManager(t, nil, Config{UpdateInterval: 100})
	ctx := context.Background()
	for turn := 101; turn <= 199; turn++ {
		m.ProcessTurn(ctx, plain(turn))
	}
	if st := m.Status(); st.LastUpdate != 100 {
		t.Fatalf("last update at turn %d after turns 101-199 of a resumed episode, want none since 100", st.LastUpdate)
	}
	m.ProcessTurn(ctx, plain(200))
	if st := m.Status(); st.LastUpdate != 200 {
		t.Fatalf("last update at turn %d after turn 200, want 200", st.LastUpdate)
	}
}

// An episode synthesised twice (its end interrupted by a signal or a kill,
// then resumed) has one note.
func TestEpisodeNoteOnce(t *testing.T) {
	m := newManager(t, nil, Config{})
	ctx := context.Background()
	for range 2 {
		if _, err := m.SynthesizeEpisode(ctx, Episode{Number: 1, Reason: "turn cap", Score: 5, Turns: 5}); err != nil {
			t.Fatal(err)
		}
	}
	m.SynthesizeEpisode(ctx, Episode{Number: 2, Reason: "death", Turns: 9})
	d, _ := m.Load()
	if len(d.Notes) != 2 || !strings.HasPrefix(d.Notes[0], "Episode 1 (") || !strings.HasPrefix(d.Notes[1], "Episode 2 (") {
		t.Fatalf("notes %q", d.Notes)
	}
}
