package tui

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// TestUndoBringsBackAHandDeletion: u in the Memory pane undoes a deletion
// made in the session first; with none it asks, and u again asks the
// session to bring back the memories a save by hand deleted.
func TestUndoBringsBackAHandDeletion(t *testing.T) {
	store := handSavedStore(t)
	undoByHandThenInSession(t, store)
}

// handSavedStore is Memories.md with three memories at L3, two of them
// then deleted by a save by hand.
func handSavedStore(t *testing.T) *memory.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "Memories.md")
	store, err := memory.Open(path, memory.WithSettle(0))
	if err != nil {
		t.Fatal(err)
	}
	first := store
	t.Cleanup(func() { first.Close() })
	for _, title := range []string{"Lamp in the hall", "Key under the mat", "Troll bridge"} {
		if err := store.Add(3, "Muddy Lane", memory.Memory{Category: memory.CategoryNote, Status: memory.StatusActive, Title: title, Text: title + " noted.", Episode: 1, Turn: 1}); err != nil {
			t.Fatal(err)
		}
	}
	// Reopened, the store has not added them lately (it would keep them
	// through a save by hand that lacks them).
	store.Close()
	if store, err = memory.Open(path, memory.WithSettle(0)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	// A save by hand keeps only the first memory.
	data, _ := os.ReadFile(path)
	var kept []string
	skip := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "**[") || strings.HasPrefix(line, "#") {
			skip = strings.Contains(line, "Key under the mat") || strings.Contains(line, "Troll bridge")
		}
		if !skip {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Refresh(); err != nil {
		t.Fatal(err)
	}
	if n := len(store.List(3)); n != 1 {
		t.Fatalf("after the save by hand: %d memories, want 1", n)
	}

	return store
}

// undoByHandThenInSession: u asks first, u again restores the hand
// deletion; a deletion in the session comes back first.
func undoByHandThenInSession(t *testing.T, store *memory.Store) {
	t.Helper()
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Memories: store, Story: "demo", Theme: "dark", RefreshEvery: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := &harness{t: t, m: m, eng: eng}
	h.key("m")
	press := func() tea.Msg {
		t.Helper()
		cmd := h.key("u")
		if cmd == nil {
			t.Fatal("u did nothing")
		}
		msg := cmd()
		m.Update(msg)
		return msg
	}
	if msg, ok := press().(undoCheckMsg); !ok || msg.pending != 0 {
		t.Fatalf("first u: %#v, want a check finding nothing deleted in the session", msg)
	}
	h.mustSee("u again undoes the last hand deletion")
	if len(store.List(3)) != 1 {
		t.Fatal("the first u changed the memories; it must only ask")
	}
	// The second u asks the session, which owns Memories.md, to bring them
	// back; the TUI writes nothing itself.
	h.key("u")
	if got, want := h.pending(), []engine.Command{engine.MemoryEdit{Op: engine.MemoryRestoreHand}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("u u queued %#v, want %#v", got, want)
	}
	h.mustSee("the memories last deleted by hand come back")
	if len(store.List(3)) != 1 {
		t.Fatal("the TUI restored the memories itself")
	}
	h.flush()

	// A deletion made in the session comes back first, through the engine.
	if err := store.Delete(memory.Ref{Location: 3, Title: "Lamp in the hall"}); err != nil {
		t.Fatal(err)
	}
	if msg, ok := press().(undoCheckMsg); !ok || msg.pending != 1 {
		t.Fatalf("u after a delete: %#v", msg)
	}
	if got, want := h.pending(), []engine.Command{engine.MemoryEdit{Op: engine.MemoryUndo}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v, want %#v", got, want)
	}
	h.mustSee("undo: the last deleted memory comes back")
}
