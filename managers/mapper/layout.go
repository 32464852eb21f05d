package mapper

import "sort"

// The grid layout: every room gets a cell of a compass grid, placed from a
// neighbour it is linked with by the direction of the link (north is up,
// east is right, the diagonals on the diagonals). The grid never says what
// the links do not: a room sits in a cell next to a room it is linked with
// only when a compass link between them goes that way. A room whose cell
// is taken or would say otherwise, and a room reached only by up, down,
// in, out or another action, goes to the nearest cell that says nothing
// false (never next to the room it leads from), and its exits are written
// in the boxes as labels instead of lines. Separate parts of the map are
// laid out side by side. The layout is pure: the same snapshot always
// gives the same grid.

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
	// matches: a compass link between a and b goes from a by off.
	matches := func(a, b int, off Cell) bool {
		for _, e := range adj[a] {
			if e.to == b && e.onGrid && e.step == off {
				return true
			}
		}
		return false
	}
	linked := func(a, b int) bool {
		for _, e := range adj[a] {
			if e.to == b {
				return true
			}
		}
		return false
	}
	pos := map[int]Cell{}
	taken := map[Cell]int{}
	place := func(id int, c Cell) { pos[id] = c; taken[c] = id }
	// honest: a free cell where id would sit next to no room it is linked
	// with unless a compass link between them goes that way.
	honest := func(id int, c Cell) bool {
		if _, used := taken[c]; used {
			return false
		}
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				q, used := taken[Cell{c.X + dx, c.Y + dy}]
				if used && (dx != 0 || dy != 0) && linked(id, q) && !matches(id, q, Cell{dx, dy}) {
					return false
				}
			}
		}
		return true
	}
	maxX := -1
	for _, root := range ids {
		if _, done := pos[root]; done {
			continue
		}
		// A new part of the map starts right of the parts before it.
		place(root, Cell{maxX + 1, 0})
		queue := []int{root}
		for {
			// Compass neighbours first, breadth first, each in the cell
			// its link points to when that cell is free and honest.
			for len(queue) > 0 {
				cur := queue[0]
				queue = queue[1:]
				for _, e := range adj[cur] {
					c := Cell{pos[cur].X + e.step.X, pos[cur].Y + e.step.Y}
					if _, done := pos[e.to]; !done && e.onGrid && honest(e.to, c) {
						place(e.to, c)
						queue = append(queue, e.to)
					}
				}
			}
			// Then the first room (by ID of the placed one, then of the
			// link; compass links first) that could not be placed so: further along its
			// compass direction, else on the honest cell nearest its
			// neighbour; its compass neighbours follow from it.
			var next edgeFrom
			for _, compassOnly := range []bool{true, false} {
				for _, id := range ids {
					if _, done := pos[id]; !done || next.to != 0 {
						continue
					}
					for _, e := range adj[id] {
						if _, done := pos[e.to]; !done && (e.onGrid || !compassOnly) {
							next = edgeFrom{id, e.to, e.step, e.onGrid}
							break
						}
					}
				}
			}
			if next.to == 0 {
				break
			}
			lone := func(c Cell) bool {
				for _, n := range ring(c, 1) {
					if _, used := taken[n]; used {
						return false
					}
				}
				return true
			}
			// fit: how many of the room's compass links to rooms not
			// placed yet would find their cell from c free, with no
			// room around it.
			fit := func(c Cell) int {
				n := 0
				for _, e := range adj[next.to] {
					_, done := pos[e.to]
					if at := (Cell{c.X + e.step.X, c.Y + e.step.Y}); e.onGrid && !done && lone(at) {
						n++
					}
				}
				return n
			}
			place(next.to, displacedCell(pos[next.from], next, func(c Cell) bool { return honest(next.to, c) }, lone, fit))
			queue = append(queue, next.to)
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
	drawn := map[[2]int]int{} // room pair → index in l.Links
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
				if i, seen := drawn[key]; seen {
					if l.Links[i].From != from {
						l.Links[i].Both = true
					}
					continue
				}
				drawn[key] = len(l.Links)
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

// edgeFrom is a link from a placed room to one not placed yet.
type edgeFrom struct {
	from, to int
	step     Cell
	onGrid   bool
}

// displacedCell finds a cell for a room that could not sit next to the
// room it is linked from: two or three cells along a compass link's
// direction, else, of the cells ok accepts within a few rings, the one
// where most of the room's own compass links fit (the nearest of those),
// lone cells (no room around them) before the others, else the nearest
// cell ok accepts.
func displacedCell(from Cell, e edgeFrom, ok, lone func(Cell) bool, fit func(Cell) int) Cell {
	if e.onGrid {
		for k := 2; k <= 3; k++ {
			if c := (Cell{from.X + k*e.step.X, from.Y + k*e.step.Y}); ok(c) {
				return c
			}
		}
	}
	// A cell with no room around it first, so that a room placed apart
	// does not look like the neighbour of rooms it has no link with.
	for _, accept := range []func(Cell) bool{func(c Cell) bool { return ok(c) && lone(c) }, ok} {
		best, bestFit := Cell{}, -1
		for r := 1; r <= 3; r++ {
			for _, c := range ring(from, r) {
				if accept(c) {
					if f := fit(c); f > bestFit {
						best, bestFit = c, f
					}
				}
			}
		}
		if bestFit >= 0 {
			return best
		}
	}
	return nearestFree(from, ok)
}

// ring lists the cells r steps from a cell: east, south, west and north
// first, then the others nearest first, row by row.
func ring(at Cell, r int) []Cell {
	out := []Cell{{at.X + r, at.Y}, {at.X, at.Y + r}, {at.X - r, at.Y}, {at.X, at.Y - r}}
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
	return append(out, rest...)
}

// nearestFree finds the cell nearest a cell that ok accepts, ring by ring
// outwards.
func nearestFree(at Cell, ok func(Cell) bool) Cell {
	for r := 1; ; r++ {
		for _, c := range ring(at, r) {
			if ok(c) {
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
