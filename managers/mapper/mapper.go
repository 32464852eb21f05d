// Package mapper is the map manager: rooms by location ID (the story's
// object numbers), connections by the exit action that led from one to the
// other, failed exits, adjacency in both directions, shortest routes, the
// Mermaid rendering with L{id} nodes and the routing summary the
// objectives manager shows.
package mapper

import (
	"fmt"
	"sort"
	"strings"
)

// Map is the spatial memory of one story. It is not safe for concurrent
// use; the engine goroutine owns it.
type Map struct {
	names   map[int]string
	conns   map[int]map[string]int // from → action → to
	failed  map[int]map[string]int // from → action → failures
	visited map[int]int            // visits per room
	current int
}

// New makes an empty map.
func New() *Map {
	return &Map{names: map[int]string{}, conns: map[int]map[string]int{}, failed: map[int]map[string]int{}, visited: map[int]int{}}
}

// Reset forgets the current room for a new episode; the map itself is
// knowledge that survives episodes (location IDs are stable in a story).
func (m *Map) Reset() { m.current = 0 }

// Status summarises the map for the UI.
type Status struct {
	Rooms       int `json:"rooms"`
	Connections int `json:"connections"`
	Current     int `json:"current"`
}

// Status reports the map's size.
func (m *Map) Status() Status {
	n := 0
	for _, c := range m.conns {
		n += len(c)
	}
	return Status{Rooms: len(m.names), Connections: n, Current: m.current}
}

// Visit records being in a room (the opening, a restore).
func (m *Map) Visit(id int, name string) bool {
	if id == 0 {
		return false
	}
	_, known := m.names[id]
	if name != "" {
		m.names[id] = name
	}
	m.visited[id]++
	m.current = id
	return !known
}

// ProcessTurn records a played action: a move from one room to another adds
// (or confirms) a connection; staying put after a direction counts as a
// failed exit. It reports whether the map changed.
func (m *Map) ProcessTurn(from int, action string, to int, toName string) bool {
	changed := false
	if to != 0 {
		if _, known := m.names[to]; !known || (toName != "" && m.names[to] != toName) {
			changed = true
		}
		if toName != "" {
			m.names[to] = toName
		}
	}
	act := NormalizeAction(action)
	switch {
	case from != 0 && to != 0 && from != to && act != "":
		if m.conns[from] == nil {
			m.conns[from] = map[string]int{}
		}
		if m.conns[from][act] != to {
			m.conns[from][act] = to
			changed = true
		}
		m.visited[to]++
	case from != 0 && from == to && IsDirection(act):
		if m.failed[from] == nil {
			m.failed[from] = map[string]int{}
		}
		m.failed[from][act]++
	}
	if to != 0 {
		m.current = to
	}
	return changed
}

// AddExit records a probed exit.
func (m *Map) AddExit(from int, action string, to int, toName string) bool {
	if from == 0 || to == 0 || from == to {
		return false
	}
	if toName != "" {
		if _, ok := m.names[to]; !ok {
			m.names[to] = toName
		}
	}
	act := NormalizeAction(action)
	if m.conns[from] == nil {
		m.conns[from] = map[string]int{}
	}
	if m.conns[from][act] == to {
		return false
	}
	m.conns[from][act] = to
	return true
}

// Name of a room ("Location #N" when unknown).
func (m *Map) Name(id int) string {
	if n, ok := m.names[id]; ok && n != "" {
		return n
	}
	return fmt.Sprintf("Location #%d", id)
}

// Known reports whether a room is on the map.
func (m *Map) Known(id int) bool { _, ok := m.names[id]; return ok }

// Rooms lists the known room IDs in order.
func (m *Map) Rooms() []int {
	out := make([]int, 0, len(m.names))
	for id := range m.names {
		out = append(out, id)
	}
	sort.Ints(out)
	return out
}

// Exits returns a room's known exits: action → destination.
func (m *Map) Exits(id int) map[string]int {
	out := map[string]int{}
	for a, to := range m.conns[id] {
		out[a] = to
	}
	return out
}

// FailedExits returns how often each direction failed in a room.
func (m *Map) FailedExits(id int) map[string]int {
	out := map[string]int{}
	for a, n := range m.failed[id] {
		out[a] = n
	}
	return out
}

// Adjacent lists rooms one hop away in either direction (bidirectional:
// where we can go, and where we came from).
func (m *Map) Adjacent(id int) []int {
	set := map[int]bool{}
	for _, to := range m.conns[id] {
		set[to] = true
	}
	for from, c := range m.conns {
		for _, to := range c {
			if to == id && from != id {
				set[from] = true
			}
		}
	}
	delete(set, id)
	out := make([]int, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// Step is one move of a route.
type Step struct {
	Action string `json:"action"`
	To     int    `json:"to"`
}

// Route finds a shortest sequence of known moves from one room to another
// (nil when there is none; empty when from == to).
func (m *Map) Route(from, to int) []Step {
	if from == to {
		return []Step{}
	}
	type prev struct {
		from   int
		action string
	}
	seen := map[int]prev{from: {}}
	queue := []int{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, a := range sortedActions(m.conns[cur]) {
			next := m.conns[cur][a]
			if _, ok := seen[next]; ok {
				continue
			}
			seen[next] = prev{cur, a}
			if next == to {
				var route []Step
				for at := to; at != from; at = seen[at].from {
					route = append(route, Step{Action: seen[at].action, To: at})
				}
				for i, j := 0, len(route)-1; i < j; i, j = i+1, j-1 {
					route[i], route[j] = route[j], route[i]
				}
				return route
			}
			queue = append(queue, next)
		}
	}
	return nil
}

func sortedActions(c map[string]int) []string {
	out := make([]string, 0, len(c))
	for a := range c {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Mermaid renders the map as a Mermaid flowchart with L{id} node IDs, the
// same IDs as the memories file.
func (m *Map) Mermaid() string {
	var b strings.Builder
	b.WriteString("graph TD\n")
	for _, id := range m.Rooms() {
		fmt.Fprintf(&b, "  L%d[\"%s\"]\n", id, strings.ReplaceAll(m.Name(id), `"`, "'"))
	}
	for _, from := range m.Rooms() {
		for _, a := range sortedActions(m.conns[from]) {
			fmt.Fprintf(&b, "  L%d -->|%s| L%d\n", from, a, m.conns[from][a])
		}
	}
	return b.String()
}

// RoutingSummary is a text for the model: the current room's exits, then up to 5
// adjacent rooms with up to 3 exits each, marking the way back.
func (m *Map) RoutingSummary(current int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Current Location: %d (%s)\n", current, m.Name(current))
	if len(m.conns[current]) > 0 {
		b.WriteString("**Available Exits:**\n")
		for _, a := range sortedActions(m.conns[current]) {
			to := m.conns[current][a]
			fmt.Fprintf(&b, "  - %s → Location %d (%s)\n", a, to, m.Name(to))
		}
	} else {
		b.WriteString("  - No mapped exits\n")
	}
	adj := m.Adjacent(current)
	if len(adj) > 0 {
		b.WriteString("\n## Adjacent Locations (1 hop away):\n")
		if len(adj) > 5 {
			adj = adj[:5]
		}
		for _, id := range adj {
			fmt.Fprintf(&b, "\n**Location %d (%s):**\n", id, m.Name(id))
			acts := sortedActions(m.conns[id])
			if len(acts) > 3 {
				acts = acts[:3]
			}
			for _, a := range acts {
				to := m.conns[id][a]
				back := ""
				if to == current {
					back = " [back to current]"
				}
				fmt.Fprintf(&b, "  - %s → Location %d (%s)%s\n", a, to, m.Name(to), back)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Neighbourhood is a compact text of the rooms around current for the
// agent's prompt: its exits, and the failed directions to avoid.
func (m *Map) Neighbourhood(current int) string {
	var b strings.Builder
	acts := sortedActions(m.conns[current])
	if len(acts) == 0 {
		b.WriteString("Known exits: none yet.")
	} else {
		b.WriteString("Known exits:")
		for i, a := range acts {
			sep := ","
			if i == 0 {
				sep = ""
			}
			to := m.conns[current][a]
			fmt.Fprintf(&b, "%s %s → L%d %s", sep, a, to, m.Name(to))
		}
		b.WriteString(".")
	}
	if f := m.failed[current]; len(f) > 0 {
		b.WriteString(" Directions that failed here:")
		for i, a := range sortedActions(f) {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %s", sep, a)
		}
		b.WriteString(".")
	}
	return b.String()
}

// directions maps every spelling of a direction to its canonical name.
func directions() map[string]string {
	return map[string]string{
		"n": "north", "north": "north", "s": "south", "south": "south", "e": "east", "east": "east",
		"w": "west", "west": "west", "ne": "northeast", "northeast": "northeast", "nw": "northwest",
		"northwest": "northwest", "se": "southeast", "southeast": "southeast", "sw": "southwest",
		"southwest": "southwest", "u": "up", "up": "up", "d": "down", "down": "down", "in": "in",
		"inside": "in", "out": "out", "outside": "out",
	}
}

// NormalizeAction lower-cases an action, folds spaces, drops a leading "go"
// and spells directions out ("N" → "north").
func NormalizeAction(a string) string {
	f := strings.Fields(strings.ToLower(a))
	if len(f) > 1 && (f[0] == "go" || f[0] == "walk" || f[0] == "run") {
		f = f[1:]
	}
	if len(f) == 1 {
		if d, ok := directions()[f[0]]; ok {
			return d
		}
	}
	return strings.Join(f, " ")
}

// IsDirection reports whether a normalised action is a plain direction.
func IsDirection(a string) bool {
	for _, d := range directions() {
		if d == a {
			return true
		}
	}
	return false
}
