package config

import (
	"fmt"
	"sort"
	"strings"
)

// Profiles: a named cadence of the managers. The lean profile is the
// built-in defaults: about one model call a turn beside the agent's. The
// zorkgpt profile is the design documents' loop: the critic model on every
// proposal, the extractor after every turn, a supervisor round every turn,
// objectives every 20 turns, memory synthesis also on every move and
// inventory change. A profile sets only the keys no file,
// variable or flag set: `profile = "zorkgpt"` with
// `managers.supervisor_interval = 5` keeps the 5.

// The profile names.
const (
	ProfileLean    = "lean"
	ProfileZorkGPT = "zorkgpt"
)

// MemoryTriggerNames are the events that may call memory synthesis
// (managers.memory_triggers, comma-separated).
var MemoryTriggerNames = []string{"score", "death", "first_visit", "long_response", "movement", "inventory"}

// LeanMemoryTriggers is managers.memory_triggers's default.
const LeanMemoryTriggers = "score,death,first_visit,long_response"

// ProfileKeys are the values a profile gives, by key.
func ProfileKeys(name string) (map[string]string, bool) {
	switch name {
	case ProfileLean, "":
		return map[string]string{}, true
	case ProfileZorkGPT:
		return map[string]string{
			"loop.critic_mode":                    "always",
			"managers.extractor":                  "true",
			"managers.supervisor":                 "true",
			"managers.supervisor_interval":        "1",
			"managers.objectives":                 "true",
			"loop.objective_update_interval":      "20",
			"managers.memory_triggers":            strings.Join(MemoryTriggerNames, ","),
			"managers.memory_synthesis":           MemorySeparate,
			"managers.knowledge":                  "true",
			"loop.knowledge_update_interval":      "100",
			"managers.enhanced_objective_context": "true",
		}, true
	}
	return nil, false
}

// ProfileNames lists the profiles.
func ProfileNames() []string { return []string{ProfileLean, ProfileZorkGPT} }

// applyProfile sets the profile's keys that nothing else set.
func (l *loader) applyProfile() {
	name := strings.ToLower(strings.TrimSpace(l.c.Profile))
	vals, ok := ProfileKeys(name)
	if !ok {
		l.problem(Problem{Key: "profile", Value: fmt.Sprintf("%q", l.c.Profile), Source: l.c.Sources["profile"],
			Msg: "want " + strings.Join(ProfileNames(), " or ")})
		return
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, set := l.c.Sources[k]; set {
			continue
		}
		l.set(k, text(vals[k]), Source{Kind: FromProfile, Name: name}, "")
	}
}

// ParseMemoryTriggers splits managers.memory_triggers and checks each name.
func ParseMemoryTriggers(s string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		known := false
		for _, n := range MemoryTriggerNames {
			known = known || n == f
		}
		if !known {
			return nil, fmt.Errorf("unknown trigger %q (want some of %s)", f, strings.Join(MemoryTriggerNames, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}
