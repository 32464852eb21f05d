package config

import (
	"os"
	"testing"
)

// The zorkgpt profile fills the keys nothing else set with the design
// documents' cadence; a key set in a file keeps its value.
func TestProfileFillsUnsetKeys(t *testing.T) {
	for _, tc := range []struct {
		name, file                  string
		supervisor, objectives      int
		triggers                    string
		supervisorFrom, triggerFrom SourceKind
	}{
		{"lean", "", 40, 40, LeanMemoryTriggers, FromDefault, FromDefault},
		{"zorkgpt", "profile = \"zorkgpt\"\n", 1, 20, "score,death,first_visit,long_response,movement,inventory", FromProfile, FromProfile},
		{"zorkgpt with a file's interval", "profile = \"zorkgpt\"\n[managers]\nsupervisor_interval = 5\n", 5, 20,
			"score,death,first_visit,long_response,movement,inventory", FromFile, FromProfile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadString(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Managers.SupervisorInterval != tc.supervisor || cfg.Loop.ObjectiveUpdateInterval != tc.objectives || cfg.Managers.MemoryTriggers != tc.triggers {
				t.Errorf("supervisor %d, objectives %d, triggers %q", cfg.Managers.SupervisorInterval, cfg.Loop.ObjectiveUpdateInterval, cfg.Managers.MemoryTriggers)
			}
			if got := cfg.Sources["managers.supervisor_interval"].Kind; got != tc.supervisorFrom {
				t.Errorf("supervisor_interval from %v, want %v", got, tc.supervisorFrom)
			}
			if got := cfg.Sources["managers.memory_triggers"].Kind; got != tc.triggerFrom {
				t.Errorf("memory_triggers from %v, want %v", got, tc.triggerFrom)
			}
		})
	}
	if _, err := loadString(t, "profile = \"fast\"\n"); err == nil {
		t.Error("an unknown profile is accepted")
	}
	if _, err := loadString(t, "[managers]\nmemory_triggers = \"score,smell\"\n"); err == nil {
		t.Error("an unknown trigger is accepted")
	}
}

func loadString(t *testing.T, file string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	path := dir + "/lantern.toml"
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(LoadOptions{ProjectFile: path, Getenv: env(map[string]string{"HOME": dir})})
}
