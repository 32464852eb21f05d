package mapper

import "sort"

// The grid layout: every room gets a cell of a compass grid, placed from a
// neighbour it is linked with by the direction of the link (north is up,
// east is right, the diagonals on the diagonals). A cell already taken
// pushes the room further along the same direction, then to the nearest
// free cell; rooms reached only by up, down or a non-compass action sit on
// the nearest free cell; separate parts of the map are laid out side by
// side. The layout is pure: the same snapshot always gives the same grid.

// Cell is a room's place: X grows to the east, Y to the south.
type Cell struct{ X, Y int }

// compass is the grid offset of each compass direction.
func compass() map[string]Cell {
	return map[string]Cell{
		"north": {0, -1}, "south": {0, 1}, "east": {1, 0}, "west": {-1, 0},
		"northeast": {1, -1}, "northwest": {-1, -1}, "southeast": {1, 1}, "southwest": {-1, 1},
	}
}

// CompassOffset reports the grid step of a compass direction (false for
// up, down and every other action).
func CompassOffset(action string) (Cell, bool) {
	c, ok := compass()[action]
	return c, ok
}

// PlacedRoom is a room on the grid.
type PlacedRoom struct {
	ID      int
	Name    string
	At      Cell
	Current bool
	// Others are the room's exits the grid cannot draw as a line: up,
	// down, non-compass actions, and compass exits whose rooms did not land
	// next to it in that direction; sorted by action.
	Others []Exit
}

// Exit is one connection: an action from a room to another.
type Exit struct {
	Action string
	To     int
}

// Link is a compass connection drawn as a line between two rooms that sit
// next to each other in its direction. Both is set when the way back is
// known too (one Link stands for the pair).
type Link struct {
	From, To int
	Action   string
	Both     bool
}

// Layout is the map placed on a grid, with coordinates from 0.
type Layout struct {
	Rooms         []PlacedRoom // in room ID order
	Links         []Link
	Width, Height int // cells
	Current       int // the current room's ID (0: none on the map)
}

// Room returns a placed room by ID.
func (l Layout) Room(id int) (PlacedRoom, bool) {
	i := sort.Search(len(l.Rooms), func(i int) bool { return l.Rooms[i].ID >= id })
	if i < len(l.Rooms) && l.Rooms[i].ID == id {
		return l.Rooms[i], true
	}
	return PlacedRoom{}, false
}

// Layout places the snapshot's rooms on a grid; current marks a room (0:
// the snapshot's own current room).
func (s Snapshot) Layout(current int) Layout {
	if current == 0 {
		current = s.Current
	}
	ids := make([]int, 0, len(s.Names))
	for id := range s.Names {
		ids = append(ids, id)
	}
	for from, c := range s.Conns { // a connection's ends are rooms even unnamed
		ids = append(ids, from)
		for _, to := range c {
			ids = append(ids, to)
		}
	}
	ids = uniqueSorted(ids)
	// Neighbours in both directions: a room is placed from the room it
	// leads to as well (west of a known room reached by its east exit).
	type edge struct {
		to     int
		step   Cell
		onGrid bool
		action string
	}
	adj := map[int][]edge{}
	for _, from := range ids {
		for _, a := range sortedActions(s.Conns[from]) {
			to := s.Conns[from][a]
			if to == from {
				continue
			}
			off, ok := CompassOffset(a)
			adj[from] = append(adj[from], edge{to, off, ok, a})
			adj[to] = append(adj[to], edge{from, Cell{-off.X, -off.Y}, ok, a})
		}
	}
	pos := map[int]Cell{}
	taken := map[Cell]int{}
	place := func(id int, c Cell) { pos[id] = c; taken[c] = id }
	maxX := -1
	for _, root := range ids {
		if _, done := pos[root]; done {
			continue
		}
		// A new part of the map starts right of the parts before it.
		place(root, Cell{maxX + 1, 0})
		queue := []int{root}
		for {
			// Compass neighbours first, breadth first, so that they get
			// their cells before any room that only needs a free one.
			for len(queue) > 0 {
				cur := queue[0]
				queue = queue[1:]
				for _, e := range adj[cur] {
					if _, done := pos[e.to]; !done && e.onGrid {
						place(e.to, freeAlong(taken, pos[cur], e.step))
						queue = append(queue, e.to)
					}
				}
			}
			// Then the first room (by ID of the placed one, then of the
			// link) reached otherwise, on the free cell nearest its
			// neighbour; its compass neighbours follow from it.
			next, near := 0, 0
			for _, id := range ids {
				if _, done := pos[id]; !done {
					continue
				}
				for _, e := range adj[id] {
					if _, done := pos[e.to]; !done {
						next, near = e.to, id
						break
					}
				}
				if next != 0 {
					break
				}
			}
			if next == 0 {
				break
			}
			place(next, nearestFree(taken, pos[near]))
			queue = append(queue, next)
		}
		for _, c := range pos {
			maxX = max(maxX, c.X)
		}
	}
	l := Layout{Current: 0}
	if len(ids) == 0 {
		return l
	}
	lo := Cell{1 << 30, 1 << 30}
	hi := Cell{-1 << 30, -1 << 30}
	for _, c := range pos {
		lo.X, lo.Y = min(lo.X, c.X), min(lo.Y, c.Y)
		hi.X, hi.Y = max(hi.X, c.X), max(hi.Y, c.Y)
	}
	l.Width, l.Height = hi.X-lo.X+1, hi.Y-lo.Y+1
	for _, id := range ids {
		c := pos[id]
		pos[id] = Cell{c.X - lo.X, c.Y - lo.Y}
	}
	linked := map[[2]int]int{} // room pair → index in l.Links
	for _, from := range ids {
		pr := PlacedRoom{ID: from, Name: s.name(from), At: pos[from], Current: from == current}
		if pr.Current {
			l.Current = from
		}
		for _, a := range sortedActions(s.Conns[from]) {
			to := s.Conns[from][a]
			off, ok := CompassOffset(a)
			if ok && to != from && pos[to] == (Cell{pos[from].X + off.X, pos[from].Y + off.Y}) {
				key := [2]int{min(from, to), max(from, to)}
				if i, seen := linked[key]; seen {
					if l.Links[i].From != from {
						l.Links[i].Both = true
					}
					continue
				}
				linked[key] = len(l.Links)
				l.Links = append(l.Links, Link{From: from, To: to, Action: a})
				continue
			}
			pr.Others = append(pr.Others, Exit{Action: a, To: to})
		}
		l.Rooms = append(l.Rooms, pr)
	}
	return l
}

func (s Snapshot) name(id int) string {
	if n := s.Names[id]; n != "" {
		return n
	}
	return (&Map{names: s.Names}).Name(id)
}

// freeAlong finds a free cell stepping from a cell in a direction: the next
// one, else further along, else the nearest free cell to the first.
func freeAlong(taken map[Cell]int, from, step Cell) Cell {
	for k := 1; k <= 3; k++ {
		c := Cell{from.X + k*step.X, from.Y + k*step.Y}
		if _, used := taken[c]; !used {
			return c
		}
	}
	return nearestFree(taken, Cell{from.X + step.X, from.Y + step.Y})
}

// nearestFree finds the free cell nearest a cell: ring by ring outwards;
// in a ring east, south, west and north first, then the others nearest
// first, row by row.
func nearestFree(taken map[Cell]int, at Cell) Cell {
	for r := 1; ; r++ {
		ring := []Cell{{at.X + r, at.Y}, {at.X, at.Y + r}, {at.X - r, at.Y}, {at.X, at.Y - r}}
		var rest []Cell
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				if max(abs(dx), abs(dy)) == r && dx != 0 && dy != 0 {
					rest = append(rest, Cell{at.X + dx, at.Y + dy})
				}
			}
		}
		sort.SliceStable(rest, func(i, j int) bool {
			return abs(rest[i].X-at.X)+abs(rest[i].Y-at.Y) < abs(rest[j].X-at.X)+abs(rest[j].Y-at.Y)
		})
		for _, c := range append(ring, rest...) {
			if _, used := taken[c]; !used {
				return c
			}
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func uniqueSorted(in []int) []int {
	sort.Ints(in)
	out := in[:0]
	for i, v := range in {
		if v != 0 && (i == 0 || v != in[i-1]) {
			out = append(out, v)
		}
	}
	return out
}
