package env

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSaveSlotsBounded: saving past MaxSaveSlots drops the oldest slots.
func TestSaveSlotsBounded(t *testing.T) {
	story, binding := demoStory(t)
	dir := t.TempDir()
	e, err := NewEnv(story, EnvOptions{Seed: 1, Binding: binding, SaveDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxSaveSlots+10; i++ {
		if _, err := e.Step("save"); err != nil {
			t.Fatal(err)
		}
	}
	slots, _ := filepath.Glob(filepath.Join(dir, "slot-*.qzl"))
	if len(slots) != MaxSaveSlots {
		t.Errorf("%d slots kept, want %d", len(slots), MaxSaveSlots)
	}
	if _, err := os.Stat(filepath.Join(dir, slotName(MaxSaveSlots+10))); err != nil {
		t.Errorf("the newest slot is missing: %v", err)
	}
}
