package oracle

import (
	"github.com/lantern-if/lantern/config"
)

// The words each role's replies use. They are plausible, not clever: the
// oracle knows the solution, so the managers that watch the play have
// little to add, and say so.

// sayings are a role's texts by property name; "" is the role's default.
func sayings() map[string]map[string]string {
	return map[string]map[string]string{
		config.RoleAgent: {
			"":         "Following the walkthrough.",
			"remember": "",
		},
		config.RoleMemory: {
			"":             "Nothing new to remember: the walkthrough already covers this turn.",
			"memory_title": "Nothing new",
			"memory_text":  "Nothing new to remember: the walkthrough already covers this turn.",
		},
		config.RoleSupervisor: {
			"":                   "Steady play along a known solution; the agent's claims match the facts.",
			"feedback_reasoning": "The play is on track; no correction is needed.",
			"feedback":           "Keep going one command at a time, as you have been.",
			"summary":            "The agent followed a known solution and its claims matched the facts.",
		},
		config.RoleObjectives: {
			"": "The walkthrough sets the course; one objective covers it.",
		},
		config.RoleKnowledge: {
			"":             "Little has changed: the walkthrough sets the course.",
			"strategy":     "- Follow the known solution one step at a time.\n- Keep a light source before going underground.",
			"episode_note": "Following the known solution step by step works.",
		},
		config.RoleExtractor: {
			"": "",
		},
		config.RoleRetriever: {
			"": "Nothing in the notes changes the plan.",
		},
	}
}

// lists are a role's list items by property name.
func lists() map[string]map[string][]string {
	return map[string]map[string][]string{
		config.RoleObjectives: {
			"objectives":         {"Follow the walkthrough to the end of the story"},
			"refined_objectives": {"Follow the walkthrough to the end of the story"},
		},
	}
}

// numbers are a role's numbers by property name (0 otherwise).
func numbers() map[string]map[string]float64 {
	return map[string]map[string]float64{
		config.RoleSupervisor: {"trust_level": 3, "work_satisfaction": 2, "relational_comfort": 1},
	}
}

// voiceOf is how a role's replies are filled in.
func voiceOf(role string) voice {
	say, items, nums := sayings()[role], lists()[role], numbers()[role]
	return voice{
		text: func(prop string) string {
			if t, ok := say[prop]; ok {
				return t
			}
			if t, ok := say[""]; ok {
				return t
			}
			return "The oracle has nothing to add."
		},
		list:   func(prop string) []string { return items[prop] },
		number: func(prop string) float64 { return nums[prop] },
	}
}

// plainText is a role's reply when no format is asked for (a research
// round, a free-text question).
func plainText(role string) string {
	switch role {
	case config.RoleAgent:
		return "The walkthrough already says what to do next; no research is needed."
	case config.RoleRetriever:
		return "Nothing in the notes changes the plan."
	case "":
		return "The oracle follows its walkthrough."
	}
	if t := voiceOf(role).text(""); t != "" {
		return t
	}
	return "The oracle has nothing to add."
}

// generic answers a role other than the agent and the critic with a reply
// that fits the format.
func generic(role string, s *schema) (answer, error) {
	v, err := generate(s, "", voiceOf(role), 0)
	if err != nil {
		return answer{}, err
	}
	b, err := marshal(v)
	if err != nil {
		return answer{}, err
	}
	return answer{Content: string(b)}, nil
}
