package objectives

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/sanitize"
)

// The texts the context helpers give when they have nothing (the model
// reads them, so they say so in words).
const (
	NoKnowledge   = "No strategic knowledge available."
	NoMemoryData  = "No memory data available"
	NoMemories    = "No memories available for current or adjacent locations"
	NoMapData     = "No map data available"
	NoRoutingData = "No routing data available"
)

// Limits of the discovery context, to keep the prompt small: at most 5
// adjacent locations, the top 3 memories of each, the top 5 of the current
// location.
const (
	MaxAdjacent         = 5
	MemoriesPerAdjacent = 3
	MemoriesShown       = 5
)

// FullKnowledge is the whole knowledge base, or NoKnowledge without one.
func (m *Manager) FullKnowledge() string {
	if m.deps.Knowledge == nil {
		return NoKnowledge
	}
	if k := m.deps.Knowledge.Full(); strings.TrimSpace(k) != "" {
		return k
	}
	return NoKnowledge
}

// AdjacentIDs lists the rooms one hop from loc in either direction: where
// the agent can go and where it came from (the map manager's Adjacent). Without a map it
// is empty.
func (m *Manager) AdjacentIDs(loc int) []int {
	if m.deps.Map == nil {
		return nil
	}
	return m.deps.Map.Adjacent(loc)
}

// roomName is a room's name from the map, else from what the turns said.
func (m *Manager) roomName(id int) string {
	if m.deps.Map != nil && m.deps.Map.Known(id) {
		return m.deps.Map.Name(id)
	}
	if id == m.loc.id && m.loc.name != "" {
		return m.loc.name
	}
	return fmt.Sprintf("Location #%d", id)
}

// MemoriesWithAdjacent is the memory context of a discovery: the current location's memories, then
// those of up to MaxAdjacent adjacent locations, MemoriesPerAdjacent each.
func (m *Manager) MemoriesWithAdjacent(loc int) string {
	text, _ := m.memoryContext(loc)
	return text
}

// memoryContext is MemoriesWithAdjacent with the memories it shows, by
// location (what an objective can cite).
func (m *Manager) memoryContext(loc int) (string, map[int][]memory.Memory) {
	if m.deps.Memories == nil {
		return NoMemoryData, nil
	}
	shown := map[int][]memory.Memory{}
	var lines []string
	if cur := m.ofEpisode(m.deps.Memories.List(loc)); len(cur) > 0 {
		lines = append(lines, fmt.Sprintf("## Memories for Current Location %d (%s):", loc, m.roomName(loc)))
		lines = append(lines, FormatMemories(cur))
		shown[loc] = firstShown(cur, MemoriesShown)
	}
	adj := m.AdjacentIDs(loc)
	if len(adj) > MaxAdjacent {
		adj = adj[:MaxAdjacent]
	}
	var adjLines []string
	for _, id := range adj {
		mems := m.ofEpisode(m.deps.Memories.List(id))
		if len(mems) == 0 {
			continue
		}
		mems = firstShown(mems, MemoriesPerAdjacent)
		shown[id] = mems
		adjLines = append(adjLines, fmt.Sprintf("\n**Location %d (%s):**", id, m.roomName(id)), FormatMemories(mems))
	}
	if len(adjLines) > 0 {
		lines = append(lines, "\n## Memories for Adjacent Locations:")
		lines = append(lines, adjLines...)
	}
	if len(lines) == 0 {
		return NoMemories, nil
	}
	return strings.Join(lines, "\n"), shown
}

// ofEpisode leaves out the EPHEMERAL memories of other episodes than the
// one being played (true only there); superseded ones stay, marked.
func (m *Manager) ofEpisode(mems []memory.Memory) []memory.Memory {
	out := mems[:0:0]
	for _, mem := range mems {
		if mem.Visible() && !mem.ShownIn(m.episode) {
			continue
		}
		out = append(out, mem)
	}
	return out
}

// firstShown are the memories FormatMemories shows of at most n: ranked,
// the first n.
func firstShown(mems []memory.Memory, n int) []memory.Memory {
	mems = ranked(mems)
	if len(mems) > n {
		mems = mems[:n]
	}
	return mems
}

// ranked puts the memories the agent may rely on (active, tentative)
// before superseded ones, each group in file order.
func ranked(mems []memory.Memory) []memory.Memory {
	out := append([]memory.Memory(nil), mems...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Visible() && !out[j].Visible() })
	return out
}

// FormatMemories formats memories for the prompt: at most MemoriesShown, category in brackets, a status
// marker for every memory that is not ACTIVE.
func FormatMemories(mems []memory.Memory) string {
	if len(mems) == 0 {
		return "  (No memories)"
	}
	mems = ranked(mems)
	if len(mems) > MemoriesShown {
		mems = mems[:MemoriesShown]
	}
	var b strings.Builder
	for i, mem := range mems {
		if i > 0 {
			b.WriteByte('\n')
		}
		marker := ""
		if mem.Status != "" && mem.Status != memory.StatusActive {
			marker = fmt.Sprintf(" [%s]", mem.Status)
		}
		fmt.Fprintf(&b, "  - [%s] %s%s\n    %s", mem.Category, mem.Title, marker, strings.Join(strings.Fields(mem.Text), " "))
	}
	return b.String()
}

// MapContext is the map part of a discovery: the Mermaid map with L{id}
// nodes, the routing summary and the exploration statistics.
func (m *Manager) MapContext() string {
	if m.deps.Map == nil {
		return NoMapData
	}
	cur := m.loc.id
	var b strings.Builder
	b.WriteString("## Map Visualization (Mermaid Format)\n")
	b.WriteString(strings.TrimRight(m.deps.Map.Mermaid(), "\n"))
	b.WriteString("\n\nNote: Node IDs match location IDs in memories (L180 = Location 180)\n")
	fmt.Fprintf(&b, "**Current location**: L%d\n\n", cur)
	b.WriteString(m.RoutingSummary(cur))
	b.WriteString("\n\n## Exploration Statistics\n")
	fmt.Fprintf(&b, "- Rooms discovered: %d\n", len(m.deps.Map.Rooms()))
	fmt.Fprintf(&b, "- Current location: %s (ID: %d)", m.roomName(cur), cur)
	return b.String()
}

// RoutingSummary is the map manager's routing summary for loc, or NoRoutingData without a map.
func (m *Manager) RoutingSummary(loc int) string {
	if m.deps.Map == nil {
		return NoRoutingData
	}
	return m.deps.Map.RoutingSummary(loc)
}

// gameplay is the recent gameplay: the last turns with their responses and
// the agent's latest reasoning.
func (m *Manager) gameplay() string {
	if len(m.recent) == 0 {
		return "No turns played yet."
	}
	var b strings.Builder
	b.WriteString("RECENT ACTIONS:\n")
	for _, t := range m.recent {
		actor := ""
		if t.Actor != "" && t.Actor != "agent" {
			actor = " (" + t.Actor + ")"
		}
		fmt.Fprintf(&b, "T%d at L%d %s%s: %s\n  → %s\n", t.Turn, t.FromID, t.FromName, actor, t.Action, sanitize.ClipRunes(sanitize.OneLine(t.Response), 200))
	}
	if r := m.recent[len(m.recent)-1].Reasoning; r != "" {
		fmt.Fprintf(&b, "\nCURRENT AGENT REASONING:\n%s\n", sanitize.ClipRunes(sanitize.OneLine(r), 400))
	}
	return strings.TrimRight(b.String(), "\n")
}
