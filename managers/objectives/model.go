package objectives

import (
	"context"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/sanitize"
)

// Discovery is the objectives role's reply to a discovery:
// {objectives, reasoning}.
type Discovery struct {
	Objectives []string `json:"objectives" maxItems:"5" maxLength:"160" desc:"specific objectives that name location IDs"`
	Reasoning  string   `json:"reasoning" maxLength:"300"`
}

// Done names a completed objective by its ID.
type Done struct {
	ID int `json:"id" minimum:"1" maximum:"100000"`
}

// CompletionCheck is the objectives role's reply to "which objectives did
// the recent turns complete?".
type CompletionCheck struct {
	Completed []Done `json:"completed" maxItems:"10"`
	Reasoning string `json:"reasoning" maxLength:"200"`
}

// Refinement is the objectives role's reply to a refinement.
type Refinement struct {
	Objectives []string `json:"refined_objectives" maxItems:"12" maxLength:"160"`
	Reasoning  string   `json:"reasoning" maxLength:"300"`
}

const systemPrompt = `You plan for an agent that plays a text adventure. You set it concrete objectives from what it knows: strategic knowledge from earlier episodes, memories of places, the map, and what just happened. Location IDs (L64, "Location 64") name rooms consistently everywhere. Reply with JSON only.`

// state is the current-state block of the prompts.
func (m *Manager) stateLocked() string {
	inv := "nothing"
	if len(m.inventory) > 0 {
		inv = strings.Join(m.inventory, ", ")
	}
	return fmt.Sprintf("CURRENT STATE:\n- Score: %d\n- Location: %s (ID: %d)\n- Inventory: %s", m.score, m.roomName(m.loc.id), m.loc.id, inv)
}

func (m *Manager) listLocked() string {
	act := m.activeLocked()
	if len(act) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for i, o := range act {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%d] %s", o.ID, o.Text)
	}
	return b.String()
}

// DiscoveryPrompt is the objective discovery prompt over the current
// context.
func (m *Manager) DiscoveryPrompt() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	b.WriteString("Analyze recent gameplay and available knowledge to discover objectives.\n\n")
	m.sources = Sources{}
	if !m.cfg.Plain {
		knowledge := m.FullKnowledge()
		memories, shown := m.memoryContext(m.loc.id)
		m.sources = sourcesOf(knowledge != NoKnowledge, shown)
		fmt.Fprintf(&b, "=== STRATEGIC KNOWLEDGE (General Wisdom) ===\n%s\n\n", knowledge)
		fmt.Fprintf(&b, "=== LOCATION-SPECIFIC MEMORIES ===\n%s\n\n", memories)
		fmt.Fprintf(&b, "=== MAP & ROUTING INFORMATION ===\n%s\n\n", m.MapContext())
	}
	fmt.Fprintf(&b, "=== RECENT GAMEPLAY ===\n%s\n\n", m.gameplay())
	fmt.Fprintf(&b, "%s\n\n", m.stateLocked())
	fmt.Fprintf(&b, "CURRENT OBJECTIVES (do not repeat them):\n%s\n\n", m.listLocked())
	b.WriteString(discoveryInstructions)
	return b.String()
}

const discoveryInstructions = `Based on ALL of this context, identify objectives that:

1. **Align with strategic knowledge**: avoid known dangers, pursue known high-value goals (treasures, puzzle solutions), follow resource priorities (a light source before dark places), apply command patterns that worked.
2. **Leverage location-specific memories**: use known procedures from the current or adjacent locations instead of rediscovering them.
3. **Address exploration opportunities**: unexplored exits on the map, adjacent rooms with interesting memories.
4. **Build on recent gameplay**: continue what worked, learn from failures and obstacles.

Good objectives:
- "Use the window entry procedure from Location 79 memory (open window, enter window) to reach Location 62 (Kitchen)"
- "Avoid the troll at Location 152 until holding a sword (knowledge warns it blocks the passage)"
- "Explore north to Location 81 (adjacent room with unexplored exits, lantern mentioned in memory)"
Bad objectives: "Explore the house" (vague, no location ID), "Get items" (no specifics), "Try random actions".

IMPORTANT: name locations by ID ("Location 79"), cite the knowledge or memory an objective builds on, prefer objectives that use what earlier episodes learned. Give at most 5 new objectives, one clear sentence each; an empty list when the current ones suffice.

Reply with ONLY a JSON object: {"objectives": ["objective 1", ...], "reasoning": "brief: how they follow from the knowledge, memories and map"}`

func (m *Manager) discover(ctx context.Context) (bool, error) {
	prompt := m.DiscoveryPrompt()
	rep, _, err := llm.Structured[Discovery](ctx, m.deps.Client, llm.Request{Role: config.RoleObjectives, Turn: m.turnNow(),
		Messages: []llm.Message{llm.System(systemPrompt), llm.User(prompt)}})
	if err != nil {
		return false, fmt.Errorf("objective discovery at turn %d: %w", m.turnNow(), err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reasoning = rep.Reasoning
	changed := false
	for _, text := range rep.Objectives {
		if _, added := m.addLocked(text, ByModel); added {
			changed = true
		}
	}
	return changed, nil
}

func (m *Manager) turnNow() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.turn
}

// checkCompletion asks which active objectives the recent turns completed.
func (m *Manager) checkCompletion(ctx context.Context) (bool, error) {
	m.mu.Lock()
	if len(m.activeLocked()) == 0 {
		m.mu.Unlock()
		return false, nil
	}
	prompt := fmt.Sprintf(`Which of the current objectives have the recent turns completed?

CURRENT OBJECTIVES:
%s

=== RECENT GAMEPLAY ===
%s

%s

A location objective is complete when the player reached the location; an item objective when the item was taken ("Taken."); an action objective when the action succeeded. Score increases often mean an objective was met. Only list objectives that are clearly done.

Reply with ONLY a JSON object: {"completed": [{"id": 3}], "reasoning": "brief"}; an empty list when none is done.`, m.listLocked(), m.gameplay(), m.stateLocked())
	turn := m.turn
	m.mu.Unlock()
	rep, _, err := llm.Structured[CompletionCheck](ctx, m.deps.Client, llm.Request{Role: config.RoleObjectives, Turn: turn,
		Messages: []llm.Message{llm.System(systemPrompt), llm.User(prompt)}})
	if err != nil {
		return false, fmt.Errorf("objective completion check at turn %d: %w", turn, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	changed := false
	for _, d := range rep.Completed {
		for i := range m.objs {
			o := &m.objs[i]
			if o.ID == d.ID && o.State == Active {
				o.State, o.Done, o.How = Completed, turn, "model: "+sanitize.ClipRunes(sanitize.OneLine(rep.Reasoning), 160)
				changed = true
			}
		}
	}
	return changed, nil
}

// refine asks for the most important objectives and keeps about
// RefineTarget of the model's; the person's are never refined away.
func (m *Manager) refine(ctx context.Context) (bool, error) {
	m.mu.Lock()
	act := m.activeLocked()
	var b strings.Builder
	for _, o := range act {
		fmt.Fprintf(&b, "- %s\n", o.Text)
	}
	prompt := fmt.Sprintf(`Refine this list of objectives by selecting the %d most important and achievable ones.

CURRENT OBJECTIVES (%d total):
%s
CURRENT CONTEXT:
- Score: %d
- Location: %s (ID: %d)
- Turn: %d

Select the %d objectives that are most likely achievable now, most likely to raise the score, most specific and actionable, and not redundant with each other. Keep location IDs.

Reply with ONLY a JSON object: {"refined_objectives": ["objective 1", ...], "reasoning": "brief"}`,
		m.cfg.RefineTarget, len(act), b.String(), m.score, m.roomName(m.loc.id), m.loc.id, m.turn, m.cfg.RefineTarget)
	turn := m.turn
	m.mu.Unlock()
	rep, _, err := llm.Structured[Refinement](ctx, m.deps.Client, llm.Request{Role: config.RoleObjectives, Turn: turn,
		Messages: []llm.Message{llm.System(systemPrompt), llm.User(prompt)}})
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastRefine = turn
	if err != nil {
		return false, fmt.Errorf("objective refinement at turn %d: %w", turn, err)
	}
	var keep []string
	for _, t := range rep.Objectives {
		if t = sanitize.OneLine(t); t != "" {
			keep = append(keep, t)
		}
	}
	if len(keep) > m.cfg.RefineTarget {
		keep = keep[:m.cfg.RefineTarget]
	}
	if len(keep) == 0 {
		return false, nil
	}
	changed := false
	for i := range m.objs {
		o := &m.objs[i]
		if o.State != Active || o.Source != ByModel {
			continue
		}
		kept := false
		for _, k := range keep {
			if similar(o.Text, k) {
				kept = true
				break
			}
		}
		if !kept {
			o.State, o.Done, o.How = Dropped, turn, "refinement"
			changed = true
		}
	}
	for _, k := range keep {
		if _, added := m.addLocked(k, ByModel); added {
			changed = true
		}
	}
	return changed, nil
}
