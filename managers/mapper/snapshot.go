package mapper

import "maps"

// Snapshot is the whole map as plain data (JSON-ready), for checkpoints: a
// resumed session continues with the map it had.
type Snapshot struct {
	Names   map[int]string         `json:"names"`
	Conns   map[int]map[string]int `json:"connections"`
	Failed  map[int]map[string]int `json:"failed"`
	Visited map[int]int            `json:"visited"`
	Current int                    `json:"current"`
}

// Snapshot copies the map.
func (m *Map) Snapshot() Snapshot {
	return Snapshot{Names: maps.Clone(m.names), Conns: cloneNested(m.conns), Failed: cloneNested(m.failed),
		Visited: maps.Clone(m.visited), Current: m.current}
}

// Restore replaces the map with a snapshot's copy.
func (m *Map) Restore(s Snapshot) {
	fresh := New()
	maps.Copy(fresh.names, s.Names)
	maps.Copy(fresh.conns, cloneNested(s.Conns))
	maps.Copy(fresh.failed, cloneNested(s.Failed))
	maps.Copy(fresh.visited, s.Visited)
	fresh.current = s.Current
	*m = *fresh
}

func cloneNested(in map[int]map[string]int) map[int]map[string]int {
	out := make(map[int]map[string]int, len(in))
	for k, v := range in {
		out[k] = maps.Clone(v)
	}
	return out
}
