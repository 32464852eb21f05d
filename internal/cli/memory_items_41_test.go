package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/sharedtest"
)

// oracleRun plays the walkthrough's first turns of Zork I in the default
// profile with the oracle and returns the work dir's Memories.md (and its
// path), its lantern.db and the chat calls made.
func oracleRun(t *testing.T, cmds []string, turns string) (*memory.File, string, *rundb.RunDB, *formatRecorder) {
	t.Helper()
	storyPath := sharedtest.File(t, "stories/zork1.z3")
	dir, _ := isolate(t)
	rec := &formatRecorder{next: oracle.New(oracle.Options{Script: cmds})}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	work := filepath.Join(dir, "work")
	code, _, stderr := runCLI(t, "", "run", "--headless", "--json", "--model", "oracle", "--seed", "12", "--max-turns", turns,
		"--story", storyPath, "--workdir", work)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	dbs, _ := filepath.Glob(filepath.Join(work, "*", "lantern.db"))
	if len(dbs) != 1 {
		t.Fatalf("databases %q", dbs)
	}
	db, err := rundb.OpenRunDB(dbs[0], storyMD5(t, storyPath))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	path := filepath.Join(filepath.Dir(dbs[0]), "Memories.md")
	f, err := memory.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, path, db, rec
}

// Issue 41, acceptance 2: 60 turns of Zork I in the default profile leave
// the lamp, the garlic, the rope, the knife and the sword in Memories.md
// at the rooms they were taken from, as ground-truth ITEM entries the
// agent's context shows, with no memory question more than the lean
// triggers ask (the takes themselves ask none).
func TestIssue41ItemsFoundWhere(t *testing.T) {
	cmds, err := oracle.LoadScript(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	const turns = 60
	f, path, db, rec := oracleRun(t, cmds, "60")
	var check strings.Builder
	if code := memory.Check(&check, path); code != 0 {
		t.Errorf("memories check: exit %d\n%s", code, check.String())
	}
	if !bytes.Equal(f.Format(), f.Bytes()) {
		t.Errorf("Memories.md is not in the canonical form:\n%s", f.Bytes())
	}
	rooms := map[string]memory.Section{}
	for _, sec := range f.Sections() {
		rooms[sec.Name] = sec
	}
	for _, tc := range []struct{ item, room string }{
		{"brass lantern", "Living Room"},
		{"clove of garlic", "Kitchen"},
		{"rope", "Attic"},
		{"knife", "Attic"},
		{"sword", "Living Room"},
	} {
		sec, ok := rooms[tc.room]
		if !ok {
			t.Errorf("Memories.md has no %s", tc.room)
			continue
		}
		var found *memory.Memory
		for i, m := range sec.Memories {
			if m.Category == memory.CategoryItem && strings.Contains(m.Title, tc.item) {
				found = &sec.Memories[i]
			}
		}
		if found == nil || !found.Visible() || found.Level() != memory.PersistencePermanent || !strings.HasPrefix(found.Text, "Found here") {
			t.Errorf("%s: no find of the %s recorded: %+v", tc.room, tc.item, sec.Memories)
			continue
		}
		if ctx := memory.RenderLocationMemoryIn(sec, memory.DefaultBudget(), 1); !strings.Contains(ctx, "[ITEM] "+found.Title) {
			t.Errorf("the agent's context at the %s does not show the %s:\n%s", tc.room, tc.item, ctx)
		}
	}
	decisions, err := db.Decisions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	memCalls := 0
	for _, c := range rec.calls {
		if c.role == config.RoleMemory {
			memCalls++
		}
	}
	rec.mu.Unlock()
	want := triggeredTurns(t, sharedtest.File(t, "stories/zork1.z3"), cmds[:turns], 12, memsynth.LeanTriggers())
	t.Logf("%d memory decisions (%d memory-role calls); the lean triggers fire on %d of %d turns", len(decisions), memCalls, want, turns)
	if len(decisions) != want || memCalls > len(decisions) {
		t.Errorf("%d memory decisions and %d memory-role calls, want one decision per turn the lean triggers fire on (%d) and no call beyond them",
			len(decisions), memCalls, want)
	}
	for _, d := range decisions {
		if len(d.Triggers) == 0 {
			t.Errorf("turn %d asked the memory model without a trigger", d.Turn)
		}
	}
}

// Issue 41, acceptance 4: over 150 turns of Zork I no memory of a single
// action carries a span of more than one turn: the oracle's answers name
// no first turn, so every memory is of its own turn, however long the
// agent stayed in one room.
func TestIssue41SingleActionsSpanOneTurn(t *testing.T) {
	cmds, err := oracle.LoadScript(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f, _, _, _ := oracleRun(t, cmds, "150")
	n := 0
	for _, sec := range f.Sections() {
		for _, m := range sec.Memories {
			n++
			if m.TurnEnd != 0 {
				t.Errorf("L%d %s: %q spans T%d-%d", sec.ID, sec.Name, m.Title, m.Turn, m.TurnEnd)
			}
		}
	}
	if n < 20 {
		t.Fatalf("%d memories in 150 turns", n)
	}
	t.Logf("%d memories, each of one turn", n)
}
