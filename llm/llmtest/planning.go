package llmtest

import (
	"strings"

	"github.com/lantern-if/lantern/config"
)

// FormatHas matches structured calls whose JSON schema names the property
// prop (the reply shape tells apart the calls one role makes).
func FormatHas(prop string) Matcher {
	return func(r Request) bool {
		return r.Chat != nil && strings.Contains(string(r.Chat.Format), `"`+prop+`"`)
	}
}

// all matches when every matcher does.
func all(ms ...Matcher) Matcher {
	return func(r Request) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}

// ScriptPlanning answers every call of the planning managers (objectives,
// knowledge, supervisor) with one valid, story-neutral reply per call shape,
// for tests and demos that run those managers but do not examine them.
// Register it after a test's own expectations: the first match wins.
func (s *Server) ScriptPlanning() {
	obj := Role(config.RoleObjectives)
	s.Always("objectives: refinement", all(obj, FormatHas("refined_objectives")),
		Reply{Content: `{"refined_objectives": ["Explore the rooms next to this one"], "reasoning": "one objective covers the rest"}`})
	s.Always("objectives: completion", all(obj, FormatHas("completed")),
		Reply{Content: `{"completed": [], "reasoning": "nothing is done yet"}`})
	s.Always("objectives: discovery", obj,
		Reply{Content: `{"objectives": ["Explore the rooms next to this one", "Pick up anything that can be carried"], "reasoning": "the map has unexplored exits"}`})
	kn := Role(config.RoleKnowledge)
	s.Always("knowledge: episode synthesis", all(kn, FormatHas("episode_note")),
		Reply{Content: `{"strategy": "- Explore before acting.\n- Carry a light source.", "lessons": [], "episode_note": "Explore first.", "reasoning": "the episode was short"}`})
	s.Always("knowledge: update", all(kn, FormatHas("lessons")),
		Reply{Content: `{"strategy": "- Explore before acting.\n- Carry a light source.", "lessons": [], "reasoning": "little has changed"}`})
	s.Always("knowledge: summary", kn,
		Reply{Content: `{"strategy": "- Explore before acting."}`})
	sup := Role(config.RoleSupervisor)
	s.Always("supervisor: evaluation", all(sup, FormatHas("assessment")),
		Reply{Content: `{"assessment": "steady play that matches the facts", "trust_level": 3, "work_satisfaction": 2, "relational_comfort": 1}`})
	s.Always("supervisor: feedback", all(sup, FormatHas("feedback")),
		Reply{Content: `{"feedback_reasoning": "keep it going", "feedback": "Keep exploring; try exits you have not used."}`})
	s.Always("supervisor: summary", sup,
		Reply{Content: `{"summary": "The agent explored steadily and its claims matched the facts."}`})
}
