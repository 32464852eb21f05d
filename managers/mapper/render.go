package mapper

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// The map written out for people and tools: Mermaid, Graphviz DOT, or the
// grid drawn as text with a list of the exits the grid does not draw.

// ErrFormat: a map format Lantern cannot write.
var ErrFormat = errors.New("unknown map format")

// Formats are the formats Render writes.
func Formats() []string { return []string{"mermaid", "dot", "text"} }

// Render writes the snapshot in a format (mermaid, dot or text).
func (s Snapshot) Render(w io.Writer, format string) error {
	var out string
	switch format {
	case "mermaid":
		m := New()
		m.Restore(s)
		out = m.Mermaid()
	case "dot":
		out = s.DOT()
	case "text":
		out = s.Text()
	default:
		return fmt.Errorf("%w %q (want %s)", ErrFormat, format, strings.Join(Formats(), ", "))
	}
	if _, err := io.WriteString(w, out); err != nil {
		return fmt.Errorf("write map: %w", err)
	}
	return nil
}

// DOT renders the map as a Graphviz digraph: rooms as boxes named L{id}
// (the current one bold), connections labelled with their action.
func (s Snapshot) DOT() string {
	l := s.Layout(0)
	var b strings.Builder
	b.WriteString("digraph map {\n  node [shape=box, style=rounded];\n")
	for _, r := range l.Rooms {
		extra := ""
		if r.Current {
			extra = ", style=\"rounded,bold\""
		}
		fmt.Fprintf(&b, "  L%d [label=%s%s];\n", r.ID, strconv.Quote(r.Name), extra)
	}
	for _, from := range l.Rooms {
		for _, a := range sortedActions(s.Conns[from.ID]) {
			fmt.Fprintf(&b, "  L%d -> L%d [label=%s];\n", from.ID, s.Conns[from.ID][a], strconv.Quote(a))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// Text draws the map's grid and lists, room by room, the exits the grid
// does not draw (up, down, other actions, and compass exits whose room
// could not be placed next door).
func (s Snapshot) Text() string {
	l := s.Layout(0)
	if len(l.Rooms) == 0 {
		return "The map is empty.\n"
	}
	var b strings.Builder
	for _, line := range l.Draw(DefaultGlyphs()).Lines() {
		b.WriteString(line + "\n")
	}
	b.WriteString(OtherExits(l, "\n"))
	return b.String()
}

// OtherExits lists the exits the grid does not draw, one room a line
// ("L27 Kitchen: up → L5 Attic, west → L75 Living Room"), after a heading;
// "" when there are none.
func OtherExits(l Layout, heading string) string {
	var b strings.Builder
	for _, r := range l.Rooms {
		if len(r.Others) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(heading + "Exits not drawn:\n")
		}
		parts := make([]string, len(r.Others))
		for i, e := range r.Others {
			to, _ := l.Room(e.To)
			parts[i] = fmt.Sprintf("%s → L%d %s", e.Action, e.To, to.Name)
		}
		fmt.Fprintf(&b, "  L%d %s: %s\n", r.ID, r.Name, strings.Join(parts, ", "))
	}
	return b.String()
}

// FromTurns rebuilds a map from recorded moves, as the engine built it:
// each step is (room before, action, room after, its name).
func FromTurns(steps []Move) Snapshot {
	m := New()
	for i, st := range steps {
		if i == 0 || st.Reset {
			m.Reset()
			m.Visit(st.To, st.ToName)
			continue
		}
		m.ProcessTurn(st.From, st.Action, st.To, st.ToName)
	}
	return m.Snapshot()
}

// Move is one recorded turn for FromTurns; Reset starts an episode (its
// room is where the episode opened).
type Move struct {
	From   int
	Action string
	To     int
	ToName string
	Reset  bool
}

// Merge adds another snapshot's rooms and connections to a copy of s (a
// connection both know keeps s's destination); the other's current room
// becomes current when it has one.
func (s Snapshot) Merge(o Snapshot) Snapshot {
	m := New()
	m.Restore(s)
	for _, id := range sortedIDs(o.Names) {
		if !m.Known(id) || m.names[id] == "" {
			m.names[id] = o.Names[id]
		}
	}
	for _, from := range sortedIDs(o.Conns) {
		for _, a := range sortedActions(o.Conns[from]) {
			if _, ok := m.conns[from][a]; !ok {
				m.AddExit(from, a, o.Conns[from][a], o.Names[o.Conns[from][a]])
			}
		}
	}
	if o.Current != 0 {
		m.current = o.Current
	}
	return m.Snapshot()
}

func sortedIDs[V any](in map[int]V) []int {
	out := make([]int, 0, len(in))
	for k := range in {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
